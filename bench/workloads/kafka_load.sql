-- Workload K's input: clicks.csv into the topic clicks (3 partitions, the
-- record key user_id, JSON values), written once before the timed runs.
CREATE TABLE clicks_csv (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE clicks (user_id STRING, url STRING, view_time INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '${KAFKA}',
  'key.format' = 'raw', 'key.fields' = 'user_id', 'value.format' = 'json');
INSERT INTO clicks SELECT * FROM clicks_csv;
