SET 'ptfsh.format' = 'rows';
CREATE FUNCTION display AS 'show.js';
CREATE TABLE visits (op STRING, name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)
WITH ('connector' = 'filesystem', 'path' = 'visits.csv', 'format' = 'csv', 'changelog.op-column' = 'op', 'changelog-mode' = 'I');
SELECT * FROM display(r => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));
