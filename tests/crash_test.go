package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCrash_sigkillRestart runs a stateful 1 M-row query into a CSV sink
// as a child process, kills it with SIGKILL at 20 seeded random moments
// (5 without PTFSH_LONG=1, spread over as much of the run: crashKills)
// and starts it again each time with the same state file; the sink must
// end up byte for byte as an uninterrupted run's: state, source positions
// and the sink's committed length come back from the last checkpoint
// (exactly-once output).
func TestCrash_sigkillRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test takes about a minute")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "ptfsh")
	build := exec.Command("go", "build", "-o", bin, "../cmd/ptfsh")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building ptfsh: %v\n%s", err, out)
	}
	input := filepath.Join(work, "clicks.csv")
	f, err := os.Create(input)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < 1_000_000; i++ {
		fmt.Fprintf(w, "u%04d,%d\n", (i*7919)%5000, i%100)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fn := `export default {
  output: "ROW<total BIGINT, n INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { total: 0, n: 0 } } },
  eval(ctx, { s }, { r }) { s.total += r.v; s.n++; ctx.collect([s.total, s.n]); },
};`
	job := func(dir string) string {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(fn), 0o644); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(dir, "job.sql")
		src := fmt.Sprintf(`SET 'execution.checkpointing.interval-rows' = '20000';
CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE clicks (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
`, input)
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return script
	}
	run := func(dir string, kill time.Duration) (killed bool) {
		return runKilled(t, bin, []string{"--state", filepath.Join(dir, "state.db"), "-f", filepath.Join(dir, "job.sql")}, kill)
	}

	ref := filepath.Join(work, "ref")
	job(ref)
	start := time.Now()
	run(ref, 0)
	whole := time.Since(start)

	crash := filepath.Join(work, "crash")
	job(crash)
	rng := rand.New(rand.NewPCG(2026, 11))
	kills, tries, finished := 0, crashKills(20), false
	for range tries {
		at := 30*time.Millisecond + time.Duration(rng.Int64N(int64(whole)/int64(tries)+1))
		if run(crash, at) {
			kills++
		} else {
			finished = true // the run finished before its kill: a run more would run the script afresh
			break
		}
	}
	if !finished {
		run(crash, 0) // finish what is left
	}
	want, err := os.ReadFile(filepath.Join(ref, "totals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(crash, "totals.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(want, []byte("\n")); n != 1_000_000 {
		t.Fatalf("the uninterrupted run wrote %d rows", n)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("after %d kills the sink differs from an uninterrupted run: %d bytes, want %d", kills, len(got), len(want))
	}
	t.Logf("%d kills; an uninterrupted run took %v", kills, whole)
}
