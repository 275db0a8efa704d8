-- Real data: 20,000 U.S. domestic flights of January to March 2001 (see
-- data/README.md). Per origin airport, two event-time patterns:
--   NoDepartureAlert  an alert when no flight departed for two hours
--   DelayStreak       three departures in a row delayed by more than 30 minutes
--   go run ./cmd/ptfsh -f examples/flights.sql
--
-- The output is checked twice: by flights.out, and by
-- tests/examples_flights_test.go, which recomputes every alert and streak
-- from the JSON file in Go and compares them with ptfsh's rows.

CREATE FUNCTION NoDepartureAlert AS 'no_departure_alert.js';
CREATE FUNCTION DelayStreak AS 'delay_streak.js';

-- The file is one JSON array; times read like 2001/01/01 00:47 (local time,
-- no zone), hence TIMESTAMP(3) and a pattern.
--
-- The watermark: the file is sorted by date (never decreasing; 2,271
-- departures share their minute with the one before). So no ORDER BY and no
-- large delay are needed. A delay of one minute, the data's resolution,
-- keeps departures of the same minute from being late: after a row at
-- 12:00 the watermark is 11:59, and the next row is at 12:00 or later.
CREATE TABLE flights (
  `date` TIMESTAMP(3),
  delay INT,
  distance INT,
  origin STRING,
  destination STRING,
  WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/flights-20k.json',
  'format' = 'json',
  'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm'
);

SET 'ptfsh.format' = 'rows';

SELECT * FROM flights LIMIT 3;

-- Alerts come out in event-time order as the watermark passes them; the
-- rowtime column is the moment the silence reached two hours. The whole run
-- gives 12,900 alerts: the file is a sample, 20,000 flights in three
-- months, so most airports look quiet for hours. Here are the first ten of
-- Dallas/Fort Worth, the busiest origin of the sample (1,103 departures);
-- on January 2 its departures at 09:19 and 11:19 are exactly two hours
-- apart, which counts as two hours of silence.
SELECT * FROM NoDepartureAlert(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`))
WHERE origin = 'DFW' LIMIT 10;

-- 106 streaks in all; Chicago O'Hare has eleven. The rowtime is the third
-- delayed departure.
SELECT * FROM DelayStreak(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`))
WHERE origin = 'ORD';
