-- GROUP BY in SQL over the clicks: a count and a sum per user, as a
-- changelog (each new row of a user updates its row). Its groups are in
-- the state store behind a bounded cache, so its memory does not grow
-- with the number of users.
--   ptfsh --format csv -f group_by.sql
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT user_id, COUNT(*) AS clicks, SUM(view_time) AS total_view_time FROM clicks GROUP BY user_id;
