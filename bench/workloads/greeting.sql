-- Workload C: the greeting with memory over clicks.csv.
--   ptfsh --format csv -f greeting.sql > /dev/null
CREATE FUNCTION Greeting AS 'greeting.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
SELECT * FROM Greeting(input => TABLE clicks PARTITION BY user_id);
