-- Lab 4: long ride alerts, after flink-training's "ProcessFunction and
-- Timers".
--   ptfsh -f examples/labs/4-long-ride-alerts/lab.sql
--
-- A ride that lasts more than two hours is worth an alert, as soon as it
-- is known: not at its END, which may come hours later or never, but when
-- the watermark passes START + 2 hours (long_rides.js). The feed is out
-- of order: an END may come before its START. And a taxi that starts no
-- ride for half an hour is idle (idle_taxis.js): a deadline that each
-- START pushes on. Run this script again after editing your functions:
-- it draws them.

SET 'ptfsh.format' = 'rows';
CREATE TABLE rides (ride_id BIGINT, event STRING, ts TIMESTAMP(3), start_lon DOUBLE, start_lat DOUBLE,
  end_lon DOUBLE, end_lat DOUBLE, passengers INT, taxi_id BIGINT, driver_id BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../data/rides.csv', 'format' = 'csv');

-- 1. How long the rides last, and how many END events never came.
SET 'sql-client.execution.result-mode' = 'table';
SELECT COUNT(*) AS rides, SUM(CASE WHEN event = 'START' THEN 1 ELSE 0 END) AS starts, SUM(CASE WHEN event = 'END' THEN 1 ELSE 0 END) AS ends FROM rides;
RESET 'sql-client.execution.result-mode';

-- 2. Your alerts for the first rides: a lane per ride over event time,
-- your timers set (t), cleared (c) and fired (T), the alerts out (>).
CREATE FUNCTION LongRides AS 'long_rides.js';
CREATE VIEW some_rides AS SELECT * FROM (SELECT * FROM rides LIMIT 1000) WHERE ride_id IN (5, 6, 7, 8, 13, 17);
EXPLAIN TIMELINE SELECT * FROM LongRides(input => TABLE some_rides PARTITION BY ride_id, on_time => DESCRIPTOR(ts));

-- 3. Your idle taxis, for two taxis, as the books draw time: every START
-- a point, the watermark a curve, your deadlines firing on its rises.
CREATE FUNCTION IdleTaxis AS 'idle_taxis.js';
CREATE VIEW two_taxis AS SELECT * FROM rides WHERE taxi_id IN (1001, 1002) AND event = 'START';
SET 'ptfsh.timeline.view' = 'arrival';
EXPLAIN TIMELINE SELECT * FROM IdleTaxis(input => TABLE two_taxis PARTITION BY taxi_id, on_time => DESCRIPTOR(ts));
RESET 'ptfsh.timeline.view';

-- Exercises: long_rides.txtar and idle_taxis.txtar (ptfsh test examples/labs/4-long-ride-alerts).
