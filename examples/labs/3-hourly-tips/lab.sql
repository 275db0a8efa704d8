-- Lab 3: hourly tips, after flink-training's "Windowed Analytics".
--   ptfsh -f examples/labs/3-hourly-tips/lab.sql
--
-- For each hour of event time, which driver earned the most tips? First a
-- tumbling window per driver, made of state and a timer
-- (hourly_tips.js), then the best of each hour (top_driver.js). Fares come
-- out of order: an hour's window may still get a fare after the next hour
-- began, until the watermark passes its end; a fare after that is late.
-- Run this script again after editing your functions: it draws them.

SET 'ptfsh.format' = 'rows';
CREATE TABLE fares (ride_id BIGINT, taxi_id BIGINT, driver_id BIGINT, ts TIMESTAMP(3), payment STRING,
  tip DOUBLE, tolls DOUBLE, total DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../data/fares.csv', 'format' = 'csv');

-- 1. What SQL says, with a TUMBLE window: three drivers' tips per hour.
SELECT window_end, driver_id, ROUND(SUM(tip), 2) AS tips
FROM TABLE(TUMBLE(TABLE fares, DESCRIPTOR(ts), INTERVAL '1' HOUR))
WHERE driver_id IN (2001, 2002, 2003)
GROUP BY window_start, window_end, driver_id;

-- 2. Your window of hourly_tips.js for three drivers, as the books draw
-- time: the fares as points (event time up, arrival across), the
-- watermark rising with them, and your timers firing on its rises when an
-- hour ends.
CREATE FUNCTION HourlyTips AS 'hourly_tips.js';
CREATE VIEW three AS SELECT * FROM fares WHERE driver_id IN (2001, 2002, 2003);
SET 'ptfsh.timeline.view' = 'arrival';
EXPLAIN TIMELINE SELECT * FROM HourlyTips(input => TABLE three PARTITION BY driver_id, on_time => DESCRIPTOR(ts));
RESET 'ptfsh.timeline.view';

-- Exercises: hourly_tips.txtar and top_driver.txtar (ptfsh test examples/labs/3-hourly-tips).
