// Lab 3, exercise 2: a solution.
export default {
  output: "ROW<driver_id BIGINT, tips DOUBLE>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { best: { default: { driver_id: null, tips: null } } },
  eval(ctx, { best }, { input }) {
    const better = best.tips === null || input.tips > best.tips || (input.tips === best.tips && input.driver_id < best.driver_id);
    if (better) {
      best.driver_id = input.driver_id;
      best.tips = input.tips;
    }
    ctx.timeContext().registerOnTime("hour", ctx.timeContext().time());
  },
  onTimer(ctx, { best }) {
    ctx.collect({ driver_id: best.driver_id, tips: best.tips });
    ctx.clearState("best");
  },
};
