-- Lab 2: rides and fares, after flink-training's "Stateful Enrichment".
--   ptfsh -f examples/labs/2-rides-and-fares/lab.sql
--
-- Two streams of one city's taxis: ride events (examples/labs/data/rides.csv)
-- and fares (fares.csv), each ride's fare stamped with the ride's start.
-- Both come out of order, and not together: for a ride, its START may come
-- before or after its fare, and a few fares never come. A function with two
-- table arguments, both partitioned by ride_id, sees the two halves of a
-- ride under one key, one call at a time; state holds the first half until
-- the second comes (rides_and_fares.js), and a timer gives up on a half
-- that waits too long (unmatched.js). Run this script again after editing
-- them: it draws what your functions do.

SET 'ptfsh.format' = 'rows';
CREATE TABLE rides (ride_id BIGINT, event STRING, ts TIMESTAMP(3), start_lon DOUBLE, start_lat DOUBLE,
  end_lon DOUBLE, end_lat DOUBLE, passengers INT, taxi_id BIGINT, driver_id BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../data/rides.csv', 'format' = 'csv');
CREATE TABLE fares (ride_id BIGINT, taxi_id BIGINT, driver_id BIGINT, ts TIMESTAMP(3), payment STRING,
  tip DOUBLE, tolls DOUBLE, total DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = '../data/fares.csv', 'format' = 'csv');

-- 1. The first fares as they came.
SELECT * FROM fares LIMIT 5;

-- 2. Your pairing of the first rides: a lane per ride over event time,
-- the rows of both tables in (o) and the pairs out (>). The watermark of
-- a call with two tables is the smaller of theirs.
CREATE FUNCTION RidesAndFares AS 'rides_and_fares.js';
CREATE VIEW first_starts AS SELECT ride_id, ts, taxi_id, driver_id FROM (SELECT * FROM rides LIMIT 40) WHERE event = 'START' AND ride_id <= 8;
CREATE VIEW first_fares AS SELECT * FROM (SELECT * FROM fares LIMIT 20) WHERE ride_id <= 8;
EXPLAIN TIMELINE SELECT * FROM RidesAndFares(ride => TABLE first_starts PARTITION BY ride_id, fare => TABLE first_fares PARTITION BY ride_id);

-- 3. Your timers of unmatched.js over the same rides: a timer set (t) at
-- each ride's first half, cleared (c) when the pair is out, fired (T)
-- when a half waited an hour.
CREATE FUNCTION Unmatched AS 'unmatched.js';
EXPLAIN TIMELINE SELECT * FROM Unmatched(ride => TABLE first_starts PARTITION BY ride_id, fare => TABLE first_fares PARTITION BY ride_id, on_time => DESCRIPTOR(ts));

-- Exercises: rides_and_fares.txtar and unmatched.txtar (ptfsh test examples/labs/2-rides-and-fares).
