// Greeting — row semantics, scalar output.
// Every row is processed on its own; a scalar output type gives one
// column named EXPR$0, as in Flink.
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    ctx.collect("Hello " + input.name + "!");
  },
};
