// The function form of changelog on Flink (TestRunExport_flinkExamples):
// Flink calls it while it plans, with the modes of the table arguments.
// An insert-only input gets a retract output; the first row of a key is an
// INSERT, each next one retracts the previous count and adds the new one.
export default {
  changelog: (cctx) => (cctx.getTableChangelogMode(0).isInsertOnly() ? { kinds: ["+I", "-U", "+U", "-D"] } : "upsert"),
  output: "ROW<n INT, mode STRING>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { default: { n: 0 } } },
  eval(ctx, { seen }, { input }) {
    const mode = String(ctx.getChangelogMode());
    if (seen.n > 0) ctx.collect({ n: seen.n, mode }, RowKind.UPDATE_BEFORE);
    seen.n += input.score;
    ctx.collect({ n: seen.n, mode }, seen.n === input.score ? "+I" : "UPDATE_AFTER");
  },
};
