-- See time move: a lesson on event time in three views of one function.
--   go run ./cmd/ptfsh -f examples/see_time_move.sql
-- FollowUp greets a visitor one minute after their last visit (a named
-- timer that every visit resets).

CREATE FUNCTION FollowUp LANGUAGE JAVASCRIPT AS $$
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { visit: { default: { visits: 0 } } },
  eval(ctx, { visit }, { input }) {
    visit.visits++;
    ctx.timeContext().registerOnTime("followUp", ctx.timeContext().time() + 60_000);
  },
  onTimer(ctx, { visit }) { ctx.collect(visit.visits === 1 ? "thanks for your visit" : `thanks for your ${visit.visits} visits`); },
};
$$;
SET 'ptfsh.format' = 'rows';
SET 'ptfsh.processing-time' = '2025-03-27 13:00:00';

-- 1. The whole run at once, drawn: one lane per visitor over event time.
-- Bob's visit at 12:00:05 arrives after the watermark passed it (x).
CREATE TABLE visits (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES ('Bob',   TIMESTAMP '2025-03-27 12:00:00'),
          ('Alice', TIMESTAMP '2025-03-27 12:00:10'),
          ('Bob',   TIMESTAMP '2025-03-27 12:00:05'),
          ('Alice', TIMESTAMP '2025-03-27 12:00:40'),
          ('Carol', TIMESTAMP '2025-03-27 12:01:30'),
          ('Bob',   TIMESTAMP '2025-03-27 12:02:00');
EXPLAIN TIMELINE SELECT * FROM FollowUp(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));

-- 2. The same calls, explained: only the late row's (SET 'ptfsh.trace' = 'on' for all).
SET 'ptfsh.trace.late' = 'on';
SELECT * FROM FollowUp(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));
RESET 'ptfsh.trace.late';

-- 3. Step by step: a stream fed by hand; the query keeps running and prints
-- what each step emits.
CREATE STREAM door (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
SELECT * FROM FollowUp(input => TABLE door PARTITION BY name, on_time => DESCRIPTOR(ts), uid => 'door');
INSERT INTO door VALUES ('Bob', TIMESTAMP '2025-03-27 12:00:00'), ('Alice', TIMESTAMP '2025-03-27 12:00:10');
SHOW TIMERS FOR 'door';
ADVANCE WATERMARK door TO TIMESTAMP '2025-03-27 12:01:05';   -- Bob's follow-up is due
SHOW STATE FOR 'door';
INSERT INTO door VALUES ('Alice', TIMESTAMP '2025-03-27 12:01:07');  -- resets Alice's timer
ADVANCE WATERMARK door TO TIMESTAMP '2025-03-27 12:01:30';   -- nothing due
ADVANCE WATERMARK door TO END;                                 -- the end fires what is left
