-- Workload A: the row filter over clicks.csv.
--   ptfsh --format csv -f row_filter.sql > /dev/null
-- bench/run runs it in a folder holding this script, the function file and
-- the data (go run ./bench/gen -o clicks.csv).
CREATE FUNCTION RowFilter AS 'row_filter.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT * FROM RowFilter(input => TABLE clicks, min_view_time => 500);
