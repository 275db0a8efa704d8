// Lab 3, exercise 1: Hourly tips. Sum each driver's tips per hour of
// event time (hours from 12:00 to 13:00, 13:00 to 14:00, ...) and emit
// (window_end, tips) for an hour once the watermark has passed its end:
// a tumbling window made of state and a timer. Fares come out of order,
// so an hour may still get tips after the next hour began. Forget an hour
// once it is out: no state and no timer may be left at the end.
//
// Check it: ptfsh test examples/labs/3-hourly-tips/hourly_tips.txtar
// See it:   ptfsh -f examples/labs/3-hourly-tips/lab.sql
const HOUR = 3600000;
export default {
  output: "ROW<window_end TIMESTAMP(3), tips DOUBLE>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { hours: { default: {} } },
  eval(ctx, { hours }, { input }) {
    // Your code: add input.tip to the hour of this fare's time.
  },
  onTimer(ctx, { hours }) {
    // Your code: emit the hour that ended, and forget it.
  },
};
