-- Lesson 1: event time and watermarks.
--   go run ./cmd/ptfsh -f examples/lessons/1-event-time/lesson.sql
--
-- Time in a stream is the time written in the rows (event time), not the
-- time they reach us. A WATERMARK clause says how far behind the latest
-- row a straggler may still come: after each row the watermark is the
-- largest time seen minus the delay. A row at or before the watermark is
-- late. The catch: a row sees the watermark left by the rows BEFORE it,
-- never one that it moves itself.

SET 'ptfsh.format' = 'rows';
SET 'ptfsh.processing-time' = '2025-01-01 00:00:00';

-- Stamp tells each row where the watermark stood when it arrived.
CREATE FUNCTION Stamp LANGUAGE JAVASCRIPT AS $$
export default {
  output: "ROW<watermark_seen STRING, late BOOLEAN>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx) {
    const tc = ctx.timeContext();
    const wm = tc.currentWatermark();
    ctx.collect({ watermark_seen: wm === null ? "none yet" : new Date(wm).toISOString(), late: wm !== null && tc.time() <= wm });
  },
};
$$;

-- 1. Toy rows: departures of one gate, one out of order.
CREATE TABLE departures (gate STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
AS VALUES ('A1', TIMESTAMP '2025-03-27 12:00:00'),
          ('A1', TIMESTAMP '2025-03-27 12:05:00'),
          ('A1', TIMESTAMP '2025-03-27 12:03:00'),   -- within the minute of slack? no: 12:03 <= 12:04
          ('A1', TIMESTAMP '2025-03-27 12:04:30'),   -- 12:04:30 > 12:04: on time, though out of order
          ('A1', TIMESTAMP '2025-03-27 12:10:00');
-- The first row sees no watermark; the 12:03 row sees 12:04 (left by the
-- 12:05 row) and is late; 12:04:30 is out of order but not late.
SELECT * FROM Stamp(input => TABLE departures PARTITION BY gate, on_time => DESCRIPTOR(ts));

-- The picture: the watermark line (^ where it moved), rows (o), the late one (x).
EXPLAIN TIMELINE SELECT * FROM Stamp(input => TABLE departures PARTITION BY gate, on_time => DESCRIPTOR(ts));

-- 2. Real data: departures of January 2001 (examples/data/flights-20k.json,
-- sorted by time, so nothing is late with a minute of slack).
CREATE TABLE flights (`date` TIMESTAMP(3), delay INT, distance INT, origin STRING, destination STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../../data/flights-20k.json', 'format' = 'json',
        'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm');
SELECT * FROM Stamp(input => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`))
WHERE origin = 'ORD' LIMIT 4;
-- Rows of one minute share their time: the second of them sees the
-- watermark one minute behind and is on time. Try WATERMARK ... AS `date`
-- (no slack): the second departure of a minute is then late.

-- Exercise: exercise.txtar (ptfsh test examples/lessons/1-event-time).
