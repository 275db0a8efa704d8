// A function with MapView state, which export flink refuses (export_test.go).
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { kind: "map", type: "MAP<STRING, INT>" } },
  eval(ctx, { seen }, { input }) {
    seen.put(input.name, (seen.get(input.name) ?? 0) + 1);
  },
};
