-- See refused.js.
CREATE FUNCTION Refused AS 'refused.js';
CREATE TABLE v (k STRING, v INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) AS VALUES ('a', 1, 1000), ('a', 3, 2000);
SELECT * FROM Refused(r => TABLE v PARTITION BY k, on_time => DESCRIPTOR(ts), mode => 'ok');
