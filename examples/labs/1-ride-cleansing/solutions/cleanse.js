// Lab 1, exercise 1: a solution.
function isInNYC(lon, lat) {
  return lon >= -74.05 && lon <= -73.70 && lat >= 40.50 && lat <= 41.00;
}

export default {
  output: "ROW<ride_id BIGINT, event STRING, ts TIMESTAMP(3), taxi_id BIGINT>",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    if (!isInNYC(input.start_lon, input.start_lat) || !isInNYC(input.end_lon, input.end_lat)) return;
    ctx.collect({ ride_id: input.ride_id, event: input.event, ts: input.ts, taxi_id: input.taxi_id });
  },
};
