// Lab 4, exercise 1: Long ride alerts. Emit a ride's START time as soon
// as the ride has lasted more than two hours of event time: when the
// watermark passes START + 2 hours with no END, or at once when the END
// shows the ride was longer (an END may come before its START: the feed
// is out of order). A ride of exactly two hours is not long. An END may
// never come. Alert once per ride, and leave no state or timer behind.
// The function is called PARTITION BY ride_id, with on_time => DESCRIPTOR(ts).
//
// Check it: ptfsh test examples/labs/4-long-ride-alerts/long_rides.txtar
// See it:   ptfsh -f examples/labs/4-long-ride-alerts/lab.sql
const TWO_HOURS = 2 * 3600000;
export default {
  output: "ROW<started TIMESTAMP(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { ride: { default: { start: null, end: null } } },
  eval(ctx, { ride }, { input }) {
    // Your code: remember the START or the END, set or clear a timer, alert when the END says so.
  },
  onTimer(ctx, { ride }) {
    // Your code: the ride has lasted two hours with no END.
  },
};
