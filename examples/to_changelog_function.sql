-- ToChangelogFunction: an updating table (a GROUP BY) turned into an
-- append-only table with the row kind as a column, then filtered by it.
--   go run ./cmd/ptfsh -f examples/to_changelog_function.sql

CREATE FUNCTION ToChangelogFunction AS 'to_changelog_function.js';

CREATE VIEW Scores AS
SELECT name, SUM(score) AS `sum`
FROM (VALUES ('Bob', 23), ('Alice', 42), ('Alice', 2)) AS T(name, score)
GROUP BY name;

-- The GROUP BY's changelog: Alice's second score retracts her old sum
-- (-U) and adds the new one (+U).
SELECT * FROM Scores;

-- Partitioned by name, the upsert key of the GROUP BY, the function gets
-- the upsert form: no -U, since +U alone replaces the row of its key.
SELECT * FROM ToChangelogFunction(TABLE Scores PARTITION BY name);

-- The output is an ordinary append-only table: WHERE filters on the kind.
SELECT * FROM ToChangelogFunction(TABLE Scores PARTITION BY name)
WHERE flag IN ('INSERT', 'UPDATE_AFTER');

-- The filter matters once rows go away. Here the scores are a changelog
-- themselves and Bob's 23 is taken back, which deletes his group: the
-- function sees a DELETE, which the filter drops.
CREATE TABLE ScoreChanges (op STRING, name STRING, score INT)
WITH ('changelog.op-column' = 'op')
AS VALUES ('+I', 'Bob', 23), ('+I', 'Alice', 42), ('+I', 'Alice', 2), ('-D', 'Bob', 23);
CREATE VIEW Totals AS SELECT name, SUM(score) AS `sum` FROM ScoreChanges GROUP BY name;

SELECT * FROM ToChangelogFunction(TABLE Totals PARTITION BY name);
SELECT * FROM ToChangelogFunction(TABLE Totals PARTITION BY name)
WHERE flag IN ('INSERT', 'UPDATE_AFTER');
