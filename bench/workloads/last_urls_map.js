// Workload L-map: a user's URLs and how often each was visited. Per user
// (PARTITION BY user_id) a MapView url -> count; each click prints the
// count of its URL.
export default {
  output: "ROW<url STRING, hits INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { hits: { kind: "map", type: "MAP<STRING, INT>" } },
  eval(ctx, { hits }, { input }) {
    const n = (hits.get(input.url) ?? 0) + 1;
    hits.put(input.url, n);
    ctx.collect({ url: input.url, hits: n });
  },
};
