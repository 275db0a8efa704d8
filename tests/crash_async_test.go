package tests

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asyncPause is how long each background commit of the test build waits
// before it starts (state.asyncPause, set at link time): the window in
// which TestCrash_inFlightCommit kills the process.
const asyncPause = 120 * time.Millisecond

// TestCrash_inFlightCommit kills ptfsh with SIGKILL while a checkpoint's
// commit is in flight on its background goroutine (state.UpdateAsync):
// a build of ptfsh whose commits announce themselves on stderr and wait
// asyncPause before they start is killed at a seeded moment after the n-th
// announcement, before, during or just after that commit, and started
// again with the same state file, eight times for each shape (two
// without PTFSH_LONG=1: crashKills); every sink file must equal an
// uninterrupted run's of the usual build, byte for byte. The shapes: a
// keyed sum with a live cache of 50 keys (keys evicted wait encoded in
// memory, and each checkpoint writes those changed since), the same with
// the encoded keys spilled to the store between checkpoints, event time
// with timers and ORDER BY, a statement set, and parallelism 2.
func TestCrash_inFlightCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test runs each shape about ten times")
	}
	work := t.TempDir()
	bin := filepath.Join(work, "ptfsh")
	build := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/ptfsh/ptfsh/state.asyncPause="+asyncPause.String(), "../cmd/ptfsh")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building ptfsh: %v\n%s", err, out)
	}
	data := crashClicks(100_000, 2000)
	const sumScript = `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
`
	// firstKill is the commit of the first run that a shape's first kill
	// follows (1 + a seeded 0..2 past it); 1 when not set.
	type shape struct {
		name, preamble, script, data string
		firstKill                    int
	}
	shapes := []shape{
		// Every row misses the cache: more evictions between checkpoints
		// than keys, and the flush walks the keys (keyedState.dirtyAll).
		{name: "small_cache", preamble: "SET 'state.cache-size' = '50';\n", script: sumScript, data: data},
		// Hot keys hit: the flush writes the keys evicted changed from
		// its list (keyedState.dirtyWarm).
		{name: "small_cache_hot_keys", preamble: "SET 'state.cache-size' = '50';\n", script: sumScript, data: crashHotClicks(100_000)},
		// The warm tier spills to the store many times between two
		// checkpoints: a restart must not see what was spilled after the
		// last one.
		{name: "spill", preamble: "SET 'state.cache-size' = '50';\nSET 'state.cache-bytes' = '4 kb';\n", script: sumScript, data: data},
		// A checkpoint every 4000 rows: the eighth writes a snapshot of
		// every key in place of the generations before it, and the first
		// kill comes at one of the seventh to ninth commits.
		{name: "snapshot", preamble: "SET 'execution.checkpointing.interval-rows' = '4000';\nSET 'state.cache-size' = '50';\n",
			script: sumScript, data: crashHotClicks(100_000), firstKill: 7},
	}
	for _, s := range crashShapes {
		if s.name == "event_time" || s.name == "statement_set" || s.name == "parallel" {
			shapes = append(shapes, shape{name: s.name, script: s.script, data: data})
			if s.name == "parallel" {
				shapes[len(shapes)-1].preamble = "SET 'parallelism.default' = '2';\n"
			}
		}
	}
	tries := crashKills(8)
	for _, shape := range shapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			setup := func(dir string) {
				writeCrashJob(t, dir, shape.data, "SET 'execution.checkpointing.interval-rows' = '8000';\n"+shape.preamble, shape.script)
			}
			args := func(dir string) []string {
				return []string{"--state", filepath.Join(dir, "state.db"), "-f", filepath.Join(dir, "job.sql")}
			}
			// The reference is the usual build's, run without a pause.
			ref := filepath.Join(work, shape.name, "ref")
			setup(ref)
			runKilled(t, ptfshBinary(t), args(ref), 0)
			crash := filepath.Join(work, shape.name, "crash")
			setup(crash)
			rng := rand.New(rand.NewPCG(2026, uint64(len(shape.name))))
			kills, inFlight, finished := 0, 0, false
			for try := range tries {
				nth := 1 + rng.IntN(3)
				if try == 0 && shape.firstKill > 0 {
					nth += shape.firstKill - 1
				}
				after := time.Duration(rng.Int64N(int64(asyncPause + 30*time.Millisecond)))
				if runKilledInFlight(t, bin, args(crash), nth, after) >= 0 {
					finished = true // it finished before its kill
					break
				}
				kills++
				if after < asyncPause {
					inFlight++
				}
				if sameFiles(sinkFiles(t, crash), sinkFiles(t, ref)) {
					// Killed as it exited, after the script completed
					// (see TestCrash_scriptShapes): its work is done.
					finished = true
					break
				}
			}
			if !finished {
				runKilledInFlight(t, bin, args(crash), 0, 0) // what is left
			}
			if inFlight == 0 {
				t.Fatal("no kill landed while a commit was in flight")
			}
			want, got := sinkFiles(t, ref), sinkFiles(t, crash)
			if len(want) == 0 {
				t.Fatal("the uninterrupted run wrote no sink file")
			}
			for name, w := range want {
				if g := got[name]; g != w {
					t.Errorf("after %d kills %s differs from an uninterrupted run: %d lines, want %d (%s)",
						kills, name, strings.Count(g, "\n"), strings.Count(w, "\n"), firstDiff(g, w))
				}
			}
			t.Logf("%d kills, %d of them before the commit began", kills, inFlight)
		})
	}
}

// runKilledInFlight runs ptfsh with args and, when nth > 0, kills it with
// SIGKILL after the nth "state: commit in flight" line on its stderr, and
// after a further wait of after. It returns -1 if the kill ended the
// process, else (it ended first) how many commits the run announced. A run that fails fails the
// test.
func runKilledInFlight(t *testing.T, bin string, args []string, nth int, after time.Duration) int {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var other strings.Builder
	seen, killed := 0, false
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if sc.Text() != "state: commit in flight" {
			other.WriteString(sc.Text() + "\n")
			continue
		}
		if seen++; seen == nth && !killed {
			time.Sleep(after)
			_ = cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	err = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); killed && ok && ws.Signaled() {
		return -1
	}
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, other.String())
	}
	return seen
}

// crashHotClicks is crashClicks where nine rows in ten come from 40 hot
// users and the tenth from 2,000 others.
func crashHotClicks(rows int) string {
	var data strings.Builder
	start := int64(1_767_225_600_000) // 2026-01-01
	for i := 0; i < rows; i++ {
		user := fmt.Sprintf("h%02d", (i*7)%40)
		if i%10 == 9 {
			user = fmt.Sprintf("c%04d", (i*7919)%2000)
		}
		fmt.Fprintf(&data, "%s,%d,%d\n", user, i%100, start+int64(i)*1000)
	}
	return data.String()
}
