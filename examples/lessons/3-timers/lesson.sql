-- Lesson 3: timers, windows built from timers, and state cleanup.
--   go run ./cmd/ptfsh -f examples/lessons/3-timers/lesson.sql
--
-- A timer calls onTimer when the watermark passes its time. A window is
-- a timer at its end: count the rows of each hour in state, register a
-- timer at the end of the hour, emit and forget in onTimer. What is not
-- forgotten stays in state forever: SHOW STATE shows it, and ptfsh test's
-- want.state checks it.

SET 'ptfsh.format' = 'rows';
SET 'ptfsh.processing-time' = '2025-01-01 00:00:00';

CREATE TABLE visits (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
AS VALUES ('Bob',   TIMESTAMP '2025-03-27 12:00:00'),
          ('Alice', TIMESTAMP '2025-03-27 12:20:00'),
          ('Bob',   TIMESTAMP '2025-03-27 12:50:00'),
          ('Bob',   TIMESTAMP '2025-03-27 13:10:00'),
          ('Alice', TIMESTAMP '2025-03-27 12:40:00'),   -- late: the watermark is 13:09
          ('Carol', TIMESTAMP '2025-03-27 14:30:00');

-- 1. An hourly window from a timer (the solution of this lesson's exercise).
CREATE FUNCTION Hourly AS 'solutions/hourly.js';
SELECT * FROM Hourly(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));
-- Alice's late 12:40 visit set a timer (13:00) the watermark had passed:
-- it fired at once and emitted her 12:00 hour again, with 1. The picture:
EXPLAIN TIMELINE SELECT * FROM Hourly(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));

-- 2. Stopped before the end of input, the open hours wait in state with their timers.
SET 'ptfsh.end-of-input' = 'false';
SELECT * FROM Hourly(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts), uid => 'open');
SHOW STATE FOR 'open';
SHOW TIMERS FOR 'open';
RESET 'ptfsh.end-of-input';

-- 3. Sessions and silences from ptfsh/patterns: timers that a later row
-- may overtake. A row sees the watermark the rows before it left, so
-- Bob's 13:10 visit arrives before his 12:50 + 15 min timer fired; the
-- patterns compare times themselves (see stdlib/js/patterns.js). A
-- session closes, as a SESSION window does, when the watermark reaches
-- its end - 1 ms (its rowtime); Alice's 12:40 visit comes after the
-- watermark passed the end of the session it would open: it is dropped.
CREATE FUNCTION Sessions LANGUAGE JAVASCRIPT AS $$
import { sessionize } from "ptfsh/patterns";
export default sessionize({ gap: "15 min" });
$$;
CREATE FUNCTION Silence LANGUAGE JAVASCRIPT AS $$
import { absence } from "ptfsh/patterns";
export default absence({ timeout: "30 min" });
$$;
SELECT * FROM Sessions(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));
SELECT * FROM Silence(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));

-- 4. Real data: the busiest hours of Chicago O'Hare on 1 January 2001.
CREATE TABLE flights (`date` TIMESTAMP(3), delay INT, distance INT, origin STRING, destination STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../../data/flights-20k.json', 'format' = 'json',
        'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm');
SELECT * FROM Hourly(input => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`), uid => 'flights')
WHERE origin = 'ORD' LIMIT 5;

-- 5. Real data: Texas airports that reported no bird strike for half a
-- year (FAA Wildlife Strike Database, 1990-2002, examples/data). A
-- silence that a later strike ends is reported at that strike (its
-- rowtime is the strike's date); the silences that only the end of the
-- data would close are not reported: the end of input is not silence.
CREATE TABLE strikes (`Airport Name` STRING, `Aircraft Make Model` STRING, `Effect Amount of damage` STRING,
  `Flight Date` TIMESTAMP(3), `Aircraft Airline Operator` STRING, `Origin State` STRING, `Phase of flight` STRING,
  `Wildlife Size` STRING, `Wildlife Species` STRING, `Time of day` STRING, `Cost Other` INT, `Cost Repair` INT,
  `Cost Total $` INT, `Speed IAS in knots` INT,
  WATERMARK FOR `Flight Date` AS `Flight Date` - INTERVAL '1' DAY
) WITH ('connector' = 'filesystem', 'path' = '../../data/birdstrikes-texas.csv', 'format' = 'csv',
        'csv.header' = 'true', 'timestamp-format.pattern' = 'yyyy-MM-dd');
CREATE FUNCTION Quiet LANGUAGE JAVASCRIPT AS $$
import { absence } from "ptfsh/patterns";
export default absence({ timeout: "180 days" });
$$;
SELECT * FROM Quiet(input => TABLE strikes PARTITION BY `Airport Name`, on_time => DESCRIPTOR(`Flight Date`));

-- Exercise: exercise.txtar (ptfsh test examples/lessons/3-timers).
