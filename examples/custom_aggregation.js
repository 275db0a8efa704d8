// CustomAggregation — a ChangelogFunction (Flink's docs, "Updating
// outputs"): a running sum per key that the function itself updates and
// retracts. `changelog: "all"` declares that it emits every kind; the
// second argument of collect is the kind of the row.
export default {
  changelog: "all",                      // [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]
  output: "ROW<sum INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { acc: { default: { sum: 0 } } },
  eval(ctx, { acc }, { input }) {
    if (acc.sum === -1) return;          // deleted before: ignore the key from now on
    if (input.score < 0) {
      ctx.collect({ sum: acc.sum }, RowKind.DELETE);          // -D(sum)
      acc.sum = -1;
    } else if (acc.sum === 0) {
      acc.sum += input.score;
      ctx.collect({ sum: acc.sum }, RowKind.INSERT);          // +I(sum)
    } else {
      ctx.collect({ sum: acc.sum }, RowKind.UPDATE_BEFORE);   // -U(old)
      acc.sum += input.score;
      ctx.collect({ sum: acc.sum }, RowKind.UPDATE_AFTER);    // +U(new)
    }
  },
};
