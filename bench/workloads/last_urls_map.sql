-- Workload L-map: a MapView per user over clicks.csv.
--   ptfsh --format csv -f last_urls_map.sql > /dev/null
CREATE FUNCTION LastUrls AS 'last_urls_map.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT * FROM LastUrls(input => TABLE clicks PARTITION BY user_id);
