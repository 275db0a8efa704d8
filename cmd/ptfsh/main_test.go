package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/session"
)

// TestMain removes the ptfsh binary the tests built (ptfshBinary) after
// every test, so that test runs do not fill the temporary folder.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun_exec(t *testing.T) {
	code, out, errs := runCmd(t, "", "--format", "rows", "-e", "CREATE VIEW v(a, b) AS VALUES (1, 'x'), (2, 'y'); SELECT b, a FROM v WHERE a > 1;")
	if code != 0 || out != "+I[y, 2]\n" || errs != "" {
		t.Fatalf("code %d, out %q, err %q", code, out, errs)
	}
}

// TestRun_traceFilters: --trace-key, --trace-function and --trace-late
// narrow the trace and turn it on.
func TestRun_traceFilters(t *testing.T) {
	script := `CREATE FUNCTION f LANGUAGE JAVASCRIPT AS $$ export default { output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, s, { r }) { ctx.collect(r.k); } }; $$;
CREATE TABLE t (k STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)
AS VALUES ('a', 1000), ('b', 3000), ('a', 2000);
SELECT * FROM f(r => TABLE t PARTITION BY k, on_time => DESCRIPTOR(ts));`
	for _, tt := range []struct {
		flags []string
		evals int
		want  string
	}{
		{[]string{"--trace"}, 3, "trace f watermark 1970-01-01 00:00:01 → 1970-01-01 00:00:03 (after row 2 of t)"},
		{[]string{"--trace-key", "b"}, 1, "trace f eval key (b)"},
		{[]string{"--trace-function", "g"}, 0, ""},
		{[]string{"--trace-late"}, 1, "  late: ts 1970-01-01 00:00:02 < watermark 1970-01-01 00:00:03\n"},
	} {
		code, _, errs := runCmd(t, "", append(tt.flags, "--format", "rows", "-e", script)...)
		if code != 0 || strings.Count(errs, "eval key") != tt.evals || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: code %d, %d evals traced, want %d with %q:\n%s", tt.flags, code, strings.Count(errs, "eval key"), tt.evals, tt.want, errs)
		}
	}
}

func TestRun_fileStopsAtFirstError(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "bad.sql")
	src := "CREATE VIEW v(a) AS VALUES (1);\n\nSELECT * FROM nowhere;\nSELECT * FROM v;\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmd(t, "", "-f", script)
	if code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if out != "" {
		t.Errorf("the statement after the error ran: %q", out)
	}
	want := script + ":3:15: Object 'nowhere' not found\n | SELECT * FROM nowhere;\n |               ^\n"
	if errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
}

func TestRun_replGoesOnAfterErrors(t *testing.T) {
	in := "SELECT * FROM nowhere;\nCREATE VIEW v(a) AS\n  VALUES (1), (2);\nSELECT *\nFROM v; SELECT oops FROM v;\n"
	code, out, errs := runCmd(t, in, "--format", "rows")
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if out != "+I[1]\n+I[2]\n" {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errs, "1:15: Object 'nowhere' not found") || !strings.Contains(errs, "column 'oops' not found") {
		t.Errorf("stderr %q", errs)
	}
}

func TestRun_badFlags(t *testing.T) {
	if code, _, errs := runCmd(t, "", "--format", "xml", "-e", "SHOW TABLES;"); code != 2 || !strings.Contains(errs, "unknown format") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
	if code, _, _ := runCmd(t, "", "stray"); code != 2 {
		t.Errorf("a stray argument: code %d, want 2", code)
	}
}

