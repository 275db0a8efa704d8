package session_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/state"
)

// clRun runs a script in a new session whose relative paths resolve in
// dir (with files written there first), printing rows; errors are printed
// as the REPL prints them and the script goes on.
func clRun(t *testing.T, dir string, files map[string]string, src string) string {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	s, err := session.NewSession(session.Config{Out: &out, Err: &out, Format: "rows", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), "", "SET 'ptfsh.on-error' = 'continue';\n"+src)
	var failed *session.FailedError
	if err != nil && !errors.As(err, &failed) {
		t.Fatal(err)
	}
	return out.String()
}

// firstLines keeps the first line of each error (the caret snippet is
// the session's presentation).
func firstLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, " | ") {
			lines = append(lines, l)
		}
	}
	return lines
}

const scoresView = "CREATE VIEW t(name, score) AS VALUES ('Bob', 12), ('Alice', 42), ('Bob', 14);\n"

func TestSession_groupBy(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"updating values fixture",
			"SELECT name, COUNT(*) FROM (VALUES ('Bob', 12), ('Alice', 42), ('Bob', 14)) AS T(name, score) GROUP BY name;",
			[]string{"+I[Bob, 1]", "+I[Alice, 1]", "-U[Bob, 1]", "+U[Bob, 2]"}},
		{"aggregates",
			scoresView + "SELECT name, COUNT(score), SUM(score), MIN(score), MAX(score), AVG(score) FROM t GROUP BY name;",
			[]string{"+I[Bob, 1, 12, 12, 12, 12]", "+I[Alice, 1, 42, 42, 42, 42]", "-U[Bob, 1, 12, 12, 12, 12]", "+U[Bob, 2, 26, 12, 14, 13]"}},
		{"an unchanged result emits nothing",
			scoresView + "SELECT name, MIN(score) FROM t GROUP BY name;",
			[]string{"+I[Bob, 12]", "+I[Alice, 42]"}},
		{"without GROUP BY, one group",
			scoresView + "SELECT COUNT(*) AS n FROM t;",
			[]string{"+I[1]", "-U[1]", "+U[2]", "-U[2]", "+U[3]"}},
		{"WHERE before grouping, expressions after",
			scoresView + "SELECT UPPER(name) AS u, COUNT(*) * 10 FROM t WHERE score > 12 GROUP BY UPPER(name);",
			[]string{"+I[ALICE, 10]", "+I[BOB, 10]"}},
		{"LIMIT keeps the first groups",
			scoresView + "SELECT name, COUNT(*) FROM t GROUP BY name LIMIT 1;",
			[]string{"+I[Bob, 1]", "-U[Bob, 1]", "+U[Bob, 2]"}},
		{"unknown column",
			scoresView + "SELECT name, COUNT(*) FROM t GROUP BY nme;",
			[]string{"3:39: column 'nme' not found; available columns are: [name, score]"}},
		{"column not grouped",
			scoresView + "SELECT name, score FROM t GROUP BY name;",
			[]string{"3:14: Expression 'score' is not being grouped"}},
		{"star not grouped",
			scoresView + "SELECT * FROM t GROUP BY name;",
			[]string{"3:8: Expression 'score' is not being grouped"}},
		{"nested aggregate",
			scoresView + "SELECT SUM(COUNT(*)) FROM t;",
			[]string{"3:12: Aggregate expressions cannot be nested"}},
		{"aggregate in GROUP BY",
			scoresView + "SELECT name FROM t GROUP BY COUNT(*);",
			[]string{"3:29: Aggregate expression is illegal in GROUP BY clause"}},
		{"SUM of a string",
			scoresView + "SELECT SUM(name) FROM t;",
			[]string{"3:8: Cannot apply 'SUM' to arguments of type 'SUM(<VARCHAR(5)>)'. Supported form(s): 'SUM(<NUMERIC>)'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := firstLines(clRun(t, t.TempDir(), nil, tt.src))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSession_changelogSource(t *testing.T) {
	files := map[string]string{
		"t.csv":    "+I,Bob,5\n+I,Alice,2\n+U,Bob,3\n-D,Bob,\n+I,Bob,2\n-D,Alice,\n",
		"t.json":   `{"name":"Alice","score":1,"op":"INSERT"}` + "\n" + `{"name":"Bob","score":2,"op":"+I"}` + "\n" + `{"op":"DELETE","name":"Bob","score":99}` + "\n",
		"bad.csv":  "Bob,+I,5\n\n\"x,y\",??,1\n",
		"ub.csv":   "+I,Bob,5\n-U,Bob,5\n",
		"bad.json": "[{\"name\":\"Bob\", \"op\":\"+I\", \"n\":1},\n  {\"name\":\"Al\", \"op\" : \"??\", \"n\":1}]",
		"null.csv": "+I,Bob,\n",
	}
	const opts = "'connector' = 'filesystem', 'format' = 'csv', 'changelog.op-column' = 'op'"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"kinds from the op column, deletes by key",
			"CREATE TABLE t (op STRING, name STRING PRIMARY KEY NOT ENFORCED, score INT NOT NULL) WITH (" + opts + ", 'path' = 't.csv', 'changelog-mode' = 'I,UA,D', 'source.produces-delete-by-key' = 'true');\nSELECT * FROM t;",
			// normalized for the printer, as Flink's ChangelogNormalize: deletes carry their rows
			[]string{"+I[Bob, 5]", "+I[Alice, 2]", "-U[Bob, 5]", "+U[Bob, 3]", "-D[Bob, 3]", "+I[Bob, 2]", "-D[Alice, 2]"}},
		{"json, op column anywhere, names of kinds",
			"CREATE TABLE t (name STRING, score INT, op STRING, PRIMARY KEY (name) NOT ENFORCED) WITH ('connector' = 'filesystem', 'format' = 'json', 'path' = 't.json', 'changelog.op-column' = 'op', 'source.produces-delete-by-key' = 'true');\nSELECT * FROM t;",
			[]string{"+I[Alice, 1]", "+I[Bob, 2]", "-D[Bob, 2]"}},
		{"AS VALUES",
			"CREATE TABLE t (op STRING, name STRING, n INT) WITH ('changelog.op-column' = 'op') AS VALUES ('+I', 'Bob', 1), ('-U', 'Bob', 1), ('+U', 'Bob', 2), ('-D', 'Bob', 2);\nSELECT * FROM t;",
			[]string{"+I[Bob, 1]", "-U[Bob, 1]", "+U[Bob, 2]", "-D[Bob, 2]"}},
		{"AS VALUES upsert source: its PRIMARY KEY fills deletes by key",
			"CREATE TABLE t (op STRING, k STRING PRIMARY KEY NOT ENFORCED, v INT NOT NULL) WITH ('changelog.op-column' = 'op', 'source.produces-delete-by-key' = 'true') AS VALUES ('+I', 'a', 1), ('+U', 'a', 2), ('-D', 'a', NULL);\nSELECT SUM(v) FROM t;",
			[]string{"+I[1]", "-D[1]", "+I[2]", "-D[2]"}},
		{"GROUP BY over deletes by key",
			"CREATE TABLE t (op STRING, name STRING PRIMARY KEY NOT ENFORCED, score INT NOT NULL) WITH (" + opts + ", 'path' = 't.csv', 'source.produces-delete-by-key' = 'true');\nSELECT COUNT(*), SUM(score) FROM t;",
			[]string{"+I[1, 5]", "-U[1, 5]", "+U[2, 7]", "-U[2, 7]", "+U[1, 2]", "-U[1, 2]", "+U[2, 5]", "-U[2, 5]", "+U[1, 2]",
				"-U[1, 2]", "+U[2, 4]", "-U[2, 4]", "+U[1, 2]"}},
		{"invalid op code at its line and column",
			"CREATE TABLE t (name STRING, op STRING, n INT) WITH (" + opts + ", 'path' = 'bad.csv');\nSELECT * FROM t;",
			[]string{"+I[Bob, 5]", "3:15: bad.csv:3:7: column \"op\": invalid op code '??': a row kind is +I, -U, +U, -D (or INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)"}},
		{"invalid op code in a JSON array",
			"CREATE TABLE t (name STRING, op STRING, n INT) WITH ('connector' = 'filesystem', 'format' = 'json', 'changelog.op-column' = 'op', 'path' = 'bad.json');\nSELECT * FROM t;",
			[]string{"+I[Bob, 1]", "3:15: bad.json:2:24: column \"op\": invalid op code '??': a row kind is +I, -U, +U, -D (or INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)"}},
		{"undeclared kind",
			"CREATE TABLE t (op STRING, name STRING PRIMARY KEY NOT ENFORCED, n INT) WITH (" + opts + ", 'path' = 'ub.csv');\nSELECT * FROM t;",
			[]string{"+I[Bob, 5]", "3:15: ub.csv:2:1: column \"op\": row kind -U (UPDATE_BEFORE) is not in the changelog mode [INSERT, UPDATE_AFTER, DELETE] of table 't'; declare it in 'changelog-mode' (now 'I,UA,D')"}},
		{"NULL in a NOT NULL column of an insert",
			"CREATE TABLE t (op STRING, name STRING PRIMARY KEY NOT ENFORCED, n INT NOT NULL) WITH (" + opts + ", 'path' = 'null.csv', 'source.produces-delete-by-key' = 'true');\nSELECT * FROM t;",
			[]string{"3:15: null.csv:1:8: column \"n\": NULL in a NOT NULL column (only a delete of 'source.produces-delete-by-key' leaves it NULL)"}},
		{"upsert mode needs a key",
			"CREATE TABLE t (op STRING, n INT) WITH (" + opts + ", 'path' = 't.csv', 'changelog-mode' = 'I,UA');",
			[]string{"2:135: Table 't' produces a changelog stream contains UPDATE_AFTER, no UPDATE_BEFORE. This requires to define primary key constraint on the table."}},
		{"unknown op column",
			"CREATE TABLE t (n INT) WITH (" + opts + ", 'path' = 't.csv');",
			[]string{"2:76: 'changelog.op-column' names 'op', which is not a column of t: [n]"}},
		{"bad mode",
			"CREATE TABLE t (op STRING, n INT) WITH (" + opts + ", 'path' = 't.csv', 'changelog-mode' = 'I,U');",
			[]string{"2:135: invalid 'changelog-mode' value 'I,U': give kinds I, UB, UA and D separated by commas, e.g. 'I,UA,D'"}},
		{"VALUES with a bad op",
			"CREATE TABLE t (op STRING, n INT) WITH ('changelog.op-column' = 'op') AS VALUES ('+I', 1), ('~', 2);",
			[]string{"2:93: invalid op code '~': a row kind is +I, -U, +U, -D (or INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := firstLines(clRun(t, t.TempDir(), files, tt.src))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSession_insert(t *testing.T) {
	dir := t.TempDir()
	out := clRun(t, dir, nil, scoresView+`
CREATE TABLE plain (name STRING, score BIGINT) WITH ('connector' = 'filesystem', 'path' = 'plain.csv', 'format' = 'csv', 'csv.header' = 'true');
CREATE TABLE counts (op STRING, name STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'counts.json', 'format' = 'json', 'changelog.op-column' = 'op');
INSERT INTO plain SELECT * FROM t;
INSERT INTO plain SELECT name, COUNT(*) FROM t GROUP BY name;
EXECUTE STATEMENT SET BEGIN
  INSERT INTO counts SELECT name, COUNT(*) FROM t GROUP BY name;
  INSERT INTO plain SELECT name, score FROM t WHERE score > 40;
END;
SELECT * FROM counts;
`)
	wantOut := []string{
		"[INFO] Complete execution of the SQL update statement: 3 rows written to table 'plain' ('plain.csv').",
		"7:13: Table sink 'plain' doesn't support consuming update changes which is produced by node GroupAggregate(groupBy=[name], select=[name, COUNT(*) AS EXPR$1]); give the table an op column ('changelog.op-column') to write them with their row kinds",
		"[INFO] Complete execution of the SQL update statement: 4 rows written to table 'counts' ('counts.json').",
		"[INFO] Complete execution of the SQL update statement: 1 row written to table 'plain' ('plain.csv').",
		"+I[Bob, 1]", "+I[Alice, 1]", "-U[Bob, 1]", "+U[Bob, 2]",
	}
	if diff := cmp.Diff(wantOut, firstLines(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	files := map[string]string{
		"plain.csv":   "name,score\nBob,12\nAlice,42\nBob,14\nAlice,42\n",
		"counts.json": `{"op":"+I","name":"Bob","n":1}` + "\n" + `{"op":"+I","name":"Alice","n":1}` + "\n" + `{"op":"-U","name":"Bob","n":1}` + "\n" + `{"op":"+U","name":"Bob","n":2}` + "\n",
	}
	for name, want := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(b)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestSession_insert_errors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"column count",
			"INSERT INTO s SELECT name FROM t;",
			[]string{"4:13: Column types of query result and sink for 's' do not match. Cause: Different number of columns. Query schema: [name: VARCHAR(5) NOT NULL] Sink schema: [name: STRING, score: INT NOT NULL]"}},
		{"column types",
			"INSERT INTO s SELECT score, name FROM t;",
			[]string{"4:13: Column types of query result and sink for 's' do not match. Cause: Incompatible types for sink column 'name' at position 0. Query schema: [score: INT NOT NULL, name: VARCHAR(5) NOT NULL] Sink schema: [name: STRING, score: INT NOT NULL]"}},
		{"not null",
			"INSERT INTO s VALUES ('x', CAST(NULL AS INT));",
			[]string{"4:13: Column 'score' is NOT NULL, however, a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP' to suppress this exception and drop such records silently."}},
		{"not a file table",
			"INSERT INTO t SELECT * FROM t;",
			[]string{"4:13: INSERT INTO writes file tables ('connector' = 'filesystem'), and 't' is a view"}},
		{"reading what it writes",
			"INSERT INTO s SELECT * FROM s;",
			[]string{"4:13: INSERT INTO 's' reads the table it writes ('s.csv'); write to another table"}},
		{"unknown table",
			"INSERT INTO sinks SELECT * FROM t;",
			[]string{"4:13: Object 'sinks' not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := scoresView + "CREATE TABLE s (name STRING, score INT NOT NULL) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');\n" + tt.src
			got := firstLines(clRun(t, t.TempDir(), nil, src))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// A statement that fails writes none of its rows (none was checkpointed),
// and a later INSERT appends after what the earlier ones wrote.
func TestSession_insert_rollsBack(t *testing.T) {
	dir := t.TempDir()
	store := state.NewMem()
	var out bytes.Buffer
	s, err := session.NewSession(session.Config{Out: &out, Err: &out, Format: "rows", BaseDir: dir, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	src := `CREATE TABLE s (n INT NOT NULL) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
INSERT INTO s VALUES (1), (2);`
	if err := s.Exec(context.Background(), "", src); err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(context.Background(), "", "INSERT INTO s VALUES (3), (CAST(NULL AS INT));"); err == nil {
		t.Fatal("no error for a NULL in a NOT NULL column")
	}
	if err := s.Exec(context.Background(), "", "INSERT INTO s VALUES (4);"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "1\n2\n4\n"; got != want {
		t.Errorf("s.csv = %q, want %q", got, want)
	}
}
