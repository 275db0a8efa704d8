package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREPL_predict: in predict mode the shell asks what a stream step
// will emit, reads the guess to an empty line, runs the step and scores
// the guess as a multiset of rows.
func TestREPL_predict(t *testing.T) {
	dir := t.TempDir()
	fn := `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    ctx.collect("hi " + input.name);
    ctx.timeContext().registerOnTime(ctx.timeContext().time() + 60000);
  },
  onTimer(ctx) { ctx.collect("bye"); },
};
`
	if err := os.WriteFile(filepath.Join(dir, "f.js"), []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	stdin := strings.Join([]string{
		"SET 'ptfsh.format' = 'rows';",
		"CREATE FUNCTION f AS 'f.js';",
		"CREATE STREAM s (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts);",
		"SELECT * FROM f(input => TABLE s PARTITION BY name, on_time => DESCRIPTOR(ts));",
		"SET 'ptfsh.predict' = 'on';",
		"INSERT INTO s VALUES ('Bob', TIMESTAMP '2025-03-27 12:00:00'), ('Ann', TIMESTAMP '2025-03-27 12:00:10');",
		"+I[Ann, hi Ann, 2025-03-27T12:00:10Z]",
		"  +I[Bob,   hi Bob, 2025-03-27T12:00:00Z]  ",
		"",
		"ADVANCE WATERMARK s TO TIMESTAMP '2025-03-27 12:01:05';",
		"+I[Ann, bye, 2025-03-27T12:01:10Z]",
		"",
		"ADVANCE WATERMARK s TO TIMESTAMP '2025-03-27 12:01:06';",
		"",
	}, "\n") + "\n"
	code, out, errs := runCmd(t, stdin)
	if code != 0 {
		t.Fatalf("code %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"predict: what will the query emit at this step?\n  INSERT INTO s VALUES ('Bob', TIMESTAMP '2025-03-27 12:00:00'), ('Ann', TIMESTAMP '2025-03-27 12:00:10')\n",
		"guess: right: all 2 rows\n",
		"guess: 0 of 1 rows right\n  not guessed: +I[Bob, bye, 2025-03-27T12:01:00Z]\n  not emitted: +I[Ann, bye, 2025-03-27T12:01:10Z]\n",
		"guess: right: the step emits nothing\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in\n%s", want, errs)
		}
	}
	if !strings.Contains(out, "+I[Bob, bye, 2025-03-27T12:01:00Z]") {
		t.Errorf("the step's rows are not printed:\n%s", out)
	}
}

// TestREPL_predictTableau: with results printed as a tableau, a guess
// may be typed as the tableau prints a row (its cells between |, borders
// or not), and a row not guessed is shown that way too.
func TestREPL_predictTableau(t *testing.T) {
	dir := t.TempDir()
	fn := `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) { ctx.collect("hi " + input.name); },
};
`
	if err := os.WriteFile(filepath.Join(dir, "f.js"), []byte(fn), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	stdin := strings.Join([]string{
		"CREATE FUNCTION f AS 'f.js';",
		"CREATE STREAM s (name STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts);",
		"SELECT * FROM f(input => TABLE s PARTITION BY name, on_time => DESCRIPTOR(ts));",
		"SET 'ptfsh.predict' = 'on';",
		"INSERT INTO s VALUES ('Bob', TIMESTAMP '2025-03-27 12:00:00'), ('Ann', TIMESTAMP '2025-03-27 12:00:10');",
		"| +I |  Bob |  hi Bob | 2025-03-27 12:00:00.000 |",
		"+I | Ann | hi Ann | 2025-03-27 12:00:10.000",
		"",
		"INSERT INTO s VALUES ('Cy', TIMESTAMP '2025-03-27 12:00:20');",
		"+I[Cy, hi Cy, 2025-03-27T12:00:20Z]",
		"",
		"INSERT INTO s VALUES ('Di', TIMESTAMP '2025-03-27 12:00:30');",
		"+I | Di | hello | 2025-03-27 12:00:30.000",
		"",
	}, "\n") + "\n"
	code, out, errs := runCmd(t, stdin)
	if code != 0 {
		t.Fatalf("code %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"Type its rows as the results print them, the cells between | (+I | a | 1), or as +I[a, 1]; one a line, an empty line when done.\n",
		"guess: right: all 2 rows\n",
		"guess: right: the one row\n",
		"guess: 0 of 1 rows right\n  not guessed: | +I | Di | hi Di | 2025-03-27 12:00:30.000 |\n  not emitted: +I | Di | hello | 2025-03-27 12:00:30.000\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("no %q in\n%s", want, errs)
		}
	}
}

// TestRun_testDataBeside: ptfsh test finds a data file that is not a
// section of the test beside the test file, as it finds a function file;
// a file the test writes stays in its temporary folder.
func TestRun_testDataBeside(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "data", "x.csv"), []byte("a\nb\n"), 0o644)
	file := filepath.Join(dir, "t.txtar")
	os.WriteFile(file, []byte(`-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE TABLE x (s STRING) WITH ('connector' = 'filesystem', 'path' = 'data/x.csv', 'format' = 'csv');
SELECT * FROM x;
CREATE TABLE o (s STRING) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT INTO o SELECT * FROM x;
-- want.out --
+I[a]
+I[b]
[INFO] Complete execution of the SQL update statement: 2 rows written to table 'o' ('out.csv').
`), 0o644)
	if code, out, errs := runCmd(t, "", "test", file); code != 0 {
		t.Fatalf("code %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.csv")); err == nil {
		t.Error("the test wrote out.csv beside the test file")
	}
}
