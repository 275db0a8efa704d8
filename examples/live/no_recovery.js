// NoRecovery alerts when a service logs an ERROR and then no OK within a
// minute of event time: each ERROR (re)sets the service's timer, each OK
// clears it, and a timer that fires is an alert.
const MINUTE = 60 * 1000;

export default {
  output: "ROW<alert STRING, error_at TIMESTAMP_LTZ(3)>",
  args: [{ name: "logs", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { last: { default: { error: null, message: null } } },
  eval(ctx, { last }, { logs }) {
    const time = ctx.timeContext();
    if (logs.level === "ERROR") {
      if (last.error === null) {
        last.error = time.time();
        last.message = logs.message;
        time.registerOnTime("recover", time.time() + MINUTE);
      }
    } else if (logs.level === "OK") {
      last.error = null;
      time.clearTimer("recover");
    }
  },
  onTimer(ctx, { last }) {
    ctx.collect({ alert: `no recovery within a minute: ${last.message}`, error_at: new Date(last.error) });
    last.error = null;
  },
};
