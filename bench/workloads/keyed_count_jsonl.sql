-- Workload B over JSON lines (go run ./bench/gen -format jsonl -o clicks.jsonl).
--   ptfsh --format csv -f keyed_count_jsonl.sql > /dev/null
CREATE FUNCTION KeyedCount AS 'keyed_count.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.jsonl', 'format' = 'json');
SELECT * FROM KeyedCount(input => TABLE clicks PARTITION BY user_id);
