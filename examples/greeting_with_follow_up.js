// GreetingWithFollowUp — event-time timers (Flink's PTF documentation): greet
// each visitor and, one minute of event time after each visit, follow up.
// Set semantics (state and timers live per PARTITION BY key) and on_time.
const MINUTE = 60 * 1000;

export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { memory: { default: { name: null, counter: 0 } } },
  eval(ctx, { memory }, { input }) {
    memory.name = input.name;
    memory.counter++;
    ctx.collect(`Hello ${memory.name}, your ${memory.counter} time?`);
    const time = ctx.timeContext();
    // An unnamed timer: every visit gets its own follow-up.
    time.registerOnTime(time.time() + MINUTE);
  },
  onTimer(ctx, { memory }) {
    ctx.collect(
      `Hello ${memory.name}, I hope you enjoyed your stay! Please let us know if there's anything we could have done better.`,
    );
  },
};
