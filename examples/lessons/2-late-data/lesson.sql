-- Lesson 2: late data and ORDER BY.
--   go run ./cmd/ptfsh -f examples/lessons/2-late-data/lesson.sql
--
-- Rows come out of order. A function that compares a row with the one
-- before it (a streak, a change, a threshold) then compares in arrival
-- order, not in time. TABLE t PARTITION BY k ORDER BY ts sorts each key's
-- rows by event time before eval: it holds a row until the watermark
-- passes it, and drops a row that comes at or before the watermark (late:
-- too late to sort), with a note.

SET 'ptfsh.format' = 'rows';
SET 'ptfsh.processing-time' = '2025-01-01 00:00:00';

-- Changes reports each change of a gate's status, from ptfsh/patterns.
CREATE FUNCTION Changes LANGUAGE JAVASCRIPT AS $$
import { changeDetection } from "ptfsh/patterns";
export default changeDetection({ value: "status" });
$$;
-- Naive does the same the obvious way, in arrival order.
CREATE FUNCTION Naive LANGUAGE JAVASCRIPT AS $$
export default {
  output: "ROW<previous STRING>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "PASS_COLUMNS_THROUGH", "REQUIRE_ON_TIME"] }],
  state: { s: { default: { value: null } } },
  eval(ctx, { s }, { input }) {
    if (s.value !== null && s.value !== input.status) ctx.collect({ previous: s.value });
    s.value = input.status;
  },
};
$$;

CREATE TABLE gates (gate STRING, status STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '30' SECOND)
AS VALUES ('A1', 'open',   TIMESTAMP '2025-03-27 12:00:00'),
          ('A1', 'closed', TIMESTAMP '2025-03-27 12:02:00'),
          ('A1', 'open',   TIMESTAMP '2025-03-27 12:01:50'),   -- out of order, not late (watermark 12:01:30)
          ('A1', 'open',   TIMESTAMP '2025-03-27 12:03:00'),
          ('A1', 'closed', TIMESTAMP '2025-03-27 12:01:00');   -- late: the watermark is 12:02:30

-- 1. In arrival order: the out-of-order 'open' makes two changes that never happened.
SELECT * FROM Naive(input => TABLE gates PARTITION BY gate, on_time => DESCRIPTOR(ts));
-- 2. Sorted: open 12:00, open 12:01:50, closed 12:02, open 12:03; the late row is dropped.
SELECT * FROM Changes(input => TABLE gates PARTITION BY gate ORDER BY ts, on_time => DESCRIPTOR(ts));
-- The picture: x is a late row eval still sees, X one that ORDER BY drops.
EXPLAIN TIMELINE SELECT * FROM Changes(input => TABLE gates PARTITION BY gate ORDER BY ts, on_time => DESCRIPTOR(ts));

-- 3. Real data: three delayed departures in a row, per airport, on the
-- sorted flights of January 2001 (the first five streaks at ORD).
CREATE TABLE flights (`date` TIMESTAMP(3), delay INT, distance INT, origin STRING, destination STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../../data/flights-20k.json', 'format' = 'json',
        'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm');
CREATE FUNCTION Streak AS 'solutions/streak.js';
SELECT * FROM Streak(input => TABLE flights PARTITION BY origin ORDER BY `date`, on_time => DESCRIPTOR(`date`))
WHERE origin = 'ORD' LIMIT 5;

-- Exercise: exercise.txtar (ptfsh test examples/lessons/2-late-data).
