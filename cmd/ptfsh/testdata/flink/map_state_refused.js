// A function with MapView state of maps, which export flink refuses (export_test.go).
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { kind: "map", type: "MAP<STRING, MAP<STRING, INT>>" } },
  eval(ctx, { seen }, { input }) {
    seen.put(input.name, new Map([["a", 1]]));
  },
};
