// burst_alert.js — an alert when a user clicks 3 times or more within ten
// seconds (event time) of a first click: a timer ten seconds after it
// reports the count, and the next click starts a new window.
export default {
  output: "ROW<clicks BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { w: { default: { n: 0 } } },
  eval(ctx, { w }, { input }) {
    if (w.n === 0) ctx.timeContext().registerOnTime(input.ts.getTime() + 10000);
    w.n++;
  },
  onTimer(ctx, { w }) {
    if (w.n >= 3) ctx.collect({ clicks: w.n });
    w.n = 0;
  },
};
