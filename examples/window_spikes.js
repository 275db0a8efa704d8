// WindowSpikes: reads one row per user and window (a window aggregation's
// output) in window order, remembers the user's last count, and emits a
// row when a window has at least twice the clicks of the one before.
export default {
  output: "ROW<window_end TIMESTAMP(3), clicks BIGINT, before BIGINT>",
  args: [{ name: "counts", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { last: { default: { clicks: null } } },
  eval(ctx, { last }, { counts }) {
    if (last.clicks !== null && counts.clicks >= 2 * last.clicks) {
      ctx.collect({ window_end: counts.window_end, clicks: counts.clicks, before: last.clicks });
    }
    last.clicks = counts.clicks;
  },
};
