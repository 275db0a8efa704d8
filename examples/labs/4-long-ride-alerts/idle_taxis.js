// Lab 4, exercise 2: Idle taxis. Alert when a taxi has started no ride for
// 30 minutes of event time: emit (last_start, idle_at = last_start + 30
// min) when the watermark passes idle_at with no later START. Every START
// pushes the deadline on; a START that comes out of order, earlier than
// the latest one seen, never moves it back. The end of input is not idle
// time: a deadline that only the end of input passes gives no alert.
// END events count for nothing. Called PARTITION BY taxi_id, with
// on_time => DESCRIPTOR(ts).
//
// Check it: ptfsh test examples/labs/4-long-ride-alerts/idle_taxis.txtar
const IDLE = 30 * 60000;
export default {
  output: "ROW<last_start TIMESTAMP(3), idle_at TIMESTAMP(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { taxi: { default: { last: null } } },
  eval(ctx, { taxi }, { input }) {
    if (input.event !== "START") return;
    taxi.last = ctx.timeContext().time();
    ctx.timeContext().registerOnTime("idle", taxi.last + IDLE);
  },
  onTimer(ctx, { taxi }) {
    ctx.collect({ last_start: new Date(taxi.last), idle_at: new Date(taxi.last + IDLE) });
  },
};
