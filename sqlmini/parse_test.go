package sqlmini_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// printTests are statements and their canonical String(). FuzzParse uses
// the inputs as seeds.
var printTests = []struct {
	name, in, want string
}{
	// CREATE FUNCTION
	{"function/path", "create function f as 'f.js'", "CREATE FUNCTION f AS 'f.js'"},
	{"function/path language", "CREATE FUNCTION f AS 'fns/f.js' LANGUAGE JAVASCRIPT", "CREATE FUNCTION f AS 'fns/f.js' LANGUAGE JAVASCRIPT"},
	{"function/language lower", "create function f as 'f.js' language javascript", "CREATE FUNCTION f AS 'f.js' LANGUAGE JAVASCRIPT"},
	{"function/temporary if not exists", "CREATE TEMPORARY FUNCTION IF NOT EXISTS sessionize AS 'sessionize.js'", "CREATE TEMPORARY FUNCTION IF NOT EXISTS sessionize AS 'sessionize.js'"},
	{"function/or replace", "create or replace temporary function f as 'f.js'", "CREATE OR REPLACE TEMPORARY FUNCTION f AS 'f.js'"},
	{"view/or replace", "CREATE OR REPLACE VIEW v AS VALUES (1)", "CREATE OR REPLACE VIEW v AS VALUES (1)"},
	{"function/temp system", "CREATE TEMP SYSTEM FUNCTION f AS 'f.js'", "CREATE TEMPORARY FUNCTION f AS 'f.js'"},
	{"function/quote in path", "CREATE FUNCTION f AS 'it''s.js'", "CREATE FUNCTION f AS 'it''s.js'"},
	{"function/body",
		"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$\nfunction eval(x) { emit({s: 'a;b', t: \"it's\"}); } // ; --\n$$",
		"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$\nfunction eval(x) { emit({s: 'a;b', t: \"it's\"}); } // ; --\n$$"},
	// MATCH_RECOGNIZE
	{"match/minimal", "select * from t match_recognize (order by ts measures a.x as ax pattern (a) define a as x > 1)",
		"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES a.x AS ax PATTERN (a) DEFINE a AS x > 1)"},
	{"match/every clause", "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k, j ORDER BY ts, id DESC MEASURES FIRST(A.x) AS f, LAST(B.y, 1) AS l, MATCH_ROWTIME() AS mt ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) WITHIN INTERVAL '1' MINUTE DEFINE A AS A.x > 0, B AS B.y < PREV(B.y)) AS T",
		"SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k, j ORDER BY ts, id DESC MEASURES FIRST(A.x) AS f, LAST(B.y, 1) AS l, MATCH_ROWTIME() AS mt ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) WITHIN INTERVAL '1' MINUTE DEFINE A AS A.x > 0, B AS B.y < PREV(B.y)) AS T"},
	{"match/quantifiers", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x PATTERN (A* B+? C?? D{2} E{2,} F{,3}? G{1,3}) DEFINE A AS TRUE)",
		"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x PATTERN (A* B+? C?? D{2} E{2,} F{,3}? G{1,3}) DEFINE A AS TRUE)"},
	{"match/skip targets", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE A AS TRUE)",
		"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x AFTER MATCH SKIP TO NEXT ROW PATTERN (A B) DEFINE A AS TRUE)"},
	{"match/skip to first", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x AFTER MATCH SKIP TO FIRST B PATTERN (A B) DEFINE A AS TRUE)",
		"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x AFTER MATCH SKIP TO FIRST B PATTERN (A B) DEFINE A AS TRUE)"},
	{"match/skip to var", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x AFTER MATCH SKIP TO B PATTERN (A B) DEFINE A AS TRUE)",
		"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x AFTER MATCH SKIP TO B PATTERN (A B) DEFINE A AS TRUE)"},
	{"match/forms flink refuses", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x ALL ROWS PER MATCH AFTER MATCH SKIP TO LAST B PATTERN (^ (A | B)+ {- C* -} PERMUTE(D, E F) () $) SUBSET U = (A, B) DEFINE A AS TRUE)",
		"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x ALL ROWS PER MATCH AFTER MATCH SKIP TO LAST B PATTERN (^ (A | B)+ {- C* -} PERMUTE(D, E F) () $) SUBSET U = (A, B) DEFINE A AS TRUE)"},
	{"match/subquery", "SELECT T.x FROM (SELECT * FROM t) MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x PATTERN (A) DEFINE A AS TRUE) T JOIN u ON T.x = u.x",
		"SELECT T.x FROM (SELECT * FROM t) MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x PATTERN (A) DEFINE A AS TRUE) AS T JOIN u ON T.x = u.x"},
	{"function/body as first", "CREATE FUNCTION f AS $$ x $$ LANGUAGE JAVASCRIPT", "CREATE FUNCTION f AS $$ x $$ LANGUAGE JAVASCRIPT"},
	{"function/body with dollar", "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ var $x = 1; `${$x}` $$", "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ var $x = 1; `${$x}` $$"},
	{"function/empty body", "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$$$", "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$$$"},
	{"function/reserved name", "CREATE FUNCTION `select` AS 'f.js'", "CREATE FUNCTION `select` AS 'f.js'"},
	{"function/named like a word", "CREATE FUNCTION language AS 'f.js'", "CREATE FUNCTION language AS 'f.js'"},

	// CREATE VIEW
	{"view/values", "CREATE TEMPORARY VIEW people (name, age) AS VALUES ('Bob', 1), ('Alice', 2)", "CREATE TEMPORARY VIEW people (name, age) AS VALUES ('Bob', 1), ('Alice', 2)"},
	{"view/select", "create view v as select a, b from t where a > 1", "CREATE VIEW v AS SELECT a, b FROM t WHERE a > 1"},

	// CREATE TABLE
	{"table/flink",
		`CREATE TABLE clicks (
		   ts TIMESTAMP_LTZ(3), user_id STRING, score INT,
		   PRIMARY KEY (user_id) NOT ENFORCED,
		   WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
		 ) WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv')`,
		"CREATE TABLE clicks (ts TIMESTAMP_LTZ(3), user_id STRING, score INT, PRIMARY KEY (user_id) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv')"},
	{"statement set/begin", "begin statement set", "BEGIN STATEMENT SET"},
	{"statement set/end", "end", "END"},
	{"table/computed column", "create table t (a int, ts as proctime(), b as a + 1, watermark for ts as ts)", "CREATE TABLE t (a INT, ts AS proctime(), b AS a + 1, WATERMARK FOR ts AS ts)"},
	{"table/column primary key", "create table t (name string primary key not enforced, n bigint not null, m int null)", "CREATE TABLE t (name STRING PRIMARY KEY NOT ENFORCED, n BIGINT NOT NULL, m INT NULL)"},
	{"table/composite key", "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b) NOT ENFORCED)", "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b) NOT ENFORCED)"},
	{"json/value", "SELECT JSON_VALUE(j, 'lax $.a' returning int default -1 on empty error on error)", "SELECT JSON_VALUE(j, 'lax $.a' RETURNING INT DEFAULT -1 ON EMPTY ERROR ON ERROR)"},
	{"json/query wrapper", "SELECT JSON_QUERY(j, '$.a' WITH CONDITIONAL WRAPPER EMPTY ARRAY ON EMPTY), JSON_QUERY(j, '$' WITHOUT WRAPPER)", "SELECT JSON_QUERY(j, '$.a' WITH CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY), JSON_QUERY(j, '$' WITHOUT ARRAY WRAPPER)"},
	{"json/exists", "SELECT JSON_EXISTS(j, '$.a' UNKNOWN ON ERROR)", "SELECT JSON_EXISTS(j, '$.a' UNKNOWN ON ERROR)"},
	{"json/object", "SELECT JSON_OBJECT(), JSON_OBJECT('a' VALUE 1, KEY 'b' VALUE x ABSENT ON NULL), JSON_OBJECT(NULL ON NULL)", "SELECT JSON_OBJECT(), JSON_OBJECT(KEY 'a' VALUE 1, KEY 'b' VALUE x ABSENT ON NULL), JSON_OBJECT(NULL ON NULL)"},
	{"json/array", "SELECT JSON_ARRAY(), JSON_ARRAY(1, 2 NULL ON NULL), JSON_ARRAY(NULL ON NULL), JSON_ARRAY(NULL, NULL ON NULL)", "SELECT JSON_ARRAY(), JSON_ARRAY(1, 2 NULL ON NULL), JSON_ARRAY(NULL ON NULL), JSON_ARRAY(NULL NULL ON NULL)"},
	{"json/aggregates", "SELECT JSON_OBJECTAGG(KEY k VALUE v), JSON_ARRAYAGG(v ABSENT ON NULL) FROM t", "SELECT JSON_OBJECTAGG(KEY k VALUE v), JSON_ARRAYAGG(v ABSENT ON NULL) FROM t"},
	{"json/is json", "SELECT s IS JSON, s is not json object FROM t", "SELECT s IS JSON, s IS NOT JSON OBJECT FROM t"},
	{"json/plain calls keep no clauses", "SELECT json_string(1), f(a, b)", "SELECT json_string(1), f(a, b)"},
	{"table/like", "create temporary table f with ('connector' = 'faker') like t (excluding options Including GENERATED)", "CREATE TEMPORARY TABLE f WITH ('connector' = 'faker') LIKE t (EXCLUDING OPTIONS INCLUDING GENERATED)"},
	{"table/like without options", "CREATE TABLE f (b INT) LIKE `t`", "CREATE TABLE f (b INT) LIKE t"},
	{"table/empty with", "CREATE TABLE t (a INT) WITH ()", "CREATE TABLE t (a INT)"},
	{"table/option quotes", "CREATE TABLE t (a INT) WITH ('csv.quote' = '''')", "CREATE TABLE t (a INT) WITH ('csv.quote' = '''')"},
	{"table/types",
		"CREATE TABLE t (a decimal(10, 2), b varchar(5), c timestamp(3) with local time zone, d timestamp without time zone, e interval day(2) to second(3), f array<int not null>, g map<string, array<bigint>>, h row<x int, `from` string> not null, i row(y double), j bytes, k date, l time, m descriptor)",
		"CREATE TABLE t (a DECIMAL(10, 2), b VARCHAR(5), c TIMESTAMP(3) WITH LOCAL TIME ZONE, d TIMESTAMP WITHOUT TIME ZONE, e INTERVAL DAY TO SECOND, f ARRAY<INT NOT NULL>, g MAP<STRING, ARRAY<BIGINT>>, h ROW<x INT, `from` STRING> NOT NULL, i ROW<y DOUBLE>, j BYTES, k DATE, l TIME, m DESCRIPTOR)"},
	{"table/columns named like words", "CREATE TABLE t (primary key, watermark int, `table` int)", "CREATE TABLE t (primary KEY, watermark INT, `table` INT)"},

	// DROP, SHOW, DESCRIBE, SET, RESET
	{"drop/function", "drop temporary function if exists f", "DROP TEMPORARY FUNCTION IF EXISTS f"},
	{"drop/table", "DROP TABLE t", "DROP TABLE t"},
	{"drop/view", "drop view if exists v", "DROP VIEW IF EXISTS v"},
	{"drop/table named if", "DROP TABLE if", "DROP TABLE if"},
	{"expr/case searched", "select case when a > 1 then 'x' when a is null then 'n' else 'y' end from t", "SELECT CASE WHEN a > 1 THEN 'x' WHEN a IS NULL THEN 'n' ELSE 'y' END FROM t"},
	{"expr/case simple nested", "SELECT CASE a WHEN 1 THEN 'one' END, case when case when b then true end then 1 end FROM t", "SELECT CASE a WHEN 1 THEN 'one' END, CASE WHEN CASE WHEN b THEN TRUE END THEN 1 END FROM t"},
	{"expr/between", "SELECT a FROM t WHERE a between 1 and 10 AND b not between symmetric 3 and 1", "SELECT a FROM t WHERE a BETWEEN 1 AND 10 AND b NOT BETWEEN SYMMETRIC 3 AND 1"},
	{"expr/like", "SELECT a FROM t WHERE a like 'x%' and b not like 'a!%' escape '!' OR c NOT IN (1, 2)", "SELECT a FROM t WHERE a LIKE 'x%' AND b NOT LIKE 'a!%' ESCAPE '!' OR c NOT IN (1, 2)"},
	{"expr/is truth", "SELECT a is true, a is not false, a is unknown, a IS NOT NULL FROM t", "SELECT a IS TRUE, a IS NOT FALSE, a IS UNKNOWN, a IS NOT NULL FROM t"},
	{"expr/keyword arguments", "SELECT extract(year from ts), substring(s from 2 for 3), trim(leading 'x' from s), trim(both from s), position('l' in s), floor(ts to hour), count(distinct a) FROM t",
		"SELECT extract(year FROM ts), substring(s FROM 2 FOR 3), trim(LEADING 'x' FROM s), trim(BOTH FROM s), position('l' IN s), floor(ts TO hour), count(DISTINCT a) FROM t"},
	{"select/having order by", "SELECT a, COUNT(*) FROM t GROUP BY a having count(*) > 1 order by a desc nulls last, b LIMIT 3", "SELECT a, COUNT(*) FROM t GROUP BY a HAVING count(*) > 1 ORDER BY a DESC NULLS LAST, b LIMIT 3"},
	{"select/reserved words quoted", "SELECT `end`, `case`, `join` FROM t", "SELECT `end`, `case`, `join` FROM t"},
	{"expr/decimal literal", "SELECT decimal '1.50', Date '2024-01-01'", "SELECT DECIMAL '1.50', DATE '2024-01-01'"},
	{"expr/binary literal", "SELECT x'0a0B', X'' FROM t", "SELECT X'0A0B', X'' FROM t"},
	{"expr/try_cast", "SELECT try_cast(a AS INT), CAST(b AS STRING) FROM t", "SELECT TRY_CAST(a AS INT), CAST(b AS STRING) FROM t"},
	{"select/comma join", "SELECT * FROM a, b AS c", "SELECT * FROM a, b AS c"},
	{"select/join", "select * from a join b on a.x = b.x", "SELECT * FROM a JOIN b ON a.x = b.x"},
	{"select/join kinds", "SELECT a.*, b.y FROM a inner join b on a.x = b.x left outer join c x on x.k = a.k right join d using (k, j) FULL OUTER JOIN e ON TRUE cross join f, g",
		"SELECT a.*, b.y FROM a INNER JOIN b ON a.x = b.x LEFT JOIN c AS x ON x.k = a.k RIGHT JOIN d USING (k, j) FULL JOIN e ON TRUE CROSS JOIN f, g"},
	{"select/left alias", "SELECT * FROM a AS l LEFT JOIN b r ON l.x = r.x", "SELECT * FROM a AS l LEFT JOIN b AS r ON l.x = r.x"},
	{"select/lateral", "SELECT * FROM s, lateral (SELECT c FROM p WHERE p.k = s.k ORDER BY n LIMIT 2) AS x(c)", "SELECT * FROM s, LATERAL (SELECT c FROM p WHERE p.k = s.k ORDER BY n LIMIT 2) AS x(c)"},
	{"select/left join lateral", "SELECT * FROM s LEFT JOIN LATERAL (SELECT c FROM p WHERE p.k = s.k) ON TRUE", "SELECT * FROM s LEFT JOIN LATERAL (SELECT c FROM p WHERE p.k = s.k) ON TRUE"},
	{"select/table hint", "SELECT * FROM `t` /*+ options('a.b' = 'it''s', 'c'='1'), x(y) */ AS u, v /* a comment */", "SELECT * FROM t /*+ OPTIONS('a.b'='it''s', 'c'='1'), X(y) */ AS u, v"},
	{"select/temporal join", "SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts AS v ON o.k = v.k", "SELECT * FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts AS v ON o.k = v.k"},
	{"select/interval join", "SELECT * FROM a, b WHERE a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts", "SELECT * FROM a, b WHERE a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts"},
	{"over/rows", "select sum(v) over (partition by k, j order by ts rows between 2 preceding and current row) as s from t",
		"SELECT sum(v) OVER (PARTITION BY k, j ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM t"},
	{"over/range interval", "select max(v) over (order by ts range between interval '1' hour preceding and current row) from t",
		"SELECT max(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM t"},
	{"over/unbounded short", "select count(*) over (partition by k order by ts rows unbounded preceding) from t",
		"SELECT count(*) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) FROM t"},
	{"over/named window", "select lag(v, 2, 0) over w, lead(v) over w from t window w as (partition by k order by ts desc)",
		"SELECT lag(v, 2, 0) OVER w, lead(v) OVER w FROM t WINDOW w AS (PARTITION BY k ORDER BY ts DESC)"},
	{"over/empty", "select row_number() over () from t", "SELECT row_number() OVER () FROM t"},
	{"insert/overwrite", "insert overwrite out select * from t", "INSERT OVERWRITE out SELECT * FROM t"},
	{"show/functions", "show functions", "SHOW FUNCTIONS"},
	{"show/user functions", "SHOW USER FUNCTIONS", "SHOW USER FUNCTIONS"},
	{"show/tables", "Show Tables", "SHOW TABLES"},
	{"show/views", "SHOW VIEWS", "SHOW VIEWS"},
	{"describe", "describe clicks", "DESCRIBE clicks"},
	{"describe/desc", "DESC `order`", "DESCRIBE `order`"},
	{"describe/function", "describe function f", "DESCRIBE FUNCTION f"},
	{"describe/function extended", "DESC FUNCTION EXTENDED `greet`", "DESCRIBE FUNCTION EXTENDED greet"},
	{"describe/a table named function", "DESCRIBE `function`", "DESCRIBE `function`"},
	{"describe/a function named extended", "DESCRIBE FUNCTION `Extended`", "DESCRIBE FUNCTION `Extended`"},
	{"show/like", "show tables like 'a%'", "SHOW TABLES LIKE 'a%'"},
	{"show/not ilike", "SHOW USER FUNCTIONS NOT ILIKE 'g_'", "SHOW USER FUNCTIONS NOT ILIKE 'g_'"},
	{"show/create table", "show create table t", "SHOW CREATE TABLE t"},
	{"show/create function", "SHOW CREATE FUNCTION `greet`", "SHOW CREATE FUNCTION greet"},
	{"help", "help", "HELP"},
	{"quit", "Quit", "QUIT"},
	{"exit", "EXIT", "EXIT"},
	{"set", "set", "SET"},
	{"set/key value", "SET 'parallelism.default' = '1'", "SET 'parallelism.default' = '1'"},
	{"reset", "RESET", "RESET"},
	{"reset/key", "reset 'table.local-time-zone'", "RESET 'table.local-time-zone'"},

	// EXPLAIN, INSERT, queries
	{"explain", "explain select * from t", "EXPLAIN SELECT * FROM t"},
	{"explain/plan for", "EXPLAIN PLAN FOR SELECT * FROM t", "EXPLAIN SELECT * FROM t"},
	{"explain/timeline", "explain timeline select * from f(table t partition by k, on_time => descriptor(ts))", "EXPLAIN TIMELINE SELECT * FROM f(TABLE t PARTITION BY k, on_time => DESCRIPTOR(ts))"},
	{"explain/timeline with", "EXPLAIN Timeline WITH a AS (SELECT * FROM t) SELECT * FROM a", "EXPLAIN TIMELINE WITH a AS (SELECT * FROM t) SELECT * FROM a"},
	{"explain/timeline as name", "EXPLAIN SELECT * FROM timeline", "EXPLAIN SELECT * FROM timeline"},
	{"explain/why", "explain why select * from t", "EXPLAIN WHY SELECT * FROM t"},
	{"explain/details", "explain changelog_mode, estimated_cost select * from t", "EXPLAIN CHANGELOG_MODE, ESTIMATED_COST SELECT * FROM t"},
	{"explain/insert", "EXPLAIN PLAN FOR INSERT INTO s SELECT * FROM t", "EXPLAIN INSERT INTO s SELECT * FROM t"},
	{"explain/statement set", "explain statement set begin insert into s select * from t; insert into u values (1); end", "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO s SELECT * FROM t; INSERT INTO u VALUES (1); END"},
	{"explain/execute statement set", "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO s VALUES (1); END", "EXPLAIN EXECUTE STATEMENT SET BEGIN INSERT INTO s VALUES (1); END"},
	// streams, stepped by hand
	{"create stream", "create stream s (id STRING, ts TIMESTAMP_LTZ(3), watermark for ts as ts - interval '1' second)", "CREATE STREAM s (id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)"},
	{"create stream/temporary", "CREATE OR REPLACE TEMPORARY STREAM `stream` (a INT)", "CREATE OR REPLACE TEMPORARY STREAM stream (a INT)"},
	{"advance", "advance watermark s to timestamp '2025-03-27 12:00:10'", "ADVANCE WATERMARK s TO TIMESTAMP '2025-03-27 12:00:10'"},
	{"advance/millis", "ADVANCE WATERMARK `my s` TO 1000 + 5", "ADVANCE WATERMARK `my s` TO 1000 + 5"},
	{"advance/end", "Advance Watermark s To End", "ADVANCE WATERMARK s TO END"},
	{"advance/end as column", "ADVANCE WATERMARK s TO `end`", "ADVANCE WATERMARK s TO `end`"},
	{"advance/by", "advance watermark s by interval '10' second", "ADVANCE WATERMARK s BY INTERVAL '10' SECOND"},
	{"advance/processing time", "Advance Processing Time s To Timestamp '2025-03-27 12:00:10'", "ADVANCE PROCESSING TIME s TO TIMESTAMP '2025-03-27 12:00:10'"},
	{"advance/processing time by", "ADVANCE PROCESSING TIME s BY INTERVAL '1' MINUTE", "ADVANCE PROCESSING TIME s BY INTERVAL '1' MINUTE"},
	{"insert/select", "INSERT INTO sink SELECT a, b FROM src", "INSERT INTO sink SELECT a, b FROM src"},
	{"insert/values", "insert into sink values (1, 'a')", "INSERT INTO sink VALUES (1, 'a')"},
	{"insert/paren", "INSERT INTO sink (SELECT * FROM src)", "INSERT INTO sink (SELECT * FROM src)"},
	{"statement set",
		"execute statement set begin\n  insert into a select * from t;\n  INSERT INTO b VALUES (1, ';');\nend",
		"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t; INSERT INTO b VALUES (1, ';'); END"},
	{"statement set/one insert", "EXECUTE STATEMENT SET BEGIN INSERT INTO `end` SELECT * FROM `end`; END;", "EXECUTE STATEMENT SET BEGIN INSERT INTO `end` SELECT * FROM `end`; END"},
	{"statement set/table named end", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM `end`; INSERT INTO b SELECT `end` FROM t; END", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM `end`; INSERT INTO b SELECT `end` FROM t; END"},
	{"select/star", "SELECT * FROM t", "SELECT * FROM t"},
	{"select/distinct alias", "select distinct a x, b as y from t u", "SELECT DISTINCT a AS x, b AS y FROM t AS u"},
	{"select/qualified", "SELECT t.a, s.`b c` FROM t", "SELECT t.a, s.`b c` FROM t"},
	{"select/group by limit", "SELECT a, count(*) AS n FROM t GROUP BY a, b LIMIT 10", "SELECT a, count(*) AS n FROM t GROUP BY a, b LIMIT 10"},
	{"select/funcs", "SELECT count(DISTINCT a), f(), g(1, 'x'), count(DISTINCT *) FROM t", "SELECT count(DISTINCT a), f(), g(1, 'x'), count(DISTINCT *) FROM t"},
	{"select/with", "WITH a AS (SELECT * FROM t), b (x, y) AS (SELECT * FROM a) SELECT * FROM b", "WITH a AS (SELECT * FROM t), b (x, y) AS (SELECT * FROM a) SELECT * FROM b"},
	{"select/union all", "SELECT a FROM t UNION ALL SELECT a FROM u union all values (1)", "SELECT a FROM t UNION ALL SELECT a FROM u UNION ALL VALUES (1)"},
	{"select/paren union", "(SELECT a FROM t) UNION ALL (SELECT a FROM u)", "(SELECT a FROM t) UNION ALL (SELECT a FROM u)"},
	{"select/values", "VALUES (1, 'a'), (2, 'b')", "VALUES (1, 'a'), (2, 'b')"},
	{"select/values table", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS T(a, b)", "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS T(a, b)"},
	{"select/subquery", "SELECT * FROM (SELECT a FROM t) s", "SELECT * FROM (SELECT a FROM t) AS s"},

	// PTF calls
	{"ptf/positional", "SELECT * FROM f(TABLE t, 100, DEFAULT, 'my-ptf')", "SELECT * FROM f(TABLE t, 100, DEFAULT, 'my-ptf')"},
	{"ptf/named",
		"SELECT * FROM f(input => TABLE t PARTITION BY (k1, k2) ORDER BY (ts ASC, score DESC NULLS FIRST), threshold => 100, on_time => DESCRIPTOR(ts), uid => 'f-v1')",
		"SELECT * FROM f(input => TABLE t PARTITION BY (k1, k2) ORDER BY (ts ASC, score DESC NULLS FIRST), threshold => 100, on_time => DESCRIPTOR(ts), uid => 'f-v1')"},
	{"ptf/single column", "select * from f(table t partition by (k) order by (ts))", "SELECT * FROM f(TABLE t PARTITION BY k ORDER BY ts)"},
	{"ptf/bare order", "SELECT * FROM f(TABLE t PARTITION BY k ORDER BY ts desc nulls last)", "SELECT * FROM f(TABLE t PARTITION BY k ORDER BY ts DESC NULLS LAST)"},
	{"ptf/descriptor", "SELECT * FROM f(TABLE t, DESCRIPTOR(a, b))", "SELECT * FROM f(TABLE t, DESCRIPTOR(a, b))"},
	{"ptf/empty descriptor", "SELECT * FROM f(c => descriptor())", "SELECT * FROM f(c => DESCRIPTOR())"},
	{"select/no from", "select 1, 'x' as s", "SELECT 1, 'x' AS s"},
	{"show/state", "show state for 'f'", "SHOW STATE FOR 'f'"},
	{"show/timers with key", "SHOW TIMERS FOR 'f' KEY ('Bob', 1)", "SHOW TIMERS FOR 'f' KEY ('Bob', 1)"},
	{"drop/state", "drop state for 'my-uid'", "DROP STATE FOR 'my-uid'"},
	{"values/bare values", "values 1, 2, (3), 'a' || 'b'", "VALUES (1), (2), (3), ('a' || 'b')"},
	{"set operations", "select a from t union select b from u union all select c from v intersect distinct select d from w except all select e from x minus select f from y", "SELECT a FROM t UNION SELECT b FROM u UNION ALL SELECT c FROM v INTERSECT DISTINCT SELECT d FROM w EXCEPT ALL SELECT e FROM x MINUS SELECT f FROM y"},
	{"values/watermark step", "VALUES ('Bob', 1), watermark TIMESTAMP '2025-03-27 12:01:00', ('Al', 2)", "VALUES ('Bob', 1), WATERMARK TIMESTAMP '2025-03-27 12:01:00', ('Al', 2)"},
	{"create table/as values", "CREATE TABLE t (a INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) AS VALUES (1, 0), WATERMARK 5, (2, 3)", "CREATE TABLE t (a INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) AS VALUES (1, 0), WATERMARK 5, (2, 3)"},
	{"ptf/table function", "SELECT * FROM TABLE(f(TABLE t, x => DEFAULT)) AS r", "SELECT * FROM TABLE(f(TABLE t, x => DEFAULT)) AS r"},
	{"ptf/table subquery", "SELECT * FROM f(TABLE (SELECT * FROM t WHERE a > 0) PARTITION BY a)", "SELECT * FROM f(TABLE (SELECT * FROM t WHERE a > 0) PARTITION BY a)"},
	{"ptf/no args", "SELECT * FROM f()", "SELECT * FROM f()"},
	{"select/natural join", "select * from a natural left outer join b natural join c", "SELECT * FROM a NATURAL LEFT JOIN b NATURAL JOIN c"},
	{"select/offset", "select x from t order by x desc limit 2 offset 1", "SELECT x FROM t ORDER BY x DESC LIMIT 2 OFFSET 1 ROWS"},
	{"select/fetch", "select x from t offset 1 row fetch first 2 rows only", "SELECT x FROM t OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY"},
	{"window/tumble named", "select * from table(TUMBLE(DATA => table t, TIMECOL => descriptor(ts), SIZE => interval '10' minutes, `OFFSET` => interval '1' minute))", "SELECT * FROM TABLE(TUMBLE(DATA => TABLE t, TIMECOL => DESCRIPTOR(ts), SIZE => INTERVAL '10' MINUTES, `OFFSET` => INTERVAL '1' MINUTE))"},
	{"window/session partitioned", "SELECT window_start, COUNT(*) FROM SESSION(TABLE t PARTITION BY (a, b), DESCRIPTOR(ts), INTERVAL '0.002' SECOND) GROUP BY a, b, window_start, window_end", "SELECT window_start, COUNT(*) FROM SESSION(TABLE t PARTITION BY (a, b), DESCRIPTOR(ts), INTERVAL '0.002' SECOND) GROUP BY a, b, window_start, window_end"},
	{"ptf/nested", "SELECT * FROM g(TABLE (SELECT * FROM TABLE(f(TABLE t))))", "SELECT * FROM g(TABLE (SELECT * FROM TABLE(f(TABLE t))))"},

	// expressions
	{"expr/logic", "SELECT * FROM t WHERE a = 1 and b <> 2 or not c != 3 AND NOT NOT d", "SELECT * FROM t WHERE a = 1 AND b <> 2 OR NOT c != 3 AND NOT NOT d"},
	{"expr/comparisons", "SELECT * FROM t WHERE a<1 AND a<=2 AND a>3 AND a>=4", "SELECT * FROM t WHERE a < 1 AND a <= 2 AND a > 3 AND a >= 4"},
	{"expr/in", "SELECT * FROM t WHERE a IN (1, 2) AND b not in ('x') AND c IN (d + 1)", "SELECT * FROM t WHERE a IN (1, 2) AND b NOT IN ('x') AND c IN (d + 1)"},
	{"expr/is null", "SELECT * FROM t WHERE a is null or b IS NOT NULL", "SELECT * FROM t WHERE a IS NULL OR b IS NOT NULL"},
	{"expr/arithmetic", "SELECT a+b*c-d/e%f, -a, a - -1, (a + b) * c, -(a) FROM t", "SELECT a + b * c - d / e % f, -a, a - -1, (a + b) * c, -(a) FROM t"},
	{"expr/concat", "SELECT a||'-'||b FROM t", "SELECT a || '-' || b FROM t"},
	{"expr/parens", "SELECT * FROM t WHERE (a OR b) AND ((c))", "SELECT * FROM t WHERE (a OR b) AND ((c))"},
	{"expr/literals", "SELECT 1, 1.5, .5, 1e3, 2.5E-3, 'it''s', '', true, FALSE, null FROM t", "SELECT 1, 1.5, .5, 1e3, 2.5E-3, 'it''s', '', TRUE, FALSE, NULL FROM t"},
	{"expr/interval", "SELECT interval '5' minute, INTERVAL '1 2' day to hour, INTERVAL -'1' SECOND(3) FROM t", "SELECT INTERVAL '5' MINUTE, INTERVAL '1 2' DAY TO HOUR, INTERVAL -'1' SECOND FROM t"},
	{"expr/typed", "SELECT * FROM t WHERE ts > timestamp '2025-03-27 12:00:00' AND d = DATE '2025-03-27' AND x = time '12:00' AND y = timestamp_ltz '2025-01-01 00:00:00'", "SELECT * FROM t WHERE ts > TIMESTAMP '2025-03-27 12:00:00' AND d = DATE '2025-03-27' AND x = TIME '12:00' AND y = TIMESTAMP_LTZ '2025-01-01 00:00:00'"},
	{"expr/cast", "SELECT cast(a as bigint), CAST(b AS ROW<x INT, y ARRAY<STRING>>), CAST(c AS DECIMAL(10,2) NOT NULL) FROM t", "SELECT CAST(a AS BIGINT), CAST(b AS ROW<x INT, y ARRAY<STRING>>), CAST(c AS DECIMAL(10, 2) NOT NULL) FROM t"},
	{"expr/constructors", "SELECT row(1, 'a'), ROW(), array[1, 2], ARRAY[], map['a', 1, 'b', 2], MAP[] FROM t", "SELECT ROW(1, 'a'), ROW(), ARRAY[1, 2], ARRAY[], MAP['a', 1, 'b', 2], MAP[] FROM t"},
	{"expr/words as columns", "SELECT timestamp, date, `time`, language, user FROM t", "SELECT timestamp, date, time, language, user FROM t"},
	{"expr/distinct from", "SELECT a is distinct from b, a IS NOT DISTINCT FROM NULL FROM t", "SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM NULL FROM t"},
	{"expr/case several values", "select case a when 1, 2 then 'x' when 3 then 'y' end from t", "SELECT CASE a WHEN 1, 2 THEN 'x' WHEN 3 THEN 'y' END FROM t"},
	{"expr/unary plus", "SELECT +a, -b, +(1), 1 + +2 FROM t", "SELECT +a, -b, +(1), 1 + +2 FROM t"},
	{"expr/implicit row", "SELECT ('a', 12), (a), ((1, 2), 3) FROM t", "SELECT ('a', 12), (a), ((1, 2), 3) FROM t"},
	{"expr/field access", "SELECT t.r.f, r.g.h FROM t", "SELECT t.r.f, r.g.h FROM t"},
	{"expr/filter", "SELECT COUNT(*) filter (where a > 1), sum(DISTINCT b) FILTER (WHERE c) FROM t", "SELECT COUNT(*) FILTER (WHERE a > 1), sum(DISTINCT b) FILTER (WHERE c) FROM t"},
	{"expr/subqueries", "SELECT * FROM t WHERE a in (select a from u) AND NOT EXISTS (SELECT * FROM v WHERE v.k = t.k) and b not in (values 1, 2) AND c IN (1, 2)", "SELECT * FROM t WHERE a IN (SELECT a FROM u) AND NOT EXISTS (SELECT * FROM v WHERE v.k = t.k) AND b NOT IN (VALUES (1), (2)) AND c IN (1, 2)"},
	{"expr/overlay and trim", "SELECT overlay(s placing 'x' from 2 for 3), trim(both ' x ') FROM t", "SELECT overlay(s PLACING 'x' FROM 2 FOR 3), trim(BOTH ' x ') FROM t"},
	{"expr/words as functions", "SELECT date('x'), timestamp(1) FROM t", "SELECT date('x'), timestamp(1) FROM t"},

	// identifiers, comments, case
	{"ident/reserved", "SELECT `count`, `select`, `a``b`, `a b`, `1a`, ``, `Ünïcode`, Ünïcode FROM `table`", "SELECT count, `select`, `a``b`, `a b`, `1a`, ``, Ünïcode, Ünïcode FROM `table`"},
	{"ident/keyword prefix", "SELECT `selectä`, selection, fromé, `ſelect` FROM notícias WHERE inés IS NULL", "SELECT selectä, selection, fromé, `ſelect` FROM notícias WHERE inés IS NULL"},
	{"ident/case kept", "SELECT UserId, userid FROM Clicks", "SELECT UserId, userid FROM Clicks"},
	{"comments", "-- leading\n/* block\n ; */ SELECT /* x */ a -- trailing ;\nFROM t /**/", "SELECT a FROM t"},
	{"whitespace", "\tSELECT\n\na\r\n,b\fFROM   t", "SELECT a, b FROM t"},
	{"semicolon", "SELECT a FROM t;", "SELECT a FROM t"},
}

