-- Waiting for a second event with a 60-second timeout: the TimerFunction
-- of Flink's PTF documentation ("Timers").
--   go run ./cmd/ptfsh -f examples/second_event.sql

CREATE FUNCTION SecondEvent AS 'second_event.js';

CREATE TABLE Visits (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES
  ('Bob',   TIMESTAMP '2025-03-27 12:00:00'),  -- Bob's timeout set for 12:01:00
  ('Alice', TIMESTAMP '2025-03-27 12:00:10'),  -- Alice's for 12:01:10
  ('Bob',   TIMESTAMP '2025-03-27 12:00:30'),  -- second event: clearAll() drops Bob's timeout
  ('Carol', TIMESTAMP '2025-03-27 12:01:30'),  -- watermark 12:01:29: Alice times out
  ('Carol', TIMESTAMP '2025-03-27 12:02:00'),  -- second event within 60 s
  ('Alice', TIMESTAMP '2025-03-27 12:02:10'),  -- Alice's state survived her timeout
  ('Bob',   TIMESTAMP '2025-03-27 12:02:20');  -- a first event again; times out at the end

SET 'ptfsh.format' = 'rows';
SELECT * FROM SecondEvent(input => TABLE Visits PARTITION BY name, on_time => DESCRIPTOR(ts));
