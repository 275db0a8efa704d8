// Lab 2, exercise 1: Rides and fares. Pair each ride's START event with
// its fare. The function reads two tables, partitioned alike by ride_id:
// rides (START events only) and fares. Either may come first for a ride,
// so keep the one that comes until the other arrives; then emit the pair
// (the ride's driver and start, the fare's total) and forget the ride.
// In eval, the table argument being read is the one that is not null.
//
// Check it: ptfsh test examples/labs/2-rides-and-fares/rides_and_fares.txtar
// See it:   ptfsh -f examples/labs/2-rides-and-fares/lab.sql
export default {
  output: "ROW<driver_id BIGINT, started TIMESTAMP(3), total DOUBLE>",
  args: [
    { name: "ride", traits: ["SET_SEMANTIC_TABLE"] },
    { name: "fare", traits: ["SET_SEMANTIC_TABLE"] },
  ],
  state: { pair: { default: { ride: null, fare: null } } },
  eval(ctx, { pair }, { ride, fare }) {
    // Your code: keep what came (pair.ride or pair.fare), emit when both are there.
  },
};
