package sqlmini_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// benchScript is a realistic session of 20 statements: tables, functions,
// views, PTF queries and meta-commands.
const benchScript = `-- clicks.sql: sessionize clicks per user
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE clicks (
  ts TIMESTAMP_LTZ(3),
  user_id STRING,
  url STRING,
  score INT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE users (
  op STRING, name STRING, score INT,
  PRIMARY KEY (name) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'users.csv', 'format' = 'csv',
        'changelog.op-column' = 'op', 'changelog-mode' = 'I,UA,D');
CREATE TABLE sink (user_id STRING, sessions BIGINT, last_ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'out.jsonl', 'format' = 'json');
CREATE TEMPORARY FUNCTION IF NOT EXISTS sessionize AS 'sessionize.js' LANGUAGE JAVASCRIPT;
CREATE FUNCTION top_n LANGUAGE JAVASCRIPT AS $$
  function eval(ctx, row) {
    const seen = ctx.state.get('n') || 0; // count rows; emit the first ones
    if (seen < ctx.args.n) { ctx.emit(row); }
    ctx.state.set('n', seen + 1);
  }
$$;
SHOW USER FUNCTIONS;
SHOW TABLES;
DESCRIBE clicks;
CREATE TEMPORARY VIEW people (name, age) AS VALUES ('Bob', 31), ('Alice', 27), ('Eve', 45);
CREATE VIEW recent AS
  SELECT user_id, url, ts FROM clicks
  WHERE ts > TIMESTAMP '2025-03-27 12:00:00' AND url NOT IN ('/health', '/ping') AND user_id IS NOT NULL;
SELECT * FROM sessionize(
  input => TABLE clicks PARTITION BY user_id ORDER BY (ts ASC),
  gap => INTERVAL '30' MINUTE,
  on_time => DESCRIPTOR(ts),
  uid => 'sessionize-v1');
SELECT * FROM top_n(TABLE users PARTITION BY (name) ORDER BY (score DESC NULLS LAST), 3, DEFAULT, 'top-v1');
EXPLAIN SELECT user_id, count(*) AS n FROM recent GROUP BY user_id LIMIT 100;
WITH s AS (SELECT * FROM TABLE(sessionize(TABLE clicks PARTITION BY user_id, INTERVAL '5' MINUTE))),
     t AS (SELECT user_id, CAST(score AS BIGINT) * 2 + 1 AS points FROM s WHERE score >= 10 OR url || '?' = 'x')
SELECT * FROM t UNION ALL SELECT user_id, 0 FROM clicks WHERE NOT (score > 0);
INSERT INTO sink SELECT user_id, count(DISTINCT url), MAP['a', 1] FROM clicks GROUP BY user_id;
SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS T(id, tag);
SELECT ROW(1, 'x'), ARRAY[1, 2, 3], DATE '2025-01-01', -score % 7 FROM users;
DROP TEMPORARY FUNCTION IF EXISTS sessionize;
RESET 'table.local-time-zone';
`

func BenchmarkParse(b *testing.B) {
	stmts, err := sqlmini.Parse("bench.sql", benchScript)
	if err != nil {
		b.Fatal(err)
	}
	if len(stmts) != 20 {
		b.Fatalf("%d statements, want 20", len(stmts))
	}
	b.SetBytes(int64(len(benchScript)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sqlmini.Parse("bench.sql", benchScript); err != nil {
			b.Fatal(err)
		}
	}
}
