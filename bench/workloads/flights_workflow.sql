-- The flights workflow (go run ./bench/run -flights-parquet FILE): a data
-- engineer's script over a Parquet file of flights. Hourly per-origin delay
-- statistics (TUMBLE + GROUP BY) joined to a small airports table into
-- Parquet, and the DelayStreak alert (examples/delay_streak.js, ORDER BY
-- time) joined to the same table into CSV, as one statement set.
-- flights_workflow.duckdb.sql is the same in DuckDB.
--   ptfsh -f flights_workflow.sql
CREATE FUNCTION DelayStreak AS 'delay_streak.js';
CREATE TABLE flights (
  `date` TIMESTAMP(3),
  delay INT,
  origin STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'flights.parquet', 'format' = 'parquet');
CREATE TABLE airports (code STRING, name STRING, city STRING)
  WITH ('connector' = 'filesystem', 'path' = 'airports.csv', 'format' = 'csv');
CREATE TABLE hourly (
  origin STRING, airport STRING, window_start TIMESTAMP(3), flights BIGINT,
  delayed BIGINT, total_delay BIGINT, max_delay INT
) WITH ('connector' = 'filesystem', 'path' = 'hourly.parquet', 'format' = 'parquet');
CREATE TABLE streaks (origin STRING, airport STRING, streak_start TIMESTAMP(3), delays ARRAY<INT>)
  WITH ('connector' = 'filesystem', 'path' = 'streaks.csv', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO hourly
SELECT h.origin, a.name, h.window_start, h.flights, h.delayed, h.total_delay, h.max_delay
FROM (
  SELECT origin, window_start, COUNT(*) AS flights,
         COUNT(*) FILTER (WHERE delay > 15) AS delayed,
         SUM(CAST(delay AS BIGINT)) AS total_delay, MAX(delay) AS max_delay
  FROM TABLE(TUMBLE(TABLE flights, DESCRIPTOR(`date`), INTERVAL '1' HOUR))
  GROUP BY origin, window_start, window_end
) h JOIN airports a ON h.origin = a.code;
INSERT INTO streaks
SELECT s.origin, a.name, s.streak_start, s.delays
FROM DelayStreak(flights => TABLE flights PARTITION BY origin ORDER BY `date`, on_time => DESCRIPTOR(`date`)) s
JOIN airports a ON s.origin = a.code;
END;
