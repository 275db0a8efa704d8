-- OrderedProcessor: ORDER BY on a table argument. Rows reach eval sorted
-- by event time (ties by score, descending); late rows are dropped.
--   go run ./cmd/ptfsh -f examples/ordered_processor.sql

CREATE FUNCTION OrderedProcessor AS 'ordered_processor.js';

-- Out of order by up to five seconds (the watermark's delay), and one row
-- later than that: Bob's score 2 at 12:00:03 arrives when the watermark is
-- already 12:00:05.
CREATE TABLE Events (name STRING, score INT, ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
AS VALUES
  ('Bob',   1, TIMESTAMP '2025-03-27 12:00:00'),
  ('Bob',   3, TIMESTAMP '2025-03-27 12:00:04'),
  ('Alice', 7, TIMESTAMP '2025-03-27 12:00:02'),
  ('Bob',   5, TIMESTAMP '2025-03-27 12:00:02'),
  ('Bob',   9, TIMESTAMP '2025-03-27 12:00:04'),
  ('Bob',   4, TIMESTAMP '2025-03-27 12:00:10'),   -- watermark 12:00:05
  ('Bob',   2, TIMESTAMP '2025-03-27 12:00:03'),   -- late
  ('Alice', 8, TIMESTAMP '2025-03-27 12:00:20');   -- watermark 12:00:15

SET 'ptfsh.format' = 'rows';

-- A per-partition sort buffer holds rows until the watermark passes them:
-- 12:00:05 releases 1@00:00, 5@00:02, 9@00:04 then 3@00:04 (score DESC) of
-- Bob and 7@00:02 of Alice; the late row is dropped and counted in a note.
SELECT * FROM OrderedProcessor(input => TABLE Events PARTITION BY name ORDER BY (ts ASC, score DESC), on_time => DESCRIPTOR(ts));

-- Without ORDER BY rows arrive as they come, the late one included (Flink
-- 2.3 hands late rows to eval). A new uid starts with empty lists.
SELECT * FROM OrderedProcessor(input => TABLE Events PARTITION BY name, on_time => DESCRIPTOR(ts), uid => 'arrival-order');

-- Only an ascending time attribute may come first in ORDER BY.
SET 'ptfsh.on-error' = 'continue';
SELECT * FROM OrderedProcessor(input => TABLE Events PARTITION BY name ORDER BY (score DESC), uid => 'by-score');
SELECT * FROM OrderedProcessor(input => TABLE Events PARTITION BY name ORDER BY (ts DESC), uid => 'newest-first');
