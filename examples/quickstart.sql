-- ptfsh quickstart: the first examples of Flink's and Confluent's PTF
-- documentation, run without a cluster.
--   go run ./cmd/ptfsh -f examples/quickstart.sql

CREATE FUNCTION Greeting AS 'greeting.js';
CREATE FUNCTION GreetingWithMemory AS 'greeting_with_memory.js';
CREATE FUNCTION TableFilter AS 'table_filter.js';
CREATE FUNCTION long_views AS 'long_views.js';
CREATE FUNCTION count_clicks AS 'count_clicks.js';

CREATE VIEW Names(name) AS VALUES ('Bob'), ('Alice'), ('Bob');

-- Row semantics: every row on its own.
SELECT * FROM Greeting(TABLE Names);

-- Set semantics: state per name; the PARTITION BY column comes first.
SELECT * FROM GreetingWithMemory(TABLE Names PARTITION BY name);

-- A file table (CSV with a header line).
CREATE TABLE clicks (
  user_id STRING,
  url STRING,
  view_time INT
) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv', 'csv.header' = 'true');

SELECT * FROM long_views(input => TABLE clicks, min_view_time => 100);
SELECT * FROM count_clicks(input => TABLE clicks PARTITION BY user_id);

-- Scalar arguments: positional, with DEFAULT, or named. The four agree.
CREATE VIEW t(name, score) AS VALUES ('Bob', 12), ('Alice', 142), ('Carol', 350);
SELECT * FROM TableFilter(TABLE t, 100);
SELECT * FROM TableFilter(TABLE t, 100, DEFAULT, 'my-ptf');
SELECT * FROM TableFilter(TABLE t, 100, DEFAULT, DEFAULT);
SELECT * FROM TableFilter(input => TABLE t, threshold => 100);

-- What the shell knows: a function's effective signature (on_time and uid
-- included), and your functions.
DESCRIBE TableFilter;
SHOW USER FUNCTIONS;
