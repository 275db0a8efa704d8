// A solution of exercise 2 (Streak).
export default {
  output: "ROW<destination STRING, streak INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { run: { default: { delayed: 0 } } },
  eval(ctx, { run }, { input }) {
    if (input.delay > 15) {
      run.delayed++;
      if (run.delayed >= 3) ctx.collect({ destination: input.destination, streak: run.delayed });
    } else {
      run.delayed = 0;
    }
  },
};
