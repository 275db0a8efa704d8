// Lab 1, exercise 1: Ride cleansing. Keep the events of the rides that
// start and end in New York City, and drop the others: both the START
// and the END event of a ride that starts or ends outside the city go.
// The function is called with row semantics, one row at a time; emit a
// kept event with its ride_id, event, ts and taxi_id.
//
// Check it: ptfsh test examples/labs/1-ride-cleansing/cleanse.txtar
// See it:   ptfsh -f examples/labs/1-ride-cleansing/lab.sql

// isInNYC is given: whether a point lies in the city's box.
function isInNYC(lon, lat) {
  return lon >= -74.05 && lon <= -73.70 && lat >= 40.50 && lat <= 41.00;
}

export default {
  output: "ROW<ride_id BIGINT, event STRING, ts TIMESTAMP(3), taxi_id BIGINT>",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    // Your code: keep only the rides inside the city (isInNYC).
    ctx.collect({ ride_id: input.ride_id, event: input.event, ts: input.ts, taxi_id: input.taxi_id });
  },
};
