// Lab 2, exercise 2: Unmatched rides. In a real feed a fare may never
// come (or a START), and the state of exercise 1 would wait for it for
// ever. Pair the rides and fares as before, emitting status 'paired'; but
// once the watermark passes an hour after the ride started with one side
// still missing, give up: emit status 'no fare' (with the ride's driver)
// or 'no ride' (with the fare's total), and forget the ride. No state and
// no timer may be left when the input ends.
// Both tables are called with on_time => DESCRIPTOR(ts): a fare's ts is
// the start of its ride.
//
// Check it: ptfsh test examples/labs/2-rides-and-fares/unmatched.txtar
const HOUR = 3600000;
export default {
  output: "ROW<status STRING, driver_id BIGINT, started TIMESTAMP(3), total DOUBLE>",
  args: [
    { name: "ride", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
    { name: "fare", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] },
  ],
  state: { pair: { default: { ride: null, fare: null } } },
  eval(ctx, { pair }, { ride, fare }) {
    if (ride) pair.ride = { driver_id: ride.driver_id, ts: ride.ts };
    if (fare) pair.fare = { total: fare.total };
    if (pair.ride === null || pair.fare === null) return;
    ctx.collect({ status: "paired", driver_id: pair.ride.driver_id, started: pair.ride.ts, total: pair.fare.total });
    ctx.clearState("pair");
    // Your code: a timer, so that a ride whose other half never comes is given up.
  },
  onTimer(ctx, { pair }) {
    // Your code: say what is missing, and forget the ride.
  },
};
