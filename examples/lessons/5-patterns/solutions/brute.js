// Brute: three failed logins (or more) within a minute, then a success,
// per user: MATCH_RECOGNIZE's PATTERN (F{3,} S) WITHIN INTERVAL '1'
// MINUTE with AFTER MATCH SKIP PAST LAST ROW, as a PTF with state and a
// timer. The call orders the rows by time (ORDER BY ts), as
// MATCH_RECOGNIZE does.
//
// Check it: ptfsh test examples/lessons/5-patterns
const MINUTE = 60000;
export default {
  output: "ROW<first_fail TIMESTAMP_LTZ(3), fails BIGINT, success TIMESTAMP_LTZ(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { fails: { default: [] } },
  eval(ctx, { fails }, { input }) {
    const t = ctx.timeContext().time();
    if (input.outcome === "fail") {
      fails.push(t);
      // WITHIN: this fail can start a match for one minute only.
      ctx.timeContext().registerOnTime(t + MINUTE);
      return;
    }
    // A success: the fails of the last minute before it, if three or more.
    const recent = fails.filter((f) => t - f < MINUTE);
    if (recent.length >= 3) {
      ctx.collect({ first_fail: new Date(recent[0]), fails: recent.length, success: new Date(t) });
    }
    // Either way the run of fails is over (the pattern's rows follow each
    // other): forget them and their timers.
    for (const f of fails) ctx.timeContext().clearTimer(f + MINUTE);
    ctx.clearState("fails");
  },
  onTimer(ctx, { fails }) {
    // A minute after a fail: it can start no match any more.
    const now = ctx.timeContext().time();
    const kept = fails.filter((f) => f + MINUTE > now);
    fails.length = 0;
    fails.push(...kept);
    if (kept.length === 0) ctx.clearState("fails");
  },
};
