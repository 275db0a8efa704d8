package flink_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/export/flink"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// fakeRunner records the statements it is given and answers each query
// with the rows results holds for its text.
type fakeRunner struct {
	ran     []string
	results map[string][]types.Row
	fail    string // a statement text that fails
}

var oneColumn = types.Schema{Columns: []types.Column{{Name: "EXPR$0", Type: types.TypeString}}}

func (r *fakeRunner) Exec(_ context.Context, st *sqlmini.Statement) error {
	r.ran = append(r.ran, st.Text)
	if st.Text == r.fail {
		return errors.New("failed: " + st.Text)
	}
	return nil
}

func (r *fakeRunner) Query(_ context.Context, st *sqlmini.Statement) (types.Schema, []types.Row, error) {
	r.ran = append(r.ran, st.Text)
	if st.Text == r.fail {
		return types.Schema{}, nil, errors.New("failed: " + st.Text)
	}
	return oneColumn, r.results[st.Text], nil
}

func TestCases(t *testing.T) {
	const script = `CREATE FUNCTION Mine AS 'mine.js';
CREATE FUNCTION Other AS 'other.js';
CREATE VIEW v(name) AS VALUES ('Bob'), ('Alice');
SELECT * FROM Mine(TABLE v);
SELECT * FROM other(TABLE v);
SELECT * FROM Mine(TABLE (SELECT * FROM Other(TABLE v)));
WITH w AS (SELECT * FROM OTHER(TABLE v)) SELECT * FROM w;
SELECT Other(name) FROM v;
SELECT 'Other(' AS s FROM Mine(input => TABLE v);
CREATE VIEW bad AS SELECT * FROM Other(TABLE v);
CREATE VIEW worse AS SELECT * FROM bad;
SELECT * FROM Mine(TABLE worse);
WITH bad AS (SELECT * FROM v) SELECT * FROM Mine(TABLE bad);
DROP VIEW v;
CREATE TABLE v (name STRING) AS VALUES ('Carol');
SET 'ptfsh.format' = 'csv';
SELECT * FROM Mine(TABLE v);
`
	r := &fakeRunner{results: map[string][]types.Row{
		"SELECT * FROM Mine(TABLE v)": {
			{Kind: types.Insert, Fields: []any{"Hello Bob"}},
			{Kind: types.UpdateBefore, Fields: []any{"Hello Bob"}},
			{Kind: types.UpdateAfter, Fields: []any{nil}},
		},
	}}
	var notes bytes.Buffer
	data := t.TempDir()
	cases, err := flink.Cases(context.Background(), r, flink.Script{Path: "s.sql", Source: script, Name: "mine", File: "/abs/mine.js", Notes: &notes, DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	const view = "CREATE VIEW v(name) AS VALUES ('Bob'), ('Alice')"
	want := []flink.Case{
		{Name: "case01", Statements: []string{view, "SELECT * FROM Mine(TABLE v)"},
			Rows: []string{"+I[Hello Bob]", "-U[Hello Bob]", "+U[null]"}},
		{Name: "case02", Statements: []string{view, "SELECT 'Other(' AS s FROM Mine(input => TABLE v)"}, Rows: []string{}},
		{Name: "case03", Statements: []string{view, "WITH bad AS (SELECT * FROM v) SELECT * FROM Mine(TABLE bad)"}, Rows: []string{}},
		// A table of inline VALUES is read by Flink from the JSON lines
		// ptfsh wrote (below).
		{Name: "case04", Statements: []string{"CREATE TABLE v (name STRING) WITH ('connector' = 'filesystem', 'path' = 'data/Mine_v_" + crc("mine\x00v") + ".json', " +
			"'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601')", "SELECT * FROM Mine(TABLE v)"},
			Rows: []string{"+I[Hello Bob]", "-U[Hello Bob]", "+U[null]"}},
	}
	if d := cmp.Diff(want, cases); d != "" {
		t.Errorf("cases (-want +got):\n%s", d)
	}
	wantNotes := `note: s.sql:5: skipped, it calls Other, which is not exported with mine
note: s.sql:6: skipped, it calls Other, which is not exported with mine
note: s.sql:7: skipped, it calls Other, which is not exported with mine
note: s.sql:8: skipped, it calls Other, which is not exported with mine
note: s.sql:12: skipped, it reads view worse, which calls Other, which is not exported with mine
`
	if d := cmp.Diff(wantNotes, notes.String()); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	// Everything but the skipped SELECTs ran in ptfsh, in order; Mine is
	// created by the script, so Cases registered nothing.
	skipped := map[int]bool{5: true, 6: true, 7: true, 8: true, 12: true}
	var ran []string
	for _, p := range sqlmini.ParseEach("s.sql", script) {
		if !skipped[p.Stmt.Pos.Line] {
			ran = append(ran, p.Stmt.Text)
		}
		if p.Stmt.Pos.Line == 15 { // CREATE TABLE v ... AS VALUES: its rows go to a file
			sink := "CREATE TEMPORARY TABLE ptfsh_export_v (name STRING) WITH ('connector' = 'filesystem', 'path' = '" +
				filepath.Join(data, "Mine_v_"+crc("mine\x00v")+".json") + "', 'format' = 'json')"
			ran = append(ran, sink, "INSERT INTO ptfsh_export_v SELECT * FROM v", "DROP TEMPORARY TABLE ptfsh_export_v")
		}
	}
	if d := cmp.Diff(ran, r.ran); d != "" {
		t.Errorf("statements run (-want +got):\n%s", d)
	}
}

func crc(name string) string { return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(name))) }

