// CountClicks — Confluent's stateful example: a running click count per
// PARTITION BY key. Without PARTITION BY the call fails validation, since
// a set-semantic table needs one.
export default {
  output: "ROW<url STRING, click_count BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    clicks: { default: { count: 0 } },
  },
  eval(ctx, { clicks }, { input }) {
    clicks.count++;
    ctx.collect({ url: input.url, click_count: clicks.count });
  },
};
