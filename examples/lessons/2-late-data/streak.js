// Exercise 2: Streak. Emit a row when an airport has its third delayed
// departure (delay > 15 minutes) in a row, in event-time order: streak is
// the length of the streak (3, 4, ...: every delayed departure from the
// third on emits), destination the flight's. An on-time departure ends the
// streak. The test calls it with ORDER BY `date`, so rows come sorted.
//
// Check it: ptfsh test examples/lessons/2-late-data
export default {
  output: "ROW<destination STRING, streak INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { run: { default: { delayed: 0 } } },
  eval(ctx, { run }, { input }) {
    // Your code: count input.delay > 15 in run.delayed.
  },
};
