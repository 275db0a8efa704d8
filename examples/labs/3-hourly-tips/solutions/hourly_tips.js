// Lab 3, exercise 1: a solution.
const HOUR = 3600000;
export default {
  output: "ROW<window_end TIMESTAMP(3), tips DOUBLE>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { hours: { default: {} } },
  eval(ctx, { hours }, { input }) {
    const start = Math.floor(ctx.timeContext().time() / HOUR) * HOUR;
    const wm = ctx.timeContext().currentWatermark();
    if (wm !== null && start + HOUR - 1 <= wm) {
      ctx.noteDropped("late"); // its hour was emitted already
      return;
    }
    hours[start] = Math.round(((hours[start] ?? 0) + input.tip) * 100) / 100;
    ctx.timeContext().registerOnTime(start + HOUR - 1);
  },
  onTimer(ctx, { hours }) {
    const start = ctx.timeContext().time() + 1 - HOUR;
    ctx.collect({ window_end: new Date(start + HOUR), tips: hours[start] });
    delete hours[start];
    if (Object.keys(hours).length === 0) ctx.clearState("hours");
  },
};
