-- Lesson 4: event time against processing time.
--   go run ./cmd/ptfsh -f examples/lessons/4-processing-time/lesson.sql
--
-- Event time is when a thing happened, written in its row. Processing
-- time is the clock of the machine when the row reaches it. A window on
-- event time counts what happened in its minute, and waits for the
-- watermark to say the minute is over; a window on processing time counts
-- what arrived in its minute, and closes when the clock says so. Rows that
-- come late or out of order land in different windows, and only event
-- time gives the same answer when the data are run again.
--
-- Here the rows come into a stream by hand, and the stream has a clock of
-- its own that moves only by hand (ADVANCE PROCESSING TIME), so that when
-- each row arrives is part of the lesson.

SET 'ptfsh.format' = 'rows';

-- 1. Taps at a turnstile; one reader uploads its taps late.
CREATE STREAM taps (card STRING, ts TIMESTAMP(3), pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '30' SECOND);
ADVANCE PROCESSING TIME taps TO TIMESTAMP '2025-03-27 12:00:00';

-- A count per minute of processing time: what arrived in each minute.
SELECT window_start, COUNT(*) AS taps, LISTAGG(card) AS cards
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;

-- At 12:00:00 two taps come, on time.
INSERT INTO taps VALUES ('ann', TIMESTAMP '2025-03-27 12:00:10'), ('bob', TIMESTAMP '2025-03-27 12:00:20');
-- At 12:00:30 a third.
ADVANCE PROCESSING TIME taps BY INTERVAL '30' SECOND;
INSERT INTO taps VALUES ('cat', TIMESTAMP '2025-03-27 12:00:25');
-- At 12:01:00 the minute 12:00 closes with the three taps that arrived in
-- it, though no row came: the clock moved.
ADVANCE PROCESSING TIME taps BY INTERVAL '30' SECOND;
-- A tap of 12:01:40 comes, then the late reader uploads a tap of 12:00:50.
INSERT INTO taps VALUES ('eve', TIMESTAMP '2025-03-27 12:01:40'), ('dan', TIMESTAMP '2025-03-27 12:00:50');
-- At 12:02:00 the minute 12:01 closes with eve and dan: dan arrived in it.
ADVANCE PROCESSING TIME taps BY INTERVAL '1' MINUTE;
-- The end of input: a processing-time window still open at the end is
-- not emitted, as in Flink.
ADVANCE WATERMARK taps TO END;

-- The same count per minute of event time: what happened in each minute.
-- eve's tap moved the watermark to 12:01:10, which closed the minute 12:00
-- with ann, bob and cat; dan's tap of 12:00:50 came after that, late, and
-- the window drops it. The answer depends on the rows' times and their
-- order, not on the clock: run it again tomorrow and it is the same.
SELECT window_start, COUNT(*) AS taps, LISTAGG(card) AS cards
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;

-- 2. The pictures: the two windows of this lesson, side by side, each
-- drawn as its operator works. The window on processing time follows the
-- stream's clock (its lane "proc time"): each tap stands at the moment it
-- arrived, and a window fires (T) when the clock passes its end, with the
-- taps that arrived in it. The window on event time follows the
-- watermark: each tap stands at its own time, a window fires when the
-- watermark passes its end, and dan's tap, which came after the watermark
-- passed its minute, is dropped (X).
EXPLAIN TIMELINE
SELECT 'processing' AS clock, window_start, COUNT(*) AS taps
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end
UNION ALL
SELECT 'event' AS clock, window_start, COUNT(*) AS taps
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;

-- The same, as the books draw time: processing time across (when each
-- tap arrived), event time up. On processing time the taps stand on the
-- clock itself, so its windows cannot have a late row; on event time the
-- watermark is a curve that rises after the taps, and dan is below it.
SET 'ptfsh.timeline.view' = 'arrival';
EXPLAIN TIMELINE
SELECT 'processing' AS clock, window_start, COUNT(*) AS taps
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end
UNION ALL
SELECT 'event' AS clock, window_start, COUNT(*) AS taps
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
RESET 'ptfsh.timeline.view';

-- 3. State that forgets on processing time: a TTL. The exercise
-- (visits.js, checked by ptfsh test examples/lessons/4-processing-time)
-- counts each card's visits and starts again for a card that was not seen
-- for a minute of processing time, whatever the taps' own times say.
