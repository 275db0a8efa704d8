-- Lab 1: ride cleansing, after flink-training's "Filtering a Stream".
--   ptfsh -f examples/labs/1-ride-cleansing/lab.sql
--
-- A city's taxi feed: every ride sends a START event when it begins and an
-- END event when it ends (examples/labs/data/rides.csv, four hours of
-- rides made by internal/taxi). The feed delivers events a little after
-- they happen, so they come out of order in event time, and a few come
-- very late. Some rides start or end outside New York City; the lab's
-- first job is to drop them (cleanse.js), its second to count what each
-- driver does in the city (drivers.js). Run this script again after
-- editing them: it draws what your functions do.

SET 'ptfsh.format' = 'rows';
CREATE TABLE rides (ride_id BIGINT, event STRING, ts TIMESTAMP(3), start_lon DOUBLE, start_lat DOUBLE,
  end_lon DOUBLE, end_lat DOUBLE, passengers INT, taxi_id BIGINT, driver_id BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../data/rides.csv', 'format' = 'csv');

-- 1. The first events as they came: ride 3 before ride 1, a START every
-- 20 seconds, the first END some minutes later.
SELECT ride_id, event, ts, start_lon, start_lat, end_lon, end_lat FROM rides LIMIT 6;

-- 2. Your cleansing of the first 100 events, drawn as the books draw
-- time: event time up, arrival across. Each event is a point; the
-- watermark (a minute behind the largest time seen) rises as they come,
-- and an event below it came late.
CREATE FUNCTION Cleanse AS 'cleanse.js';
CREATE VIEW first_events AS SELECT * FROM rides LIMIT 100;
SET 'ptfsh.timeline.view' = 'arrival';
EXPLAIN TIMELINE SELECT * FROM Cleanse(TABLE first_events);
RESET 'ptfsh.timeline.view';

-- 3. Your driver counts over the first 300 events of five drivers, a
-- lane per driver over event time: rows in (o), rows out (>).
CREATE FUNCTION Drivers AS 'drivers.js';
CREATE VIEW first_events_of_five AS SELECT * FROM (SELECT * FROM rides LIMIT 300) WHERE driver_id <= 2005;
EXPLAIN TIMELINE SELECT * FROM Drivers(input => TABLE first_events_of_five PARTITION BY driver_id);

-- Exercises: cleanse.txtar and drivers.txtar (ptfsh test examples/labs/1-ride-cleansing).
