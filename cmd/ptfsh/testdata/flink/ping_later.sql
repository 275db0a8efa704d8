-- PingLater on Flink: the clicks of examples/ping_later.sql without its
-- WATERMARK steps (Flink has none), so each row moves the watermark.
CREATE FUNCTION PingLater AS '../../../../examples/ping_later.js';

CREATE TABLE Clicks (id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)
AS VALUES
  ('a', TIMESTAMP '2025-03-27 12:00:00'),
  ('b', TIMESTAMP '2025-03-27 12:00:10'),
  ('a', TIMESTAMP '2025-03-27 12:00:30'),   -- resets a's ping to 12:01:30
  ('b', TIMESTAMP '2025-03-27 12:01:20'),   -- b's ping (12:01:10) fires first
  ('c', TIMESTAMP '2025-03-27 12:05:00');   -- a's and b's pings fire

SELECT * FROM PingLater(input => TABLE Clicks PARTITION BY id, on_time => DESCRIPTOR(ts));
