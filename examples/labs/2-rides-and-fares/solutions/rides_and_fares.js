// Lab 2, exercise 1: a solution.
export default {
  output: "ROW<driver_id BIGINT, started TIMESTAMP(3), total DOUBLE>",
  args: [
    { name: "ride", traits: ["SET_SEMANTIC_TABLE"] },
    { name: "fare", traits: ["SET_SEMANTIC_TABLE"] },
  ],
  state: { pair: { default: { ride: null, fare: null } } },
  eval(ctx, { pair }, { ride, fare }) {
    if (ride) pair.ride = { driver_id: ride.driver_id, ts: ride.ts };
    if (fare) pair.fare = { total: fare.total };
    if (pair.ride === null || pair.fare === null) return;
    ctx.collect({ driver_id: pair.ride.driver_id, started: pair.ride.ts, total: pair.fare.total });
    ctx.clearState("pair");
  },
};
