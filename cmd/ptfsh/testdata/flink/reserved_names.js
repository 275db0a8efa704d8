// ReservedNames: reads columns whose names Flink reserves (user, value)
// and counts rows per user; the export writes them in backquotes.
export default {
  output: "ROW<`value` STRING, n INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { default: { n: 0 } } },
  eval(ctx, { seen }, { input }) {
    seen.n++;
    ctx.collect({ value: input.user + ":" + input.value, n: seen.n });
  },
};
