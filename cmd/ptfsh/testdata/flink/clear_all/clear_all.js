// ClearAll: per key, a named and an unnamed timer ("arm"); "clear" clears
// the named timer by name, then all state and timers of the key
// (ctx.clearAll()). ptfsh clears the key's own; Flink 2.3.0's
// clearAllTimers steps through the unnamed timers of every key and ends
// on another key (see docs/flink.md, "Known differences").
export default {
  output: "ROW<what STRING, n INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, { s }, { input }) {
    s.n++;
    const t = ctx.timeContext();
    if (input.action === "arm") {
      t.registerOnTime("named", input.ts.getTime() + 100000);
      t.registerOnTime(input.ts.getTime() + 200000);
    }
    if (input.action === "clear") {
      t.clearTimer("named");
      ctx.clearAll();
    }
    ctx.collect({ what: input.action, n: s.n });
  },
  onTimer(ctx, { s }) {
    ctx.collect({ what: "timer " + (ctx.currentTimer() ?? "unnamed"), n: s.n });
  },
};
