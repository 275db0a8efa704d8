// Exercise 3: Hourly. Count each airport's departures per hour of event
// time, and emit (hour_start, departures) when the watermark passes the
// end of the hour: a tumbling window built from a timer. Then forget the
// hour: the test checks that no state and no timers are left after the
// run (want.state, want.timers, want.counts).
//
// Check it: ptfsh test examples/lessons/3-timers
const HOUR = 3600000;
export default {
  output: "ROW<hour_start TIMESTAMP_LTZ(3), departures BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { hours: { default: {} } },
  eval(ctx, { hours }) {
    const t = ctx.timeContext().time();
    const start = Math.floor(t / HOUR) * HOUR;
    hours[start] = (hours[start] ?? 0) + 1;
    ctx.timeContext().registerOnTime(start + HOUR);
  },
  onTimer(ctx, { hours }) {
    const end = ctx.timeContext().time();
    const start = end - HOUR;
    ctx.collect({ hour_start: new Date(start), departures: hours[start] });
    // Your code: forget the hour that was emitted, and the key when no hour is left.
  },
};
