// Lab 1, exercise 2: Drivers in the city. For each driver, count the
// rides they have started inside the city so far: at each START event of
// a ride that starts and ends in NYC, emit the driver's count, this ride
// included. END events and rides that leave the city count for nothing.
// The function is called with set semantics, PARTITION BY driver_id: the
// count is the driver's, kept in state from one row to the next.
//
// Check it: ptfsh test examples/labs/1-ride-cleansing/drivers.txtar

function isInNYC(lon, lat) {
  return lon >= -74.05 && lon <= -73.70 && lat >= 40.50 && lat <= 41.00;
}

export default {
  output: "ROW<ride_id BIGINT, rides BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { driver: { default: { rides: 0 } } },
  eval(ctx, { driver }, { input }) {
    // Your code: count this driver's rides in the city, and emit the count.
  },
};
