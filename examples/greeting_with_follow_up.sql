-- GreetingWithFollowUp: event-time timers, from Flink's PTF documentation.
--   go run ./cmd/ptfsh -f examples/greeting_with_follow_up.sql
--
-- Flink's documentation ran it on random data; here the visits are fixed.
-- Each visit registers an unnamed timer one minute later. A timer fires when
-- the watermark (the largest ts so far minus one second) passes it, or at
-- the end of the input, which fires every timer left.

CREATE FUNCTION GreetingWithFollowUp AS 'greeting_with_follow_up.js';

CREATE TABLE Names (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES
  ('Bob',   TIMESTAMP '2025-03-27 12:00:00'),
  ('Alice', TIMESTAMP '2025-03-27 12:00:20'),
  ('Bob',   TIMESTAMP '2025-03-27 12:00:40'),
  ('Carol', TIMESTAMP '2025-03-27 12:01:30');

-- Greetings carry the row's time as rowtime, follow-ups the timer's time.
-- Carol's visit moves the watermark to 12:01:29: Bob's first follow-up
-- (12:01:00) and Alice's (12:01:20) fire; the rest fire at the end.
SELECT * FROM GreetingWithFollowUp(input => TABLE Names PARTITION BY name, on_time => DESCRIPTOR(ts));

-- Tableau cuts long values at 30 characters, as Flink's print() does; the
-- rows format shows them whole. A new uid gives the call fresh state (the
-- first call's counters are kept under the default uid, the function name).
SET 'ptfsh.format' = 'rows';
SELECT * FROM GreetingWithFollowUp(input => TABLE Names PARTITION BY name, on_time => DESCRIPTOR(ts), uid => 'follow-up-2');
