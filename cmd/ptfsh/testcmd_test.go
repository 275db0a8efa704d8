package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checksArchive counts visits per name and keeps a timer per name; with
// end of input off, state and timers stay for the checks.
const checksArchive = `A test that checks state, timers and counts.
-- f.js --
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { seen: { default: { count: 0 } } },
  eval(ctx, { seen }, { input }) {
    seen.count++;
    ctx.timeContext().registerOnTime("bye", ctx.timeContext().time() + 60000);
  },
};
-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION f AS 'f.js';
CREATE TABLE visits (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
AS VALUES ('Bob', TIMESTAMP '2025-03-27 12:00:00'), ('Alice', TIMESTAMP '2025-03-27 12:00:10'), ('Bob', TIMESTAMP '2025-03-27 12:00:20');
SET 'ptfsh.end-of-input' = 'false';
SELECT * FROM f(input => TABLE visits PARTITION BY name, on_time => DESCRIPTOR(ts));
SHOW STATE FOR 'f';
-- want.state --
-- want.timers --
-- want.counts --
-- hint --
Count every visit of a name,
and say goodbye a minute after the last.
-- want.out --
`

// TestTest_checks: want.state, want.timers and want.counts compare what
// the store holds after the run; -update writes them; a failing test
// shows which check failed, a diff and the hint; the clock is pinned, so
// SHOW STATE's "written at" is the same on every run.
func TestTest_checks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.txtar")
	if err := os.WriteFile(file, []byte(checksArchive), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd(t, "", "test", "-update", file); code != 0 {
		t.Fatalf("-update: code %d\n%s%s", code, out, errs)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"-- want.state --\nf (Alice) seen {\"count\":1}\nf (Bob) seen {\"count\":2}\n-- want.timers --\n",
		"-- want.timers --\nf (Alice) bye 2025-03-27T12:01:10Z\nf (Bob) bye 2025-03-27T12:01:20Z\n-- want.counts --\n",
		"-- want.counts --\nf: 2 keys with state, 2 timers\n-- hint --\n",
		"| (Alice) |  seen | {\"count\":1} | 2025-01-01T00:00:00Z |\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("after -update the file lacks %q:\n%s", want, text)
		}
	}
	if code, out, _ := runCmd(t, "", "test", file); code != 0 || out != "ok    "+file+"\n1 passed, 0 failed\n" {
		t.Fatalf("after -update: code %d\n%s", code, out)
	}

	// A wrong count of Bob's visits fails with the diff and the hint.
	wrong := strings.Replace(text, "f (Bob) seen {\"count\":2}", "f (Bob) seen {\"count\":3}", 1)
	if err := os.WriteFile(file, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, "", "test", file)
	for _, want := range []string{
		"FAIL  " + file + "\n",
		"  want.state (the state left after the run: uid key entry value):\n",
		"  -  f (Bob) seen {\"count\":3}\n  +  f (Bob) seen {\"count\":2}\n",
		"  hint: Count every visit of a name,\n        and say goodbye a minute after the last.\n",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("code %d; output lacks %q:\n%s", code, want, out)
		}
	}

	// The hint is shown only when the test fails, and a test may set its
	// own clock.
	own := strings.Replace(text, "SET 'ptfsh.format' = 'rows';", "SET 'ptfsh.format' = 'rows';\nSET 'ptfsh.processing-time' = '2030-06-01 08:00:00';", 1)
	if err := os.WriteFile(file, []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "", "test", file)
	if code != 1 || !strings.Contains(out, "  +  | (Alice) |  seen | {\"count\":1} | 2030-06-01T08:00:00Z |\n") || !strings.Contains(out, "  hint: ") {
		t.Errorf("own clock: code %d\n%s", code, out)
	}
}

// TestTest_noStateLeft: checks of a run that leaves nothing are empty
// sections, and a test that expects state fails when none is left.
func TestTest_noStateLeft(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "n.txtar")
	src := strings.Replace(checksArchive, "SET 'ptfsh.end-of-input' = 'false';\n", "", 1)
	src = strings.Replace(src, "SHOW STATE FOR 'f';\n", "DROP STATE FOR 'f';\n", 1)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "", "test", "-update", file); code != 0 {
		t.Fatalf("-update: code %d\n%s", code, out)
	}
	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), "-- want.state --\n-- want.timers --\n-- want.counts --\n-- hint --\n") {
		t.Errorf("checks of a run without state are not empty:\n%s", b)
	}
	withState := strings.Replace(string(b), "-- want.counts --\n", "-- want.counts --\nf: 2 keys with state, 0 timers\n", 1)
	if err := os.WriteFile(file, []byte(withState), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "", "test", file); code != 1 || !strings.Contains(out, "  -  f: 2 keys with state, 0 timers\n") {
		t.Errorf("code %d\n%s", code, out)
	}
}

