-- values.js on Flink (TestRunExport_flinkExamples).
CREATE FUNCTION ValueKinds AS 'values.js';
CREATE VIEW vals (f, t, big, b, n, nested) AS VALUES
  (CAST(0.5 AS FLOAT), TIME '12:00:00.5', CAST(9007199254740993 AS BIGINT), CAST('ab' AS BYTES), CAST('NaN' AS DOUBLE),
   CAST(ROW(1, 'one') AS ROW<x INT, y STRING>)),
  (CAST(-2.5 AS FLOAT), TIME '00:00:01', CAST(-3 AS BIGINT), CAST('' AS BYTES), CAST(1.5 AS DOUBLE),
   CAST(ROW(2, 'two') AS ROW<x INT, y STRING>));
SELECT * FROM ValueKinds(input => TABLE vals);
