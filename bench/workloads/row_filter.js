// Workload A: a stateless row filter with row semantics. It keeps the
// clicks someone looked at for at least min_view_time milliseconds (500
// in the benchmark, about half of the generated rows).
export default {
  output: "ROW<user_id STRING, url STRING, view_time INT>",
  args: [
    { name: "input", traits: ["ROW_SEMANTIC_TABLE"] },
    { name: "min_view_time", type: "INT" },
  ],
  eval(ctx, state, { input, min_view_time }) {
    if (input.view_time >= min_view_time) {
      ctx.collect({ user_id: input.user_id, url: input.url, view_time: input.view_time });
    }
  },
};
