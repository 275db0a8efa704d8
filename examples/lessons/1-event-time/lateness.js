// Exercise 1: Lateness. For each row, emit how far behind the watermark
// it came: status 'late' when its time is at or before the watermark it
// sees, else 'on time'; behind_ms is watermark - time for a late row and 0
// otherwise. The first rows see no watermark (null): they are on time.
//
// Check it: ptfsh test examples/lessons/1-event-time
export default {
  output: "ROW<status STRING, behind_ms BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, state, { input }) {
    // Your code: ctx.timeContext().time() and .currentWatermark().
    ctx.collect({ status: "on time", behind_ms: 0 });
  },
};
