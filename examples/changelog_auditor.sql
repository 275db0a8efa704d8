-- ChangelogAuditor: an audit trail of every change in a changelog of
-- currency rates, with the rate before and after each change.
--   go run ./cmd/ptfsh -f examples/changelog_auditor.sql

CREATE FUNCTION ChangelogAuditor AS 'changelog_auditor.js';

-- A CSV changelog (made up, see data/README.md): the op column holds each
-- row's kind and is consumed, not a column of the table. Updates come as
-- -U(old) +U(new) pairs; GBP is deleted at the end.
CREATE TABLE rates (
  op STRING,
  currency STRING,
  rate DECIMAL(10, 4),
  updated_at TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'data/currency_rates.csv', 'format' = 'csv',
        'csv.header' = 'true', 'changelog.op-column' = 'op');

SELECT * FROM rates;

-- One call of eval per change and currency. A -U row only says which
-- rate goes (checked against the state); the +U after it makes the
-- audit row. A -D row carries the rate it deletes.
SELECT * FROM ChangelogAuditor(input => TABLE rates PARTITION BY currency);

-- The changelog goes in ([I,UB,UA,D]), an append-only trail ([I]) comes out.
EXPLAIN SELECT * FROM ChangelogAuditor(input => TABLE rates PARTITION BY currency);

-- In the 'table' result mode the changelog is materialised: the rates
-- table holds the three current rates; the trail, insert-only, keeps
-- every row.
SET 'sql-client.execution.result-mode' = 'table';
SELECT * FROM rates;
SELECT * FROM ChangelogAuditor(input => TABLE rates PARTITION BY currency);
