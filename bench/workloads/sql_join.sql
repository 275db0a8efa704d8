-- Workload S-join: a regular join of clicks.csv with itself on user and
-- time: both sides keep every row, in the SQL operators' store behind the
-- cache.
--   ptfsh --format csv -f sql_join.sql > /dev/null
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT a.user_id, a.ts, a.view_time, b.url FROM clicks a JOIN clicks b ON a.user_id = b.user_id AND a.ts = b.ts;
