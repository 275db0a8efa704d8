-- Windows: TUMBLE, HOP and SESSION over a click stream, a window
-- aggregation per user, and a PTF that reads the windows in order.
--   go run ./cmd/ptfsh -f examples/window_spikes.sql
-- The rows of the three SELECTs without WindowSpikes are Flink 2.3.0's for
-- the same SQL and data, in the same order.

CREATE FUNCTION WindowSpikes AS 'window_spikes.js';

-- Clicks out of order by up to ten seconds (the watermark's delay); the
-- click of Bob at 12:00:50 comes when the watermark is already 12:01:10.
CREATE TABLE Clicks (name STRING, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '10' SECOND)
AS VALUES
  ('Bob',   '/home', TIMESTAMP '2025-03-27 12:00:05'),
  ('Alice', '/home', TIMESTAMP '2025-03-27 12:00:20'),
  ('Alice', '/cart', TIMESTAMP '2025-03-27 12:00:40'),
  ('Bob',   '/pay',  TIMESTAMP '2025-03-27 12:01:10'),
  ('Alice', '/cart', TIMESTAMP '2025-03-27 12:01:15'),
  ('Bob',   '/home', TIMESTAMP '2025-03-27 12:01:20'),
  ('Bob',   '/help', TIMESTAMP '2025-03-27 12:00:50'),   -- late: its minute has closed
  ('Bob',   '/cart', TIMESTAMP '2025-03-27 12:01:30'),
  ('Alice', '/pay',  TIMESTAMP '2025-03-27 12:03:00'),
  ('Bob',   '/home', TIMESTAMP '2025-03-27 12:03:05');

SET 'ptfsh.format' = 'rows';

-- A window table function adds window_start, window_end and window_time
-- to each row (HOP: once per window the row falls in).
SELECT name, url, window_start, window_end FROM TABLE(HOP(TABLE Clicks, DESCRIPTOR(ts), INTERVAL '30' SECONDS, INTERVAL '1' MINUTE)) WHERE name = 'Alice';

-- A window aggregation: one final row per user and minute when the
-- watermark passes the minute's end; the late click is left out (a note).
-- Rows are final: nothing is retracted, so the result is insert-only.
CREATE VIEW PerMinute AS
SELECT name, window_start, window_end, window_time, COUNT(*) AS clicks
FROM TABLE(TUMBLE(TABLE Clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY name, window_start, window_end, window_time;
SELECT * FROM PerMinute;

-- window_time is a time attribute: the PTF can sort its input on it.
-- Bob goes from 1 click to 3 in the next minute.
SELECT * FROM WindowSpikes(counts => TABLE PerMinute PARTITION BY name ORDER BY window_time);

-- Sessions per user: a gap of a minute without clicks ends one. Bob's
-- late click (12:00:50) is too late for his first session, which had
-- closed, but joins the second, which was open when it came.
SELECT name, window_start, window_end, COUNT(*) AS clicks, MAX(url) AS max_url
FROM TABLE(SESSION(TABLE Clicks PARTITION BY name, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY name, window_start, window_end;
