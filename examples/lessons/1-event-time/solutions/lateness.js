// A solution of exercise 1 (Lateness).
export default {
  output: "ROW<status STRING, behind_ms BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx) {
    const tc = ctx.timeContext();
    const wm = tc.currentWatermark();
    const late = wm !== null && tc.time() <= wm;
    ctx.collect({ status: late ? "late" : "on time", behind_ms: late ? wm - tc.time() : 0 });
  },
};
