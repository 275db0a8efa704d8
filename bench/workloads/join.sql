-- A regular join in SQL of two inputs of the clicks' rows (the same file
-- read twice), on the user and the time: each row meets itself. Both
-- sides' rows stay in the join's state (a regular join keeps them for
-- ever), in the state store behind a bounded cache.
--   ptfsh --format csv -f join.sql
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE views (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT c.user_id, c.url, v.view_time FROM clicks AS c JOIN views AS v ON c.user_id = v.user_id AND c.ts = v.ts;
