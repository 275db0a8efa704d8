// TableFilter — a scalar argument next to a table argument.
// Effective signature (DESCRIBE TableFilter):
//   TableFilter(input => {TABLE, ROW SEMANTIC TABLE}, threshold => INT NOT NULL,
//               on_time => DESCRIPTOR, uid => STRING)
export default {
  output: "ROW<threshold INT, score BIGINT>",
  args: [
    { name: "input", traits: ["ROW_SEMANTIC_TABLE"] },
    { name: "threshold", type: "INT NOT NULL" },
  ],
  eval(ctx, state, { input, threshold }) {
    if (input.score > threshold) {
      ctx.collect({ threshold, score: input.score });
    }
  },
};
