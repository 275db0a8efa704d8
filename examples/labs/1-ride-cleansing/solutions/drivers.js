// Lab 1, exercise 2: a solution.
function isInNYC(lon, lat) {
  return lon >= -74.05 && lon <= -73.70 && lat >= 40.50 && lat <= 41.00;
}

export default {
  output: "ROW<ride_id BIGINT, rides BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { driver: { default: { rides: 0 } } },
  eval(ctx, { driver }, { input }) {
    if (input.event !== "START") return;
    if (!isInNYC(input.start_lon, input.start_lat) || !isInNYC(input.end_lon, input.end_lat)) return;
    driver.rides++;
    ctx.collect({ ride_id: input.ride_id, rides: driver.rides });
  },
};
