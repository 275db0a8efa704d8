-- Workload K: the keyed count of keyed_count_insert.sql from a topic of
-- JSON clicks (3 partitions) into another topic, read from its start to
-- the end it had when the statement started.
--   ptfsh -f keyed_count_kafka.sql (bench/run -kafka puts in the servers)
CREATE FUNCTION KeyedCount AS 'keyed_count.js';
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '${KAFKA}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json');
CREATE TABLE counts (user_id STRING, click_count BIGINT) WITH (
  'connector' = 'kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = '${KAFKA}',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json');
INSERT INTO counts SELECT * FROM KeyedCount(input => TABLE clicks PARTITION BY user_id);