func TestRun_stateFileKeepsState(t *testing.T) {
	dir := t.TempDir()
	fn := filepath.Join(dir, "count.js")
	if err := os.WriteFile(fn, []byte(`export default {
  output: "BIGINT",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { c: { default: { n: 0 } } },
  eval(ctx, { c }) { c.n++; ctx.collect(c.n); },
};`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "state.db")
	// Stopped without end of input, as a savepoint, the next run continues;
	// a run that read its input to the end leaves the next one a fresh start.
	stmts := "SET 'ptfsh.end-of-input' = 'false'; CREATE FUNCTION count AS '" + fn + "'; CREATE VIEW v(k) AS VALUES ('a'), ('a'); SELECT * FROM count(TABLE v PARTITION BY k);"
	finished := "CREATE FUNCTION count AS '" + fn + "'; CREATE VIEW v(k) AS VALUES ('a'), ('a'); SELECT * FROM count(TABLE v PARTITION BY k);"
	var outs []string
	for i, src := range []string{stmts, stmts, finished, finished} {
		code, out, errs := runCmd(t, "", "--state", db, "--format", "rows", "-e", src)
		if code != 0 {
			t.Fatalf("run %d: code %d: %s", i, code, errs)
		}
		outs = append(outs, out)
	}
	want := []string{"+I[a, 1]\n+I[a, 2]\n", "+I[a, 3]\n+I[a, 4]\n", "+I[a, 5]\n+I[a, 6]\n", "+I[a, 1]\n+I[a, 2]\n"}
	for i := range want {
		if outs[i] != want[i] {
			t.Errorf("run %d printed %q, want %q", i+1, outs[i], want[i])
		}
	}
}

func TestCompleter_Do(t *testing.T) {
	sess, err := session.NewSession(session.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Exec(context.Background(), "", "CREATE VIEW clicks(a) AS VALUES (1); CREATE VIEW `my orders`(order_id, ordered_at) AS VALUES (1, 2);"); err != nil {
		t.Fatal(err)
	}
	earlier := ""
	c := completer{cat: sess.Catalog(), typed: func() string { return earlier }}
	tests := []struct {
		line string
		want []string
	}{
		{"SELECT * FROM cl", []string{"icks"}},
		{"sel", []string{"ect"}},
		{"SEL", []string{"ECT"}},
		{"SELECT * FROM f(u", []string{"ser", "nion", "nknown", "nix_timestamp", "pper", "rl_decode", "rl_encode", "id =>"}},
		{"SELECT SUBS", []string{"TR", "TRING"}},
		{"SELECT ", nil},
		{"SET 'state.cache-s", []string{"ize'"}},
		{"set 'ptfsh.t", []string{"imeline'", "imeline.view'", "imers.max-firings'", "race'", "race.function'", "race.key'", "race.late'"}},
		{"RESET 'table.exec.s", []string{"ink.not-null-enforcer'", "ource.idle-timeout'", "tate.ttl'"}},
		{"SET 'ptfsh.trace' = '", []string{"on'", "off'"}},
		{"SET 'state.on-incompatible' = 'd", []string{"iscard'"}},
		{"SET 'state.cache-size' = '", nil},
		{"SET 'nothing", nil},
		// Columns of the tables and views the statement names.
		{"SELECT ordere", nil},
		{"SELECT * FROM `my orders` WHERE ordere", []string{"d_at"}},
	}
	for _, tt := range tests {
		got, n := c.Do([]rune(tt.line), len([]rune(tt.line)))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if strings.Join(gs, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Do(%q) = %q (%d), want %q", tt.line, gs, n, tt.want)
		}
	}
}

// TestCompleter_columnsOfEarlierLines: a table named on a line typed
// before the one being edited gives its columns too.
func TestCompleter_columnsOfEarlierLines(t *testing.T) {
	sess, err := session.NewSession(session.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Exec(context.Background(), "", "CREATE VIEW visits(visitor, visited_at) AS VALUES ('a', 1);"); err != nil {
		t.Fatal(err)
	}
	earlier := ""
	c := completer{cat: sess.Catalog(), typed: func() string { return earlier }}
	do := func(line string) string {
		got, _ := c.Do([]rune(line), len([]rune(line)))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		return strings.Join(gs, "|")
	}
	if got := do("WHERE visited"); got != "" {
		t.Errorf("no table named yet: %q", got)
	}
	earlier = "SELECT *\nFROM visits\n"
	if got := do("WHERE visited"); got != "_at" {
		t.Errorf("visits on an earlier line: %q, want _at", got)
	}
}

func TestRun_testCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "greet.txtar")
	archive := `-- g.js --
export default { output: "STRING", args: [{ name: "r", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, s, { r }) { ctx.collect("Hi " + r.name); } };
-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION g AS 'g.js';
CREATE VIEW v(name) AS VALUES ('Bob');
SELECT * FROM g(TABLE v);
-- want.out --
+I[Hello Bob]
`
	if err := os.WriteFile(file, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "", "test", dir)
	if code != 1 || !strings.Contains(out, "FAIL  "+file) || !strings.Contains(out, "  -  +I[Hello Bob]\n  +  +I[Hi Bob]\n") ||
		!strings.HasSuffix(out, "0 passed, 1 failed\n") {
		t.Fatalf("failing test: code %d, output:\n%s", code, out)
	}
	if code, out, _ := runCmd(t, "", "test", "-update", file); code != 0 {
		t.Fatalf("-update: code %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "", "test", file)
	if code != 0 || out != "ok    "+file+"\n1 passed, 0 failed\n" {
		t.Fatalf("after -update: code %d, output:\n%s", code, out)
	}
	if code, _, errs := runCmd(t, "", "test", filepath.Join(dir, "nope")); code != 2 || !strings.Contains(errs, "no such file") {
		t.Fatalf("missing path: code %d, %s", code, errs)
	}
}
