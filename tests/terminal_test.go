package tests

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
)

// TestStepping_countsAreTheStep's: at a terminal each step of a stream
// says how many rows it read and printed, and the rows ORDER BY dropped
// at it, not the totals of the replay that runs the step.
func TestStepping_countsAreTheSteps(t *testing.T) {
	var out, errs bytes.Buffer
	sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Memory: true, Timing: true, Format: "rows",
		EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	steps := []string{
		`CREATE FUNCTION Echo LANGUAGE JAVASCRIPT AS $$
export default {
  output: "ROW<n INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  eval(ctx, s, { input }) { ctx.collect({ n: input.n }); },
};
$$`,
		`CREATE STREAM s (k STRING, n INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)`,
		`SELECT k, n FROM Echo(input => TABLE s PARTITION BY k ORDER BY ts, on_time => DESCRIPTOR(ts))`,
		`INSERT INTO s VALUES ('a', 1, TIMESTAMP '2025-03-27 12:00:00'), ('a', 2, TIMESTAMP '2025-03-27 12:00:07'), ('a', 3, TIMESTAMP '2025-03-27 12:00:01')`,
		`INSERT INTO s VALUES ('a', 4, TIMESTAMP '2025-03-27 12:00:10')`,
		`INSERT INTO s VALUES ('a', 5, TIMESTAMP '2025-03-27 12:00:02')`,
		`ADVANCE WATERMARK s TO TIMESTAMP '2025-03-27 12:01:00'`,
	}
	var notes []string
	for _, st := range steps {
		errs.Reset()
		if err := sh.Session.Exec(context.Background(), "", st+";"); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		notes = append(notes, errs.String())
	}
	times := regexp.MustCompile(`[0-9.]+ s\)`)
	for i, want := range []string{
		"",
		"",
		"note: the query keeps running on s: INSERT INTO and ADVANCE WATERMARK show what each step emits; SHOW STATE and SHOW TIMERS see its state between steps\n(this step: 0 rows read, 0 rows out, T)\n",
		"columns: k STRING, n INT\nnote: Echo: ORDER BY dropped 1 row of table argument 'input' that arrived late (at or before the watermark)\n(this step: 3 rows read, 1 row out, T)\n",
		"note: no rows at this step\n(this step: 1 row read, 0 rows out, T)\n",
		"note: Echo: ORDER BY dropped 1 row of table argument 'input' that arrived late (at or before the watermark)\nnote: no rows at this step\n(this step: 1 row read, 0 rows out, T)\n",
		"(this step: 0 rows read, 2 rows out, T)\n",
	} {
		got := times.ReplaceAllString(notes[i], "T)")
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", steps[i], got, want)
		}
	}
	if got, want := out.String(), "+I[a, 1]\n+I[a, 2]\n+I[a, 4]\n"; got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(strings.Join(notes, ""), "final checkpoint") {
		t.Error("a step speaks of a final checkpoint")
	}
}

// TestStepping_unionCountsTheStep: a UNION ALL reads the stream once per
// input, the step's events after the earlier steps' each time; a step
// counts the rows of its own events in every input, and nothing of the
// replay before them.
func TestStepping_unionCountsTheStep(t *testing.T) {
	var out, errs bytes.Buffer
	sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Memory: true, Timing: true, Format: "rows",
		EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	steps := []string{
		`CREATE STREAM s (n INT)`,
		`SELECT n FROM s UNION ALL SELECT n * 10 FROM s`,
		`INSERT INTO s VALUES (1), (2)`,
		`INSERT INTO s VALUES (3)`,
	}
	var notes []string
	for _, st := range steps {
		errs.Reset()
		if err := sh.Session.Exec(context.Background(), "", st+";"); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		notes = append(notes, regexp.MustCompile(`[0-9.]+ s\)`).ReplaceAllString(errs.String(), "T)"))
	}
	for i, want := range map[int]string{2: "columns: n INT\n(this step: 4 rows read, 4 rows out, T)\n", 3: "(this step: 2 rows read, 2 rows out, T)\n"} {
		if notes[i] != want {
			t.Errorf("%s:\n got %q\nwant %q", steps[i], notes[i], want)
		}
	}
	if got, want := out.String(), "+I[1]\n+I[2]\n+I[10]\n+I[20]\n+I[3]\n+I[30]\n"; got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
}

// TestTerminal_rowsNameTheirColumns: at a terminal the rows format names
// the columns and their types on stderr before the rows (and the first
// rows of a stream's query), and says how each kind of timestamp prints;
// stdout keeps the rows alone, and a pipe gets no such line.
func TestTerminal_rowsNameTheirColumns(t *testing.T) {
	run := func(terminal bool) (string, string) {
		var out, errs bytes.Buffer
		sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Memory: true, Timing: terminal, Format: "rows"})
		if err != nil {
			t.Fatal(err)
		}
		defer sh.Close()
		err = sh.Session.Exec(context.Background(), "", `SELECT * FROM (VALUES ('ORD', TIMESTAMP '2001-01-01 07:12:00', TIMESTAMP_LTZ '2025-03-27 12:00:05')) AS t(origin, local_time, instant);
CREATE STREAM s (n INT);
SELECT n * 2 AS twice FROM s;
INSERT INTO s VALUES (1);
INSERT INTO s VALUES (2);`)
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), errs.String()
	}
	out, errs := run(true)
	if want := "+I[ORD, 2001-01-01T07:12, 2025-03-27T12:00:05Z]\n+I[2]\n+I[4]\n"; out != want {
		t.Errorf("stdout:\n%s\nwant\n%s", out, want)
	}
	for _, want := range []string{
		"columns: origin CHAR(3) NOT NULL, local_time TIMESTAMP(0) NOT NULL, instant TIMESTAMP_LTZ(0) NOT NULL (TIMESTAMP_LTZ: an instant, printed in UTC with a Z, 2025-03-27T12:00:05Z; TIMESTAMP: no zone, printed without one, 2001-01-01T07:12)\n",
		"columns: twice INT\n",
	} {
		if strings.Count(errs, want) != 1 {
			t.Errorf("stderr has not once %q:\n%s", want, errs)
		}
	}
	if _, errs := run(false); strings.Contains(errs, "columns:") {
		t.Errorf("a pipe names the columns:\n%s", errs)
	}
}