func parseOne(t *testing.T, src string) *sqlmini.Statement {
	t.Helper()
	stmts, err := sqlmini.Parse("x.sql", src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	if len(stmts) != 1 {
		t.Fatalf("Parse(%q): %d statements, want 1", src, len(stmts))
	}
	return stmts[0]
}

func TestStatement_String(t *testing.T) {
	for _, tt := range printTests {
		t.Run(tt.name, func(t *testing.T) {
			st := parseOne(t, tt.in)
			got := st.String()
			if got != tt.want {
				t.Fatalf("String():\n got %s\nwant %s", got, tt.want)
			}
			again := parseOne(t, got)
			if s := again.String(); s != got {
				t.Errorf("round trip:\n got %s\nwant %s", s, got)
			}
			if d := treeDiff(st, again); d != "" {
				t.Errorf("round trip changed the tree: %s", d)
			}
		})
	}
}

func TestScript_String(t *testing.T) {
	stmts, err := sqlmini.Parse("x.sql", "show tables; select 1 from t\n;describe t")
	if err != nil {
		t.Fatal(err)
	}
	got := (&sqlmini.Script{Statements: stmts}).String()
	want := "SHOW TABLES;\nSELECT 1 FROM t;\nDESCRIBE t;\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseExpr_String(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "a"},
		{"a.b.c", "a.b.c"},
		{"x + 1 > 2 AND NOT y", "x + 1 > 2 AND NOT y"},
		{"ts - interval '1' second", "ts - INTERVAL '1' SECOND"},
		{"-1", "-1"},
		{"f(a, *b)", ""}, // error, checked below
	}
	for _, tt := range tests {
		e, err := sqlmini.ParseExpr(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseExpr(%q) = %s, want an error", tt.in, e)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.in, err)
			continue
		}
		if got := e.String(); got != tt.want {
			t.Errorf("ParseExpr(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseType_String(t *testing.T) {
	tests := []struct{ in, want string }{
		{"int", "INT"},
		{"STRING NOT NULL", "STRING NOT NULL"},
		{"varchar(5)", "VARCHAR(5)"},
		{"DECIMAL(10,2)", "DECIMAL(10, 2)"},
		{"timestamp_ltz(3)", "TIMESTAMP_LTZ(3)"},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(3) WITH LOCAL TIME ZONE"},
		{"interval day to second(3)", "INTERVAL DAY TO SECOND"},
		{"ARRAY<ROW<a INT, b MAP<STRING, INT>>>", "ARRAY<ROW<a INT, b MAP<STRING, INT>>>"},
		{"row(url string, n bigint)", "ROW<url STRING, n BIGINT>"},
		{"ROW<`select` INT, `a b` STRING NOT NULL>", "ROW<`select` INT, `a b` STRING NOT NULL>"},
	}
	for _, tt := range tests {
		typ, err := sqlmini.ParseType(tt.in)
		if err != nil {
			t.Errorf("ParseType(%q): %v", tt.in, err)
			continue
		}
		if got := typ.String(); got != tt.want {
			t.Errorf("ParseType(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a", "a"},
		{"_x1", "_x1"},
		{"count", "count"},
		{"from", "`from`"},
		{"From", "`From`"},
		{"a b", "`a b`"},
		{"a`b", "`a``b`"},
		{"", "``"},
		{"1a", "`1a`"},
		{"fromé", "fromé"},
		{"ſelect", "`ſelect`"}, // folds to SELECT
		{"frommage", "frommage"},
	}
	for _, tt := range tests {
		if got := sqlmini.QuoteIdent(tt.in); got != tt.want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// errorTests are inputs and the exact errors Parse returns for them.
// FuzzParse uses the inputs as seeds.
var errorTests = []struct {
	name, in, want string
}{
	{"misspelled keyword", "SELECT * FRM t", `x.sql:1:10: unexpected token "FRM"`},
	{"advance without TO", "ADVANCE WATERMARK s", `x.sql:1:20: unexpected end of statement (expected (("TO" ("END" | Expr)) | ("BY" Expr)))`},
	{"advance processing without TIME", "ADVANCE PROCESSING s TO END", `x.sql:1:20: unexpected token "s" (expected "TIME")`},
	{"json on null without null or absent", "SELECT JSON_ARRAY(1 ON NULL)", `x.sql:1:21: ON NULL needs NULL or ABSENT before it: NULL ON NULL or ABSENT ON NULL`},
	{"like option without a feature", "CREATE TABLE f LIKE t (EXCLUDING)", `x.sql:1:33: unexpected token ")"`},
	{"advance without a stream", "ADVANCE WATERMARK TO END", `x.sql:1:22: unexpected token "END" (expected (("TO" ("END" | Expr)) | ("BY" Expr)))`},
	{"explain timeline without a query", "EXPLAIN TIMELINE", `x.sql:1:17: unexpected end of statement (expected a statement: SELECT, VALUES, CREATE, DROP, SHOW, DESCRIBE, SET, RESET, EXPLAIN, INSERT or ADVANCE)`},
	{"misspelled after alias", "SELECT a FRM t", `x.sql:1:14: unexpected token "t"`},
	{"cut short", "SELECT a FROM", "x.sql:1:14: unexpected end of statement (expected a table, a function call or a subquery)"},
	{"cut short before semicolon", "SELECT a FROM t WHERE;", "x.sql:1:22: unexpected end of statement (expected a value, a column or an expression)"},
	{"unterminated string", "SELECT * FROM t WHERE a = 'abc", "x.sql:1:27: unterminated string"},
	{"unterminated string across lines", "SELECT 1 FROM t;\nSELECT 'it''s\nFROM t", "x.sql:2:12: unterminated string"},
	{"unterminated body", "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$\nfunction eval() {}\n", "x.sql:1:42: unterminated $$ body"},
	{"unterminated quoted identifier", "SELECT `a FROM t", "x.sql:1:8: unterminated quoted identifier"},
	{"unterminated comment", "SELECT a FROM t; /* a;\nb;", "x.sql:1:18: unterminated comment"},
	{"bad character", "SELECT # FROM t", `x.sql:1:8: unexpected character '#'`},
	{"lone dollar", "SELECT $x FROM t", `x.sql:1:8: unexpected token "$" (expected a value, a column or an expression)`},
	{"reserved word as name", "SELECT * FROM table", `x.sql:1:20: unexpected end of statement (expected "(" Call ")")`},
	{"empty row type", "CREATE TABLE t (a ROW())", `x.sql:1:23: unexpected token ")" (expected FieldType ("," FieldType)* ")")`},
	{"set without value", "SET 'a'", `x.sql:1:8: unexpected end of statement (expected "=" <string>)`},
	{"binary literal odd", "SELECT X'0A1'", "x.sql:1:8: the binary literal X'0A1' needs an even number of hex digits, two a byte"},
	{"binary literal digit", "SELECT x'0g'", "x.sql:1:8: the binary literal x'0g' holds a character that is not a hex digit (0-9, a-f)"},
	{"reserved word as a name", "SELECT a AS offset FROM k", "x.sql:1:13: unexpected token \"offset\" (expected a name); offset is a reserved word: write `offset` to use it as a name"},
	{"natural join without JOIN", "SELECT *\nFROM a\n  NATURAL b", "x.sql:3:11: unexpected token \"b\" (expected \"JOIN\")"},
	{"over without window", "SELECT SUM(a) OVER FROM t", `x.sql:1:20: unexpected token "FROM" (expected Over)`},
	{"frame without bound", "SELECT SUM(a) OVER (ORDER BY ts ROWS) FROM t", `x.sql:1:37: unexpected token ")" (expected a value, a column or an expression)`},
	{"scalar subquery", "SELECT (SELECT 1) FROM t", "x.sql:1:9: a scalar subquery, (SELECT ...) as a value, is not supported yet: join the query's table instead, or test it with IN (SELECT ...) or EXISTS (SELECT ...)"},
	{"filter without where", "SELECT COUNT(*) FILTER (a > 1) FROM t", `x.sql:1:25: unexpected token "a" (expected "WHERE" Expr ")")`},
	{"set operation without operand", "SELECT a FROM t INTERSECT", `x.sql:1:26: unexpected end of statement (expected a statement: SELECT, VALUES, CREATE, DROP, SHOW, DESCRIBE, SET, RESET, EXPLAIN, INSERT or ADVANCE)`},
	{"match_recognize without define", "SELECT * FROM t MATCH_RECOGNIZE (PATTERN (A))", `x.sql:1:45: unexpected token ")" (expected "DEFINE" Define ("," Define)* ")")`},
	{"case without end", "SELECT CASE WHEN a THEN 1 FROM t", `x.sql:1:27: unexpected token "FROM" (expected "END")`},
	{"comparison chain", "SELECT * FROM t WHERE a = b = c", `x.sql:1:29: unexpected token "="`},
	{"table arg in expression", "SELECT * FROM f(1 + TABLE t)", `x.sql:1:21: unexpected token "TABLE" (expected a value, a column or an expression)`},
	{"third statement", "SHOW TABLES;\n-- two\nSELECT * FROM t WHERE;\nSHOW VIEWS", "x.sql:3:22: unexpected end of statement (expected a value, a column or an expression)"},
	{"third statement indented", "SET;\nRESET;\n  DROP TABLE", "x.sql:3:13: unexpected end of statement (expected a name)"},
	{"statement set without END", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t;", `x.sql:1:59: unexpected end of statement (expected "END")`},
	{"statement set without semicolon", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM t END;", `x.sql:1:59: unexpected token "END" (expected ";" "END")`},
	{"statement set of a query", "EXECUTE STATEMENT SET BEGIN SELECT * FROM t; END;", `x.sql:1:29: unexpected token "SELECT" (expected Insert (";" Insert)* ";" "END")`},
}

func TestParse_errors(t *testing.T) {
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlmini.Parse("x.sql", tt.in)
			if err == nil {
				t.Fatalf("Parse(%q): no error, want %s", tt.in, tt.want)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("Parse(%q):\n got %s\nwant %s", tt.in, got, tt.want)
			}
			var perr *sqlmini.Error
			if !errors.As(err, &perr) {
				t.Errorf("error %T is not a *sqlmini.Error", err)
			}
		})
	}
}

func TestParse_statementsBeforeError(t *testing.T) {
	stmts, err := sqlmini.Parse("x.sql", "SHOW TABLES; DESCRIBE t; SELECT FROM; SHOW VIEWS")
	if err == nil {
		t.Fatal("no error")
	}
	var got []string
	for _, st := range stmts {
		got = append(got, st.String())
	}
	if want := "SHOW TABLES|DESCRIBE t"; strings.Join(got, "|") != want {
		t.Errorf("statements before the error: %q, want %q", got, want)
	}
}

func TestParse_positions(t *testing.T) {
	src := "SHOW TABLES;\n\n  SELECT a,\n    `b c` FROM f(TABLE t) ; -- done\n"
	stmts, err := sqlmini.Parse("q.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 {
		t.Fatalf("%d statements, want 2", len(stmts))
	}
	sel := stmts[1].Query.Body.Select
	tests := []struct {
		what string
		pos  sqlmini.Pos
		want string
	}{
		{"statement 1", stmts[0].Pos, "q.sql:1:1"},
		{"statement 2", stmts[1].Pos, "q.sql:3:3"},
		{"select", sel.Pos, "q.sql:3:3"},
		{"item 1", sel.Items[0].Pos, "q.sql:3:10"},
		{"item 2", sel.Items[1].Expr.Pos, "q.sql:4:5"},
		{"call", sel.From.Call2.Pos, "q.sql:4:16"},
		{"table arg", sel.From.Call2.Args[0].Table.Name.Pos, "q.sql:4:24"},
	}
	for _, tt := range tests {
		if got := tt.pos.String(); got != tt.want {
			t.Errorf("%s at %s, want %s", tt.what, got, tt.want)
		}
	}
	// Offsets index the whole source.
	name := sel.From.Call2.Args[0].Table.Name
	if got := src[name.Pos.Offset : name.Pos.Offset+1]; got != "t" {
		t.Errorf("offset %d points at %q, want \"t\"", name.Pos.Offset, got)
	}
	if got, want := stmts[1].Text, "SELECT a,\n    `b c` FROM f(TABLE t) "; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestParseStatement(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SHOW TABLES;", "SHOW TABLES"},
		{"SHOW TABLES", "SHOW TABLES"},
		{"", "1:1: empty statement"},
		{"-- nothing\n;", "1:1: empty statement"},
		{"SHOW TABLES; SHOW VIEWS", "1:14: expected one statement, found 2"},
	}
	for _, tt := range tests {
		st, err := sqlmini.ParseStatement("", tt.in)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = st.String()
		}
		if got != tt.want {
			t.Errorf("ParseStatement(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSplit(t *testing.T) {
	src := "SELECT ';' FROM t; -- a; comment\n" +
		"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$\n  a; b;\n$$;\n" +
		"/* ; */ SHOW `a;b`;;\n" +
		"  DESCRIBE t\n"
	pieces, err := sqlmini.Split("s.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`s.sql:1:1 end=17 "SELECT ';' FROM t"`,
		`s.sql:2:1 end=87 "CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$\n  a; b;\n$$"`,
		`s.sql:5:9 end=107 "SHOW ` + "`a;b`" + `"`,
		`s.sql:6:3 end=123 "DESCRIBE t"`,
	}
	var got []string
	for _, p := range pieces {
		got = append(got, fmt.Sprintf("%s end=%d %q", p.Start, p.End, p.Text))
		if p.Start.Offset+len(p.Text) > p.End || src[p.Start.Offset:p.Start.Offset+len(p.Text)] != p.Text {
			t.Errorf("piece %q is not src[%d:]", p.Text, p.Start.Offset)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Split:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSplit_statementSet(t *testing.T) {
	src := "SET 'a' = 'b';\nEXECUTE STATEMENT SET\nBEGIN\n  INSERT INTO a SELECT * FROM t;\n  INSERT INTO b SELECT * FROM `end`;\nEND;\nSHOW TABLES"
	pieces, err := sqlmini.Split("s.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pieces {
		got = append(got, fmt.Sprintf("%s %q", p.Start, p.Text))
	}
	want := []string{
		`s.sql:1:1 "SET 'a' = 'b'"`,
		"s.sql:2:1 \"EXECUTE STATEMENT SET\\nBEGIN\\n  INSERT INTO a SELECT * FROM t;\\n  INSERT INTO b SELECT * FROM `end`;\\nEND\"",
		`s.sql:7:1 "SHOW TABLES"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Split:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	stmts, err := sqlmini.Parse("s.sql", src)
	if err != nil {
		t.Fatal(err)
	}
	set := stmts[1].StatementSet
	if set == nil || len(set.Inserts) != 2 {
		t.Fatalf("statement 2 = %s, want a statement set of two INSERTs", stmts[1])
	}
	if got := set.Inserts[1].Pos.String(); got != "s.sql:5:3" {
		t.Errorf("second INSERT at %s, want s.sql:5:3", got)
	}
}

func TestSplit_unterminated(t *testing.T) {
	pieces, err := sqlmini.Split("s.sql", "SHOW TABLES;\nSELECT 'x FROM t;")
	if err == nil || err.Error() != "s.sql:2:8: unterminated string" {
		t.Errorf("err = %v, want s.sql:2:8: unterminated string", err)
	}
	if len(pieces) != 1 || pieces[0].Text != "SHOW TABLES" {
		t.Errorf("pieces = %+v, want SHOW TABLES only", pieces)
	}
}

func TestComplete(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"  \n", false},
		{"SELECT 1", false},
		{"SELECT 1;", true},
		{"SELECT 1;  \n", true},
		{"SELECT 1; -- done", true},
		{"SELECT 1; /* done */", true},
		{"SELECT 1; /* not done", false},
		{"SELECT 1; /* not; done;", false},
		{"SELECT 1 -- ;", false},
		{"SELECT ';", false},
		{"SELECT ';'", false},
		{"SELECT ';';", true},
		{"SELECT `a;", false},
		{"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ ; ", false},
		{"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ ; \n a; $$", false},
		{"CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ ; \n a; $$;", true},
		{"SELECT 1; SELECT 2", false},
		{"SELECT #;", true},
		{"SELECT #", false},
		{";", true},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1;", false},
		{"EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND", false},
		{"EXECUTE STATEMENT SET BEGIN\nINSERT INTO a SELECT 1;\nINSERT INTO b SELECT 2;\nEND;", true},
		{"execute statement set begin insert into a select * from end; ", true}, // END is reserved: the block's
		{"execute statement set begin insert into a select * from `end`; ", false},
		{"execute statement set begin insert into a select case when x then 1 end from t; ", false},
		{"EXPLAIN STATEMENT SET BEGIN INSERT INTO a VALUES (1) END;", true},
		{"EXECUTE STATEMNT SET BEGIN INSERT INTO a VALUES (1); INSERT INTO b VALUES (2);", false},
		{"EXPLIAN STATEMENT SET INSERT INTO a VALUES (1);", false},
		{"BEGIN STATEMENT SET;", true}, // the SQL client's: a statement of its own
		{"begin statement set ;", true},
		{"EXECUTE STATEMENT SET BEGIN END; SELECT 1;", true},
		{"EXECUTE INSERT INTO a SELECT 1;", true},
	}
	for _, tt := range tests {
		if got := sqlmini.Complete(tt.in); got != tt.want {
			t.Errorf("Complete(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestParse_nesting(t *testing.T) {
	deep := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	tests := []struct {
		name, in, want string
	}{
		{"parens at the limit", "SELECT " + deep("(", "1", ")", 1000) + " FROM t", ""},
		{"parens past the limit", "SELECT " + deep("(", "1", ")", 1001) + " FROM t", "1:1008: nested more than 1000 levels deep"},
		{"brackets", "SELECT " + deep("ARRAY[", "1", "]", 1001) + " FROM t", "1:6013: nested more than 1000 levels deep"},
		{"nots", "SELECT * FROM t WHERE " + deep("NOT ", "a", "", 1001), "1:4023: nested more than 1000 levels deep"},
		{"types", "CREATE TABLE t (a " + deep("ARRAY<", "INT", ">", 1001) + ")", "1:6018: nested more than 1000 levels deep"},
		{"comparisons do not nest", "SELECT * FROM t WHERE a < 1" + strings.Repeat(" AND a < 1", 1000), ""},
		{"statements do not nest", strings.Repeat("SELECT (((1))) FROM (SELECT ((2)) FROM t);", 400), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlmini.Parse("", tt.in)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("got error %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := sqlmini.ParseType(deep("ARRAY<", "INT", ">", 1001)); err == nil || err.Error() != "1:6006: nested more than 1000 levels deep" {
		t.Errorf("ParseType: got error %v", err)
	}
	if _, err := sqlmini.ParseExpr(deep("-(", "1", ")", 1001)); err == nil || err.Error() != "1:2002: nested more than 1000 levels deep" {
		t.Errorf("ParseExpr: got error %v", err)
	}
}

func TestParseExpr_errors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "1:1: unexpected end of statement (expected a value, a column or an expression)"},
		{"a +", "1:4: unexpected end of statement (expected a value, a column or an expression)"},
		{"a\n  AND 'x", "2:7: unterminated string"},
		{"a ? b", `1:3: unexpected token "?"`},
	}
	for _, tt := range tests {
		_, err := sqlmini.ParseExpr(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseExpr(%q): got error %v, want %s", tt.in, err, tt.want)
		}
	}
}
