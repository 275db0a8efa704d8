-- Workload S-group: a GROUP BY whose groups are about as many as the rows
-- (user and time), over clicks.csv: its state is the SQL operators' store
-- behind the cache.
--   ptfsh --format csv -f sql_group_distinct.sql > /dev/null
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT user_id, ts, COUNT(*), SUM(view_time) FROM clicks GROUP BY user_id, ts;
