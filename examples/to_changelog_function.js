// ToChangelogFunction — an updating table in, an append-only table out
// (Flink's docs, "Updating inputs"). SUPPORT_UPDATES lets the table
// argument take a changelog; each change is one call of eval, and
// row.getKind() says which kind it is. The output is insert-only: the kind
// becomes data, in the flag column.
export default {
  output: "ROW<flag STRING, sum INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "SUPPORT_UPDATES"] }],
  eval(ctx, state, { input }) {
    ctx.collect({ flag: String(input.getKind()), sum: input.sum });   // "INSERT", "UPDATE_AFTER", ...
  },
};
