-- The window aggregation alone (go run ./bench/run -flights-parquet FILE):
-- hourly per-origin delay statistics over a Parquet file of flights,
-- printed. flights_window.duckdb.sql is the same in DuckDB.
--   ptfsh --format csv -f flights_window.sql > /dev/null
CREATE TABLE flights (
  `date` TIMESTAMP(3),
  delay INT,
  origin STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'flights.parquet', 'format' = 'parquet');
SELECT origin, window_start, COUNT(*) AS flights,
       COUNT(*) FILTER (WHERE delay > 15) AS delayed,
       SUM(CAST(delay AS BIGINT)) AS total_delay, MAX(delay) AS max_delay
FROM TABLE(TUMBLE(TABLE flights, DESCRIPTOR(`date`), INTERVAL '1' HOUR))
GROUP BY origin, window_start, window_end;
