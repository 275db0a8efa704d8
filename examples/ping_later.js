// PingLater (Flink's PTF documentation, "Timers"): one minute of event time
// after the last event of a key, send "ping". Re-registering the named
// timer "ping" replaces it, so every new event resets the minute.
const MINUTE = 60 * 1000;

export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, state, { input }) {
    const time = ctx.timeContext();
    time.registerOnTime("ping", time.time() + MINUTE);
  },
  onTimer(ctx) {
    ctx.collect("ping");
  },
};
