-- SQL around a PTF: expressions and clauses of Flink SQL on
-- what a function emits, and results that keep their meaning.
--   go run ./cmd/ptfsh -f examples/sql_around_functions.sql

CREATE FUNCTION count_clicks AS 'count_clicks.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT)
WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv', 'csv.header' = 'true');

-- Expressions over the function's output: CASE, string functions, LIKE.
SELECT user_id,
       REGEXP_EXTRACT(url, 'https://[^/]+(/.*)', 1) AS page,
       click_count,
       CASE WHEN click_count >= 3 THEN 'regular' WHEN click_count = 2 THEN 'returning' ELSE 'new' END AS visitor
FROM count_clicks(input => TABLE clicks PARTITION BY user_id)
WHERE url LIKE '%example.com/%';

-- An aggregation with HAVING over the function's output: an updating
-- result, printed with its changes.
SELECT user_id, MAX(click_count) AS clicks
FROM count_clicks(input => TABLE clicks PARTITION BY user_id)
GROUP BY user_id HAVING MAX(click_count) > 1;

-- The same in the table result mode, as CSV: the final rows only.
SET 'sql-client.execution.result-mode' = 'table';
SET 'ptfsh.format' = 'csv';
SELECT user_id, MAX(click_count) AS clicks
FROM count_clicks(input => TABLE clicks PARTITION BY user_id)
GROUP BY user_id HAVING MAX(click_count) > 1;

-- The changelog as CSV: the op column keeps retractions apart from inserts.
SET 'sql-client.execution.result-mode' = 'changelog';
SELECT user_id, COUNT(*) AS n FROM clicks GROUP BY user_id;

-- The three longest views: a Top-N (ORDER BY ... LIMIT), whose changes
-- are -D of a row pushed out and +I of the one that enters.
SET 'ptfsh.format' = 'tableau';
SELECT user_id, view_time, ROUND(view_time / 60.0, 1) AS minutes
FROM clicks ORDER BY view_time DESC LIMIT 3;
