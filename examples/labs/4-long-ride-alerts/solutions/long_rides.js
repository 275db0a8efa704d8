// Lab 4, exercise 1: a solution.
const TWO_HOURS = 2 * 3600000;
export default {
  output: "ROW<started TIMESTAMP(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { ride: { default: { start: null, end: null } } },
  eval(ctx, { ride }, { input }) {
    const tc = ctx.timeContext();
    if (input.event === "START") ride.start = tc.time();
    else ride.end = tc.time();
    if (ride.start === null) {
      // An END first: its START (earlier in time) comes before the
      // watermark passes the END, unless the alert has been and gone.
      tc.registerOnTime("forget", ride.end);
      return;
    }
    if (ride.end === null) {
      tc.registerOnTime("long", ride.start + TWO_HOURS);
      return;
    }
    if (ride.end - ride.start > TWO_HOURS) ctx.collect({ started: new Date(ride.start) });
    ctx.clearAll();
  },
  onTimer(ctx, { ride }) {
    if (ctx.currentTimer() === "long") ctx.collect({ started: new Date(ride.start) });
    ctx.clearAll();
  },
};
