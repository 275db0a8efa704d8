-- CustomAggregation: a PTF that emits an updating table (Flink's docs,
-- "Updating outputs"): inserts, updates as -U/+U pairs, and deletes.
--   go run ./cmd/ptfsh -f examples/custom_aggregation.sql

CREATE FUNCTION CustomAggregation AS 'custom_aggregation.js';

-- A negative score deletes the key's sum; the key is ignored after that
-- (Bob's 45 changes nothing).
CREATE VIEW Scores(name, score) AS
VALUES ('Bob', 23), ('Alice', 42), ('Alice', 2), ('Bob', -1), ('Bob', 45);

SELECT * FROM CustomAggregation(TABLE Scores PARTITION BY name);

-- The function's output mode in the plan: every kind, [I,UB,UA,D].
EXPLAIN SELECT * FROM CustomAggregation(TABLE Scores PARTITION BY name);

-- The table the changelog amounts to: Bob's row was deleted, Alice's
-- updated to 44. The 'table' result mode materialises the changelog, as
-- the Flink SQL client does, and prints it at the end.
SET 'sql-client.execution.result-mode' = 'table';
SELECT * FROM CustomAggregation(TABLE Scores PARTITION BY name);
