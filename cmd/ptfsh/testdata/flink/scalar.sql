-- Scalar functions (kind: "scalar") on Flink (TestRunExport_flinkExamples):
-- each exports as a ScalarFunction, and the SELECTs that call only it
-- become its cases.
CREATE FUNCTION Rate AS 'rate.js';
CREATE FUNCTION Label AS 'label.js';
CREATE VIEW items (name, price, n, amount, ts, ok) AS VALUES
  ('tea', CAST(1.5 AS DOUBLE), CAST(1 AS BIGINT), CAST(2.5 AS DECIMAL(10, 2)), TIMESTAMP '2025-03-27 12:00:00.250', TRUE),
  ('cake', CAST(NULL AS DOUBLE), CAST(2 AS BIGINT), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS TIMESTAMP(3)), FALSE),
  (CAST(NULL AS STRING), CAST(4.0 AS DOUBLE), CAST(NULL AS BIGINT), CAST(-0.05 AS DECIMAL(10, 2)), TIMESTAMP '1999-12-31 23:59:59', CAST(NULL AS BOOLEAN));
SELECT name, Rate(price), Rate(price, 10) FROM items WHERE Rate(price) > 2;
SELECT name, Rate(price, 3) AS tripled FROM items;
SELECT Label(name, n, amount, ts, ok) AS label FROM items;
