// Workload L: a user's last URLs. Per user (PARTITION BY user_id) a
// ListView of every URL they visited, grown by one element a row; each
// click prints how many pages the user has seen and the one before.
export default {
  output: "ROW<pages INT, previous STRING>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { urls: { kind: "list", type: "ARRAY<STRING>" } },
  eval(ctx, { urls }, { input }) {
    const n = urls.size();
    const previous = n === 0 ? null : urls.get(n - 1);
    urls.add(input.url);
    ctx.collect({ pages: n + 1, previous });
  },
};
