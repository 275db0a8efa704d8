-- Workload B written with INSERT INTO a csv file table (counts.csv), the
-- sink that takes part in checkpoints (a file sink syncs its file at every
-- checkpoint, so it cannot be /dev/null).
--   ptfsh -f keyed_count_insert.sql
CREATE FUNCTION KeyedCount AS 'keyed_count.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE counts (user_id STRING, click_count BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'counts.csv', 'format' = 'csv', 'csv.header' = 'true');
INSERT INTO counts SELECT * FROM KeyedCount(input => TABLE clicks PARTITION BY user_id);
