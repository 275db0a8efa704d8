-- SensorThresholds: a data stream and a control stream, co-partitioned by
-- key. Commands set a sensor's alert threshold, or mute and unmute it.
--   go run ./cmd/ptfsh -f examples/sensor_thresholds.sql

CREATE FUNCTION SensorThresholds AS 'sensor_thresholds.js';

CREATE VIEW Readings(sensor, temp) AS VALUES
  (1, 21.5), (2, 38.0), (2, 45.5), (1, 31.0), (2, 52.5), (1, 29.0), (2, 48.0);
CREATE VIEW Commands(sensor, command, threshold) AS VALUES
  (1, 'threshold', 30.0), (2, 'mute', NULL), (2, 'threshold', 50.0), (2, 'unmute', NULL);

-- Both tables are partitioned by the sensor (the same number and types of
-- key columns, as Flink requires), so a reading and a command of sensor 2
-- share sensor 2's state. The output starts with both key columns
-- (sensor, and the commands' sensor renamed sensor0); each holds the key
-- on every row.
--
-- Which row comes first? In Flink a two-input operator reads whichever
-- input has data, so the order of rows from different tables is up to the
-- runtime. ptfsh makes it deterministic: without on_time the inputs take
-- turns, one row each, in the order of the arguments:
--
--   readings 1, commands 1, readings 2, commands 2, readings 3, commands 3,
--   readings 4, commands 4, then readings 5 to 7 (commands has ended).
--
-- So sensor 1's threshold is 30 from its second row on; sensor 2 is muted
-- before its reading of 45.5 and unmuted before its 52.5 (over 50).
SELECT * FROM SensorThresholds(
  readings => TABLE Readings PARTITION BY sensor,
  commands => TABLE Commands PARTITION BY sensor,
  default_threshold => 40.0);

-- Row by row is a rule of thumb, not of time. When the rows carry times,
-- on_time makes ptfsh take them in event-time order instead: of the rows
-- waiting at the head of each input, the earliest goes first. The same
-- rows at these times give other alerts: the mute now comes after the
-- 45.5 (an alert) and before the 52.5 (muted, as the unmute comes later).
CREATE TABLE TimedReadings (sensor INT, temp DECIMAL(4, 1), ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES
  (1, 21.5, TIMESTAMP '2025-03-27 12:00:00'), (2, 38.0, TIMESTAMP '2025-03-27 12:01:00'),
  (2, 45.5, TIMESTAMP '2025-03-27 12:02:00'), (1, 31.0, TIMESTAMP '2025-03-27 12:03:00'),
  (2, 52.5, TIMESTAMP '2025-03-27 12:04:00'), (1, 29.0, TIMESTAMP '2025-03-27 12:05:00'),
  (2, 48.0, TIMESTAMP '2025-03-27 12:06:00');
CREATE TABLE TimedCommands (sensor INT, command STRING, threshold DECIMAL(4, 1), ts TIMESTAMP_LTZ(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES
  (1, 'threshold', 30.0, TIMESTAMP '2025-03-27 12:00:30'), (2, 'mute', NULL, TIMESTAMP '2025-03-27 12:02:30'),
  (2, 'threshold', 50.0, TIMESTAMP '2025-03-27 12:03:30'), (2, 'unmute', NULL, TIMESTAMP '2025-03-27 12:05:30');

SET 'ptfsh.format' = 'rows';
SELECT * FROM SensorThresholds(
  readings => TABLE TimedReadings PARTITION BY sensor,
  commands => TABLE TimedCommands PARTITION BY sensor,
  default_threshold => 40.0,
  on_time => DESCRIPTOR(ts));
