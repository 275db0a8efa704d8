-- Alerts on a live log: each line of standard input is a CSV row
-- (time, service, level, message); a service that logs an ERROR and no OK
-- within a minute of event time is reported once.
--
--   tail -f app.log | ptfsh -f examples/live/alerts.sql
--
-- The statement runs until the input ends or Ctrl-C (or SIGTERM) stops it
-- with a final checkpoint; with --state FILE the next run goes on from it.
CREATE FUNCTION NoRecovery AS 'no_recovery.js';

-- A watermark after every row, as if each line came on its own: a log
-- piped in at once (ptfsh -f alerts.sql < app.log) then alerts as a live
-- one does. Without it, lines that come within one interval (200 ms)
-- share a watermark, as in Flink.
SET 'pipeline.auto-watermark-interval' = '0';

CREATE TABLE logs (
  ts TIMESTAMP_LTZ(3),
  service STRING,
  level STRING,
  message STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'stdin', 'format' = 'csv');

SELECT * FROM NoRecovery(logs => TABLE logs PARTITION BY service, on_time => DESCRIPTOR(ts));
