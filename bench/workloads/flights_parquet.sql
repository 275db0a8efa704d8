-- F over a Parquet file of flights (go run ./bench/run -flights-parquet FILE):
-- the alert of examples/no_departure_alert.js, the file's undeclared
-- columns never read.
--   ptfsh --format csv -f flights_parquet.sql > /dev/null
CREATE FUNCTION NoDepartureAlert AS 'no_departure_alert.js';
CREATE TABLE flights (
  `date` TIMESTAMP(3),
  delay INT,
  origin STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'flights.parquet', 'format' = 'parquet');
SELECT * FROM NoDepartureAlert(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`));
