-- The event-time workload: examples/no_departure_alert.js (an alert when
-- an origin airport had no departure for two hours, with timers) over
-- generated flights (go run ./bench/gen -kind flights -o flights.csv),
-- with the table of examples/flights.sql read from CSV. bench/run puts the
-- example's function file beside this script.
--   ptfsh --format csv -f flights.sql > /dev/null
CREATE FUNCTION NoDepartureAlert AS 'no_departure_alert.js';
CREATE TABLE flights (
  `date` TIMESTAMP(3),
  delay INT,
  distance INT,
  origin STRING,
  destination STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'flights.csv', 'format' = 'csv');
SELECT * FROM NoDepartureAlert(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`));
