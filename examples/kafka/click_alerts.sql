-- Clicks from a Kafka topic of three partitions, a PTF with timers, alerts
-- to another topic with exactly-once delivery. Run it against a broker on
-- localhost:9092 with the topics clicks (3 partitions) and alerts.
CREATE FUNCTION burst_alert AS 'burst_alert.js';

CREATE TABLE clicks (
  user_id STRING, url STRING,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp',   -- the record's own time
  `partition` INT METADATA VIRTUAL,
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND
) WITH (
  'connector' = 'kafka', 'topic' = 'clicks',
  'properties.bootstrap.servers' = 'localhost:9092',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json');

-- Some clicks, so that the example runs on empty topics.
INSERT INTO clicks VALUES
  ('Bob',   '/a', TIMESTAMP_LTZ '2025-03-27 12:00:00'),
  ('Alice', '/a', TIMESTAMP_LTZ '2025-03-27 12:00:01'),
  ('Bob',   '/b', TIMESTAMP_LTZ '2025-03-27 12:00:03'),
  ('Bob',   '/c', TIMESTAMP_LTZ '2025-03-27 12:00:05'),
  ('Alice', '/b', TIMESTAMP_LTZ '2025-03-27 12:00:20'),
  ('Carol', '/a', TIMESTAMP_LTZ '2025-03-27 12:00:21'),
  ('Carol', '/b', TIMESTAMP_LTZ '2025-03-27 12:00:22'),
  ('Carol', '/c', TIMESTAMP_LTZ '2025-03-27 12:00:23'),
  ('Carol', '/d', TIMESTAMP_LTZ '2025-03-27 12:00:24'),
  ('Dave',  '/a', TIMESTAMP_LTZ '2025-03-27 12:01:00');

SELECT `partition`, user_id, url, ts FROM clicks;

CREATE TABLE alerts (user_id STRING, clicks BIGINT, rowtime TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'kafka', 'topic' = 'alerts',
  'properties.bootstrap.servers' = 'localhost:9092',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'click-alerts',
  'properties.isolation.level' = 'read_committed',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');

INSERT INTO alerts
SELECT * FROM burst_alert(input => TABLE clicks PARTITION BY user_id, on_time => DESCRIPTOR(ts));

SELECT * FROM alerts;
