// Lab 3, exercise 2: The hour's best driver. The input is each driver's
// tips per hour (a SQL window aggregation computes them: window_end,
// driver_id, tips), partitioned by window_end and with its rowtime,
// window_time (window_end minus 1 ms). For each hour, emit the driver who
// earned the most tips, and how much, once all of the hour's totals are
// in: when the watermark reaches window_time. Of two drivers with the same
// tips, the one with the smaller driver_id wins.
//
// Check it: ptfsh test examples/labs/3-hourly-tips/top_driver.txtar
export default {
  output: "ROW<driver_id BIGINT, tips DOUBLE>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { best: { default: { driver_id: null, tips: null } } },
  eval(ctx, { best }, { input }) {
    // Your code: keep the best driver of this hour so far.
    ctx.collect({ driver_id: input.driver_id, tips: input.tips });
  },
};
