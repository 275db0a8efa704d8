-- view_rows.js on Flink (TestRunExport_flinkExamples): ListView and
-- MapView state of rows, decimals, timestamps and arrays.
CREATE FUNCTION ViewRows AS 'view_rows.js';

CREATE VIEW events (name, word, price, ts) AS VALUES
  ('a', 'pear', CAST(10.5 AS DECIMAL(10, 2)), TIMESTAMP '2025-01-01 00:00:00'),
  ('a', 'fig', CAST(2.25 AS DECIMAL(10, 2)), TIMESTAMP '2025-01-01 00:00:01.5'),
  ('b', 'pear', CAST(7 AS DECIMAL(10, 2)), TIMESTAMP '2025-01-01 00:00:02'),
  ('a', 'pear', CAST(1 AS DECIMAL(10, 2)), TIMESTAMP '2025-01-01 00:00:03'),
  ('a', 'reset', CAST(0 AS DECIMAL(10, 2)), TIMESTAMP '2025-01-01 00:00:04'),
  ('a', 'fig', CAST(99.99 AS DECIMAL(10, 2)), TIMESTAMP '2025-01-01 00:00:05');

SELECT * FROM ViewRows(input => TABLE events PARTITION BY name);
