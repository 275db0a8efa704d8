-- PingLater: a named timer that every event resets, from Flink's PTF
-- documentation ("Timers"), on a datagen table as there.
--   go run ./cmd/ptfsh -f examples/ping_later.sql

CREATE FUNCTION PingLater AS 'ping_later.js';

-- Flink's documentation declares Events WITH ('connector' = 'datagen') and
-- gets random ids and the current time. ptfsh's datagen is deterministic
-- (seed 0 unless 'seed' or SET 'ptfsh.seed' says otherwise); one hex digit
-- per id makes keys repeat, and ts is a sequence: one event every 10 s.
CREATE TABLE Events (ts TIMESTAMP_LTZ(3), id STRING, val INT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
WITH ('connector' = 'datagen', 'number-of-rows' = '12',
      'fields.id.length' = '1',
      'fields.ts.kind' = 'sequence', 'fields.ts.start' = '2025-03-26 16:55:00', 'fields.ts.step' = '10 s');

SELECT * FROM Events;

-- One ping per id, one minute after its last event: f's events at 16:55:00,
-- 16:55:10 and 16:55:50 leave one timer, at 16:56:50. Pings that the
-- watermark (last ts - 2 s) passes come first; the rest fire at the end.
SELECT * FROM PingLater(input => TABLE Events PARTITION BY id, on_time => DESCRIPTOR(ts));

-- Time by hand: WATERMARK steps inside VALUES move event time between rows
-- (Beam's TestStream, in SQL). With a delay of 0 each row also moves it.
CREATE TABLE Clicks (id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)
AS VALUES
  ('a', TIMESTAMP '2025-03-27 12:00:00'),
  ('b', TIMESTAMP '2025-03-27 12:00:10'),
  ('a', TIMESTAMP '2025-03-27 12:00:30'),   -- resets a's ping to 12:01:30
  WATERMARK TIMESTAMP '2025-03-27 12:01:15', -- b's ping (12:01:10) fires
  ('b', TIMESTAMP '2025-03-27 12:01:20'),
  WATERMARK TIMESTAMP '2025-03-27 12:05:00'; -- a's and b's pings fire

SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts), uid => 'clicks');
