// Workload B: a running click count per user (set semantics, PARTITION BY
// user_id), one output row per input row.
export default {
  output: "ROW<click_count BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { clicks: { default: { count: 0 } } },
  eval(ctx, { clicks }) {
    clicks.count++;
    ctx.collect({ click_count: clicks.count });
  },
};
