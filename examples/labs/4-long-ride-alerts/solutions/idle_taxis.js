// Lab 4, exercise 2: a solution.
const IDLE = 30 * 60000;
export default {
  output: "ROW<last_start TIMESTAMP(3), idle_at TIMESTAMP(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { taxi: { default: { last: null } } },
  eval(ctx, { taxi }, { input }) {
    if (input.event !== "START") return;
    const t = ctx.timeContext().time();
    if (taxi.last !== null && t <= taxi.last) return; // out of order: the deadline stays
    if (taxi.last !== null && t - taxi.last >= IDLE) {
      // The taxi was idle before this START, whose row sees the watermark
      // of the rows before it: the timer has not fired yet. Say it now.
      ctx.collect({ last_start: new Date(taxi.last), idle_at: new Date(taxi.last + IDLE) });
    }
    taxi.last = t;
    ctx.timeContext().registerOnTime("idle", t + IDLE);
  },
  onTimer(ctx, { taxi }) {
    const end = ctx.timeContext().currentWatermark() >= Number.MAX_SAFE_INTEGER;
    if (!end) ctx.collect({ last_start: new Date(taxi.last), idle_at: new Date(taxi.last + IDLE) });
    ctx.clearAll();
  },
};
