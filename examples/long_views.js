// LongViews — Confluent's first example: a stateless filter with row
// semantics that keeps the clicks someone looked at for long enough.
export default {
  output: "ROW<url STRING, view_time INT>",
  args: [
    { name: "input", traits: ["ROW_SEMANTIC_TABLE"] },
    { name: "min_view_time", type: "INT" },
  ],
  eval(ctx, state, { input, min_view_time }) {
    if (input.view_time >= min_view_time) {
      ctx.collect([input.url, input.view_time]);
    }
  },
};
