// Exercise 5: Brute. Emit a row when a user has three failed logins (or
// more) within a minute and then a success: first_fail, the first of
// those fails, fails their number, success the success's time. The rows
// must be the ones the test's MATCH_RECOGNIZE gives:
//   PATTERN (F{3,} S) WITHIN INTERVAL '1' MINUTE, AFTER MATCH SKIP PAST LAST ROW
// The test calls it with ORDER BY ts, so rows come sorted; leave no state
// and no timers behind once they can start no match.
//
// Check it: ptfsh test examples/lessons/5-patterns
const MINUTE = 60000;
export default {
  output: "ROW<first_fail TIMESTAMP_LTZ(3), fails BIGINT, success TIMESTAMP_LTZ(3)>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { fails: { default: [] } },
  eval(ctx, { fails }, { input }) {
    // Your code: input.outcome is 'fail' or 'ok'; ctx.timeContext().time() is the row's time.
  },
  onTimer(ctx, { fails }) {
    // Your code: forget the fails that can start no match any more.
  },
};
