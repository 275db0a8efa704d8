-- ClearAll (clear_all.js): ctx.clearAll() after clearTimer, with the
-- timers of another key pending.
CREATE FUNCTION ClearAll AS 'clear_all.js';
CREATE TABLE events (k STRING, action STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) AS VALUES
  ('a', 'arm', TIMESTAMP '2025-01-01 00:00:00'),
  ('b', 'arm', TIMESTAMP '2025-01-01 00:00:01'),
  ('a', 'clear', TIMESTAMP '2025-01-01 00:00:02'),
  ('b', 'count', TIMESTAMP '2025-01-01 00:00:03');
SELECT * FROM ClearAll(input => TABLE events PARTITION BY k, on_time => DESCRIPTOR(ts));
