// TimerFunction of Flink's PTF documentation ("Timers"): wait for a second
// event of a key, or time out after 60 seconds of event time.
// The named timer "timeout" is set by the first event; the second event
// clears state and timers (ctx.clearAll()), so the timeout never fires.
const SECONDS = 1000;

export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { memory: { default: { seen: null } } },
  eval(ctx, { memory }, { input }) {
    const time = ctx.timeContext();
    if (memory.seen === null) {
      memory.seen = String(input.getField(0));
      time.registerOnTime("timeout", time.time() + 60 * SECONDS);
    } else {
      ctx.collect(`Second event arrived for: ${memory.seen}`);
      ctx.clearAll();
    }
  },
  // As in Flink's version, a timeout leaves memory.seen set: a later event
  // of the same key counts as the second one.
  onTimer(ctx, { memory }) {
    ctx.collect(`Timeout for: ${memory.seen}`);
  },
};
