-- Workload B: the keyed count over clicks.csv.
--   ptfsh --format csv -f keyed_count.sql > /dev/null
CREATE FUNCTION KeyedCount AS 'keyed_count.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT * FROM KeyedCount(input => TABLE clicks PARTITION BY user_id);