// TestTest_viewState: list and map state show in want.state an element a
// line, as SHOW STATE shows them.
func TestTest_viewState(t *testing.T) {
	file := filepath.Join(t.TempDir(), "l.txtar")
	src := `-- f.js --
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { kind: "list", type: "ARRAY<STRING>" }, by: { kind: "map", type: "MAP<STRING, INT>" } },
  eval(ctx, { seen, by }, { input }) { seen.add(input.v); by.put(input.v, 1); },
};
-- query.sql --
CREATE FUNCTION f AS 'f.js';
CREATE VIEW v(k, v) AS VALUES ('a', 'x'), ('a', 'y'), ('b', 'z');
SELECT * FROM f(input => TABLE v PARTITION BY k);
-- want.state --
-- want.counts --
-- want.out --
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "", "test", "-update", file); code != 0 {
		t.Fatalf("-update: code %d\n%s", code, out)
	}
	b, _ := os.ReadFile(file)
	want := "-- want.state --\nf (a) by[x] 1\nf (a) by[y] 1\nf (b) by[z] 1\nf (a) seen[0] x\nf (a) seen[1] y\nf (b) seen[0] z\n-- want.counts --\nf: 2 keys with state, 0 timers\n"
	if !strings.Contains(string(b), want) {
		t.Errorf("want %q in\n%s", want, b)
	}
}

// TestRun_testExercise: an exercise keeps what it must print hidden
// (want.hidden): a failing one says how many lines are right and which
// printed lines are not expected, never the expected ones, with its first
// hint; -hint N shows more; -reveal shows the diff; -update writes the
// hidden want, which the file does not show in clear.
func TestRun_testExercise(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ex.txtar")
	write := func(fn string) {
		os.WriteFile(filepath.Join(dir, "f.js"), []byte(`export default { output: "INT", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, s, { input }) { `+fn+` } };`), 0o644)
	}
	os.WriteFile(file, []byte(`Double each number.
-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION f AS 'f.js';
CREATE VIEW t(n) AS VALUES (1), (2), (3);
SELECT * FROM f(TABLE t);
-- hint 1 --
Twice as much.
-- hint 2 --
Think of multiplying.
-- want.hidden --
`), 0o644)
	write("ctx.collect(input.n * 2);")
	if code, out, errs := runCmd(t, "", "test", "-update", file); code != 0 {
		t.Fatalf("-update: code %d\n%s%s", code, out, errs)
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), "+I[4]") || !strings.Contains(string(b), "-- want.hidden --\nK0lbMl0KK0lbNF0KK0lbNl0K\n") {
		t.Errorf("the hidden want is not hidden:\n%s", b)
	}
	if code, out, _ := runCmd(t, "", "test", file); code != 0 || !strings.Contains(out, "ok    ") {
		t.Errorf("the solution fails: %d\n%s", code, out)
	}
	write("ctx.collect(input.n === 2 ? 4 : input.n + 10);")
	code, out, _ := runCmd(t, "", "test", file)
	want := "  3 lines printed, 1 as expected; 2 expected lines missing\n" +
		"  printed but not expected:\n    +I[11]\n    +I[13]\n" +
		"  (the expected lines stay hidden until the exercise passes: ptfsh test -reveal shows them)\n" +
		"  hint 1 of 2: Twice as much.\n  (ptfsh test -hint 2 shows the next hint)\n"
	if code != 1 || !strings.Contains(out, want) || strings.Contains(out, "+I[2]") || strings.Contains(out, "+I[6]") {
		t.Errorf("a failing exercise: code %d\n%s\nwant\n%s", code, out, want)
	}
	_, out, _ = runCmd(t, "", "test", "-hint", "2", file)
	if !strings.Contains(out, "  hint 2 of 2: Think of multiplying.\n") || strings.Contains(out, "-hint 3") {
		t.Errorf("-hint 2:\n%s", out)
	}
	_, out, _ = runCmd(t, "", "test", "-reveal", file)
	if !strings.Contains(out, "  -  +I[2]\n") || !strings.Contains(out, "  +  +I[11]\n") {
		t.Errorf("-reveal shows no diff:\n%s", out)
	}
	write("ctx.collect(4 - input.n * 2 + input.n * 4 - 4);")
	if _, out, _ := runCmd(t, "", "test", file); !strings.Contains(out, "ok    ") {
		t.Errorf("another right function fails:\n%s", out)
	}
}
