-- DelayStreak (examples/delay_streak.js) over the flights CSV of bench/gen,
-- for bench/flink/run: the same rows that FlinkBenchTest gives Flink.
--   ptfsh --format csv -f delay_streak.sql > /dev/null
CREATE FUNCTION DelayStreak AS 'delay_streak.js';
CREATE TABLE flights (
  `date` TIMESTAMP(3),
  delay INT,
  distance INT,
  origin STRING,
  destination STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'flights.csv', 'format' = 'csv');
SELECT * FROM DelayStreak(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`));