// TestCases_tables: how the tables of a script reach Flink. A relative
// file path is made absolute against the script's folder; a datagen
// table, and VALUES with WATERMARK steps, have no Flink equivalent that
// gives ptfsh's rows, so the SELECTs that read them (also through a
// view) are left out with a note.
func TestCases_tables(t *testing.T) {
	const script = `CREATE FUNCTION F AS 'f.js';
CREATE TABLE files (name STRING, ` + "`date`" + ` DATE -- a (comment) ')
) WITH ('connector' = 'filesystem', 'path' = 'data/x.csv', 'format' = 'csv');
SELECT * FROM F(TABLE files);
CREATE TABLE gen (name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT * FROM F(TABLE gen);
CREATE TABLE steps (name STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) AS VALUES ('a', TIMESTAMP '2025-01-01 00:00:00'), WATERMARK TIMESTAMP '2025-01-01 00:01:00';
CREATE VIEW stepped AS SELECT * FROM steps;
SELECT * FROM F(TABLE stepped);
CREATE TABLE hdr (name STRING) WITH ('connector' = 'filesystem', 'path' = 'h.csv', 'format' = 'csv', 'csv.header' = 'true');
SELECT * FROM F(TABLE hdr);
CREATE TABLE cl (name STRING) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv', 'changelog.op-column' = 'op');
SELECT * FROM F(TABLE cl);
CREATE VIEW nulls(a, b) AS VALUES (1, NULL), (2, CAST(NULL AS INT));
SELECT * FROM F(TABLE nulls);
CREATE VIEW selnull AS SELECT NULL AS x;
SELECT * FROM F(TABLE selnull);
`
	r := &fakeRunner{}
	var notes bytes.Buffer
	cases, err := flink.Cases(context.Background(), r, flink.Script{Path: "s.sql", Source: script, Name: "F", Notes: &notes, Dir: "/scripts", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	want := []flink.Case{{Name: "case01", Statements: []string{
		"CREATE TABLE files (name STRING, `date` DATE -- a (comment) ')\n) WITH ('connector' = 'filesystem', 'path' = '/scripts/data/x.csv', 'format' = 'csv')",
		"SELECT * FROM F(TABLE files)"}, Rows: []string{}},
		// Flink's csv format has no header line: ptfsh rewrites the rows.
		{Name: "case02", Statements: []string{
			"CREATE TABLE files (name STRING, `date` DATE -- a (comment) ')\n) WITH ('connector' = 'filesystem', 'path' = '/scripts/data/x.csv', 'format' = 'csv')",
			"CREATE TABLE hdr (name STRING) WITH ('connector' = 'filesystem', 'path' = 'data/F_hdr_" + crc("F\x00hdr") + ".json', 'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601')",
			"SELECT * FROM F(TABLE hdr)"}, Rows: []string{}},
	}
	if d := cmp.Diff(want, cases); d != "" {
		t.Errorf("cases (-want +got):\n%s", d)
	}
	wantNotes := `note: s.sql:6: skipped, it reads gen, a datagen table, whose random values on Flink are not ptfsh's
note: s.sql:9: skipped, it reads stepped, which reads steps, whose VALUES hold WATERMARK steps, which Flink has no equivalent for
note: s.sql:13: skipped, it reads cl, a changelog file table ('changelog.op-column'), which Flink's filesystem connector does not read
note: s.sql:15: skipped, it reads nulls, a view whose VALUES or SELECT list hold an untyped NULL, which Flink refuses ('Illegal use of 'NULL''; CAST(NULL AS type) works in both)
note: s.sql:17: skipped, it reads selnull, a view whose VALUES or SELECT list hold an untyped NULL, which Flink refuses ('Illegal use of 'NULL''; CAST(NULL AS type) works in both)
`
	if d := cmp.Diff(wantNotes, notes.String()); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
}

// TestCases_registers: a script that does not create the exported
// function gets it registered first, by a statement built as a syntax
// tree, so that a crafted name or path stays one name and one string.
func TestCases_registers(t *testing.T) {
	for _, name := range []string{"Greeting", "f`; DROP TABLE x; --", "it's\n'; DROP TABLE y; --"} {
		r := &fakeRunner{}
		src := "SELECT * FROM " + sqlmini.QuoteIdent(name) + "(TABLE t);"
		file := "/tmp/o'clock/`g`.js"
		cases, err := flink.Cases(context.Background(), r, flink.Script{Path: "s.sql", Source: src, Name: name, File: file})
		if err != nil {
			t.Fatal(err)
		}
		if len(cases) != 1 || len(r.ran) != 2 {
			t.Fatalf("%q: %d cases, ran %q", name, len(cases), r.ran)
		}
		pieces, err := sqlmini.Split("", r.ran[0])
		if err != nil || len(pieces) != 1 {
			t.Fatalf("%q: the registration %q is %d statements (%v)", name, r.ran[0], len(pieces), err)
		}
		st, err := sqlmini.ParseStatement("", r.ran[0])
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		f := st.Create.Function
		if !st.Create.Temporary || string(f.Name.Value) != name || f.Path == nil || string(*f.Path) != file {
			t.Errorf("%q: registered %q", name, r.ran[0])
		}
	}
}

func TestCases_errors(t *testing.T) {
	for _, tc := range []struct{ name, src, fail, want string }{
		{"parse error", "CREATE VIEW v AS VALUES (1);\nSELEKT 1;\nSELECT * FROM F(TABLE v);", "", "s.sql:3:1"},
		{"statement fails", "CREATE VIEW v AS VALUES (1);\nSELECT * FROM F(TABLE v);", "CREATE VIEW v AS VALUES (1)", "failed: CREATE VIEW"},
		{"query fails", "CREATE VIEW v AS VALUES (1);\nSELECT * FROM F(TABLE v);", "SELECT * FROM F(TABLE v)", "failed: SELECT"},
		{"on-error reset", "SET 'ptfsh.on-error' = 'continue';\nRESET 'ptfsh.on-error';\nSELECT * FROM F(TABLE v);", "SELECT * FROM F(TABLE v)", "failed: SELECT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeRunner{fail: tc.fail}
			_, err := flink.Cases(context.Background(), r, flink.Script{Path: "s.sql", Source: "CREATE FUNCTION F AS 'f.js';\n" + tc.src, Name: "F"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestCases_onErrorContinue: after SET 'ptfsh.on-error' = 'continue', a
// statement that fails in ptfsh is left out with a note and the script
// goes on, as ptfsh runs it (the quickstart ends with a deliberate error).
func TestCases_onErrorContinue(t *testing.T) {
	const script = `CREATE FUNCTION F AS 'f.js';
SET 'ptfsh.on-error' = 'continue';
CREATE VIEW bad AS SELECT nope FROM nowhere;
SELECT * FROM F(TABLE bad);
CREATE VIEW v AS VALUES (1);
SELECT * FROM F(TABLE v);
`
	r := &fakeRunner{fail: "CREATE VIEW bad AS SELECT nope FROM nowhere"}
	r2 := &failingQueries{fakeRunner: r, fail: "SELECT * FROM F(TABLE bad)"}
	var notes bytes.Buffer
	cases, err := flink.Cases(context.Background(), r2, flink.Script{Path: "s.sql", Source: script, Name: "F", Notes: &notes})
	if err != nil {
		t.Fatal(err)
	}
	want := []flink.Case{{Name: "case01", Statements: []string{"CREATE VIEW v AS VALUES (1)", "SELECT * FROM F(TABLE v)"}, Rows: []string{}}}
	if d := cmp.Diff(want, cases); d != "" {
		t.Errorf("cases (-want +got):\n%s", d)
	}
	wantNotes := `note: s.sql:3: left out, it fails in ptfsh ('ptfsh.on-error' is 'continue'): failed: CREATE VIEW bad AS SELECT nope FROM nowhere
note: s.sql:4: left out, it fails in ptfsh ('ptfsh.on-error' is 'continue'): failed: SELECT * FROM F(TABLE bad)
`
	if d := cmp.Diff(wantNotes, notes.String()); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
}

// TestCases_interleaved: a function of two table arguments gives no case
// (Flink interleaves its inputs as rows arrive); other SELECTs still do.
func TestCases_interleaved(t *testing.T) {
	const script = `CREATE FUNCTION F AS 'f.js';
CREATE VIEW a AS VALUES (1);
SELECT * FROM a;
SELECT * FROM f(TABLE a PARTITION BY EXPR$0, TABLE a PARTITION BY EXPR$0);
`
	var notes bytes.Buffer
	cases, err := flink.Cases(context.Background(), &fakeRunner{}, flink.Script{Path: "s.sql", Source: script, Name: "F", Notes: &notes, Interleaved: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || cases[0].Statements[1] != "SELECT * FROM a" {
		t.Errorf("cases = %+v, want only SELECT * FROM a", cases)
	}
	if want := "note: s.sql:4: skipped, F reads two tables, whose rows Flink interleaves as they arrive (ptfsh in a fixed order), so its rows may differ\n"; notes.String() != want {
		t.Errorf("notes = %q, want %q", notes.String(), want)
	}
}

// failingQueries fails one more statement than its fakeRunner.
type failingQueries struct {
	*fakeRunner
	fail string
}

func (r *failingQueries) Query(ctx context.Context, st *sqlmini.Statement) (types.Schema, []types.Row, error) {
	if st.Text == r.fail {
		return types.Schema{}, nil, errors.New("failed: " + st.Text)
	}
	return r.fakeRunner.Query(ctx, st)
}

func TestFunctionName(t *testing.T) {
	for _, tc := range []struct{ file, script, src, want string }{
		{"/x/greeting_with_memory.js", "", "", "GreetingWithMemory"},
		{"/x/long-views.v2.js", "", "", "LongViewsV2"},
		{"/x/g.js", "/x/s.sql", "CREATE FUNCTION `my fn` AS 'g.js';", "my fn"},
		{"/x/g.js", "/x/s.sql", "CREATE FUNCTION other AS 'h.js';\nCREATE FUNCTION mine AS '/x/g.js';", "mine"},
		{"/x/g.js", "/x/s.sql", "CREATE FUNCTION other AS 'sub/g.js';", "G"},
	} {
		if got := flink.FunctionName(tc.file, tc.script, tc.src); got != tc.want {
			t.Errorf("FunctionName(%q, %q) = %q, want %q", tc.file, tc.src, got, tc.want)
		}
	}
}

// TestCases_flinkReserved: names that Flink reserves and ptfsh does not
// (a column user, value, a view sum) reach Flink in backquotes, in every
// statement of a case (the table's columns, with its options rewritten
// or not, a view, the SELECT); names already quoted, function names, and
// words in strings and comments stay as written.
func TestCases_flinkReserved(t *testing.T) {
	const script = `CREATE FUNCTION F AS 'f.js';
CREATE TABLE t (user STRING, value INT, ` + "`year`" + ` INT) WITH ('connector' = 'filesystem', 'path' = 'data/x.csv', 'format' = 'csv');
CREATE VIEW sum AS SELECT user, value, UPPER(user) AS u, 'user' AS s FROM t -- value
;
SELECT * FROM F(input => TABLE sum PARTITION BY user);
CREATE TABLE h (user STRING) WITH ('connector' = 'filesystem', 'path' = 'h.csv', 'format' = 'csv', 'csv.header' = 'true');
SELECT value FROM F(TABLE h PARTITION BY user);
`
	r := &fakeRunner{}
	cases, err := flink.Cases(context.Background(), r, flink.Script{Path: "s.sql", Source: script, Name: "F", Dir: "/scripts", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	table := "CREATE TABLE t (`user` STRING, `value` INT, `year` INT) WITH ('connector' = 'filesystem', 'path' = '/scripts/data/x.csv', 'format' = 'csv')"
	want := []flink.Case{
		{Name: "case01", Statements: []string{table,
			"CREATE VIEW `sum` AS SELECT `user`, `value`, UPPER(`user`) AS u, 'user' AS s FROM t -- value\n",
			"SELECT * FROM F(input => TABLE `sum` PARTITION BY `user`)"}, Rows: []string{}},
		{Name: "case02", Statements: []string{table,
			"CREATE VIEW `sum` AS SELECT `user`, `value`, UPPER(`user`) AS u, 'user' AS s FROM t -- value\n",
			"CREATE TABLE h (`user` STRING) WITH ('connector' = 'filesystem', 'path' = 'data/F_h_" + crc("F\x00h") + ".json', 'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601')",
			"SELECT `value` FROM F(TABLE h PARTITION BY `user`)"}, Rows: []string{}},
	}
	if d := cmp.Diff(want, cases); d != "" {
		t.Errorf("cases (-want +got):\n%s", d)
	}
}

// TestCases_batchMode checks that a case the script runs in batch mode
// starts with SET 'execution.runtime-mode' = 'batch', and that RESET
// goes back to streaming mode.
func TestCases_batchMode(t *testing.T) {
	const script = `CREATE FUNCTION Mine AS 'mine.js';
CREATE VIEW v(name) AS VALUES ('Bob');
SELECT * FROM Mine(TABLE v);
SET 'execution.runtime-mode' = 'BATCH';
SELECT name, COUNT(*) AS n FROM v GROUP BY name;
RESET 'execution.runtime-mode';
SELECT name FROM v;
`
	r := &fakeRunner{results: map[string][]types.Row{}}
	cases, err := flink.Cases(context.Background(), r, flink.Script{Path: "s.sql", Source: script, Name: "mine", File: "/abs/mine.js", Notes: &bytes.Buffer{}, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const view = "CREATE VIEW v(name) AS VALUES ('Bob')"
	var got [][]string
	var batch []bool
	for _, c := range cases {
		got = append(got, c.Statements)
		batch = append(batch, c.Batch())
	}
	want := [][]string{
		{view, "SELECT * FROM Mine(TABLE v)"},
		{flink.BatchMode, view, "SELECT name, COUNT(*) AS n FROM v GROUP BY name"},
		{view, "SELECT name FROM v"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, true, false}, batch); diff != "" {
		t.Errorf("Batch (-want +got):\n%s", diff)
	}
}
