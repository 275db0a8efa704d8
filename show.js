export default {
  output: "ROW<msg STRING>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, state, { r }) {
    const tc = ctx.timeContext();
    ctx.collect({ msg: `${r.name} sees watermark ${tc.currentWatermark()}` });
    tc.registerOnTime(tc.time() + 60000);
  },
  onTimer(ctx) { ctx.collect({ msg: `follow-up (watermark ${ctx.timeContext().currentWatermark()})` }); },
};
