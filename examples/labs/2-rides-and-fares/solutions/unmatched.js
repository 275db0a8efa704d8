// Lab 2, exercise 2: a solution.
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
    if (pair.ride === null || pair.fare === null) {
      ctx.timeContext().registerOnTime("give up", ctx.timeContext().time() + HOUR);
      return;
    }
    ctx.collect({ status: "paired", driver_id: pair.ride.driver_id, started: pair.ride.ts, total: pair.fare.total });
    ctx.clearAll();
  },
  onTimer(ctx, { pair }) {
    if (pair.ride !== null) {
      ctx.collect({ status: "no fare", driver_id: pair.ride.driver_id, started: pair.ride.ts, total: null });
    } else if (pair.fare !== null) {
      ctx.collect({ status: "no ride", driver_id: null, started: null, total: pair.fare.total });
    }
    ctx.clearAll();
  },
};
