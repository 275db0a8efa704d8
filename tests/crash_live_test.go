package tests

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// liveShapes are live statements over a followed file: the input grows
// while they run, they never end by themselves, and a kill -9 at any
// moment, then a restart with the same state file, must give the sink an
// uninterrupted run gives. The output of an operator of two inputs is in
// the order its rows arrived, which depends on how the two readers of the
// file took turns: the sinks of those shapes (unordered) must hold the
// same lines, in any order. An anti join's output depends on the turns
// more: a left row may go out and be retracted when its match comes, or
// never go out; its sink (net) must hold the same rows once each
// retraction has taken its row out.
var liveShapes = []struct {
	name      string
	script    string
	unordered bool
	net       bool
}{
	{name: "group_by", script: `
CREATE TABLE totals (op STRING, user_id STRING, total INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv', 'changelog.op-column' = 'op');
INSERT INTO totals SELECT user_id, SUM(v), COUNT(*) FROM live GROUP BY user_id;
`},
	{name: "window", script: `
CREATE TABLE windows (user_id STRING, w TIMESTAMP(3), n BIGINT, total INT) WITH ('connector' = 'filesystem', 'path' = 'windows.csv', 'format' = 'csv');
INSERT INTO windows SELECT user_id, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE live, DESCRIPTOR(t), INTERVAL '10' SECOND)) GROUP BY user_id, window_start, window_end;
`},
	{name: "ptf_timers", script: `
CREATE FUNCTION quiet AS 'quiet.js';
CREATE TABLE alerts (user_id STRING, last_v INT, n INT, rowtime TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = 'alerts.csv', 'format' = 'csv');
INSERT INTO alerts SELECT * FROM quiet(TABLE live PARTITION BY user_id ORDER BY t, on_time => DESCRIPTOR(t));
`},
	{name: "over", script: `
CREATE TABLE overs (user_id STRING, v INT, ts BIGINT, s INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'overs.csv', 'format' = 'csv');
INSERT INTO overs SELECT user_id, v, ts, SUM(v) OVER w, COUNT(*) OVER w FROM live WINDOW w AS (PARTITION BY user_id ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
`},
	{name: "top_n", script: `
CREATE TABLE tops (op STRING, user_id STRING, v INT, ts BIGINT, rn BIGINT) WITH ('connector' = 'filesystem', 'path' = 'tops.csv', 'format' = 'csv', 'changelog.op-column' = 'op');
INSERT INTO tops SELECT user_id, v, ts, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn FROM live WHERE v < 20) WHERE rn <= 2;
`},
	{name: "temporal_sort", script: `
CREATE TABLE sorted (user_id STRING, v INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'sorted.csv', 'format' = 'csv');
INSERT INTO sorted SELECT user_id, v, ts FROM live ORDER BY t, v DESC;
`},
	{name: "match_recognize", script: `
CREATE TABLE runs (user_id STRING, a_ts BIGINT, b_ts BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'runs.csv', 'format' = 'csv');
INSERT INTO runs SELECT * FROM live MATCH_RECOGNIZE (PARTITION BY user_id ORDER BY t MEASURES FIRST(A.ts) AS a_ts, LAST(B.ts) AS b_ts, COUNT(B.ts) AS n ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+ C) DEFINE A AS MOD(A.ts / 1000, 7) < 3, B AS MOD(B.ts / 1000, 7) >= 5, C AS MOD(C.ts / 1000, 7) < 3) AS m;
`},
	{name: "join", unordered: true, script: `
CREATE TABLE pairs (user_id STRING, v INT, w INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'pairs.csv', 'format' = 'csv');
INSERT INTO pairs SELECT a.user_id, a.v, b.v, a.ts FROM live a JOIN live b ON a.user_id = b.user_id AND a.ts = b.ts;
`},
	{name: "semi_join", unordered: true, script: `
CREATE TABLE kept (user_id STRING, v INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'kept.csv', 'format' = 'csv');
INSERT INTO kept SELECT user_id, v, ts FROM live a WHERE EXISTS (SELECT * FROM live b WHERE b.user_id = a.user_id AND b.ts = a.ts AND b.v >= 50);
`},
	{name: "anti_join", net: true, script: `
CREATE TABLE lonely (op STRING, user_id STRING, v INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'lonely.csv', 'format' = 'csv', 'changelog.op-column' = 'op');
INSERT INTO lonely SELECT user_id, v, ts FROM live a WHERE NOT EXISTS (SELECT * FROM live b WHERE b.user_id = a.user_id AND b.ts = a.ts AND b.v >= 50);
`},
	// The bounds are wide beside the input's disorder, so that no row is
	// late whichever input runs ahead.
	{name: "interval_join", unordered: true, script: `
CREATE TABLE near (user_id STRING, v INT, w INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'near.csv', 'format' = 'csv');
INSERT INTO near SELECT a.user_id, a.v, b.v, a.ts FROM live a JOIN live b ON a.user_id = b.user_id AND a.t BETWEEN b.t - INTERVAL '5' MINUTE AND b.t + INTERVAL '1' MINUTE;
`},
	// The versions are the same rows valid a minute earlier, so that no
	// version comes after a left row that needs it has been joined.
	{name: "temporal_join", unordered: true, script: `
CREATE TABLE versions (user_id STRING, v INT, ts BIGINT, t AS TO_TIMESTAMP_LTZ(ts - 60000, 3), WATERMARK FOR t AS t - INTERVAL '5' SECOND, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv', 'source.monitor-interval' = '100 ms');
CREATE TABLE asof (user_id STRING, v INT, w INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'asof.csv', 'format' = 'csv');
INSERT INTO asof SELECT c.user_id, c.v, p.v, c.ts FROM live c JOIN versions FOR SYSTEM_TIME AS OF c.t AS p ON c.user_id = p.user_id;
`},
}

// liveJob is the head of every live shape's script: a followed file of
// the crash tests' clicks, with its time as a TIMESTAMP_LTZ and a
// watermark after every row (so that which rows are late does not depend
// on the wall clock), and checkpoints often.
const liveJob = `SET 'execution.checkpointing.interval-rows' = '3000';
SET 'execution.checkpointing.interval' = '200 ms';
SET 'pipeline.auto-watermark-interval' = '0';
CREATE TABLE live (user_id STRING, v INT, ts BIGINT, t AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR t AS t - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv', 'source.monitor-interval' = '100 ms');
`

// TestCrash_liveShapes runs each live shape twice over the same rows: once
// with the whole file there from the start, stopped with SIGTERM when its
// sink no longer changes; once with the file growing while the statement
// runs, killed with SIGKILL at ten seeded moments (two without
// PTFSH_LONG=1: crashKills) and started again with the same state file
// after each kill, then stopped the same way once the file is whole.
// Every sink file must be the same, byte for byte.
func TestCrash_liveShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("the live crash test runs each shape about a dozen times")
	}
	bin := ptfshBinary(t)
	work := t.TempDir()
	data := crashClicks(60_000, 200)
	lines := strings.SplitAfter(data, "\n")
	tries := crashKills(10)
	for _, shape := range liveShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			setup := func(dir, clicks string) {
				writeCrashJob(t, dir, clicks, "", "")
				job := liveJob + shape.script
				if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(job), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := func(dir string) []string {
				return []string{"--state", filepath.Join(dir, "state.db"), "-f", filepath.Join(dir, "job.sql")}
			}
			ref := filepath.Join(work, shape.name, "ref")
			setup(ref, data)
			runUntilQuiet(t, bin, args(ref), ref)

			crash := filepath.Join(work, shape.name, "crash")
			setup(crash, "")
			// The file grows while the runs come and go: a chunk of rows
			// every few milliseconds, as a log does.
			grown := make(chan struct{})
			go func() {
				defer close(grown)
				f, err := os.OpenFile(filepath.Join(crash, "clicks.csv"), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Error(err)
					return
				}
				defer f.Close()
				for i := 0; i < len(lines); i += 500 {
					f.WriteString(strings.Join(lines[i:min(i+500, len(lines))], ""))
					time.Sleep(15 * time.Millisecond)
				}
			}()
			rng := rand.New(rand.NewPCG(2026, uint64(len(shape.name))))
			kills := 0
			for range tries {
				at := 150*time.Millisecond + time.Duration(rng.Int64N(int64(400*time.Millisecond)))
				if runKilled(t, bin, args(crash), at) {
					kills++
				}
			}
			<-grown
			runUntilQuiet(t, bin, args(crash), crash)
			want, got := sinkFiles(t, ref), sinkFiles(t, crash)
			if len(want) == 0 || len(strings.Join(mapValues(want), "")) == 0 {
				t.Fatal("the uninterrupted run wrote nothing")
			}
			for name, w := range want {
				g := got[name]
				switch {
				case shape.net:
					g, w = netLines(g), netLines(w)
				case shape.unordered:
					g, w = sortedLines(g), sortedLines(w)
				}
				if g != w {
					t.Errorf("after %d kills %s differs from an uninterrupted run: %d lines, want %d (%s)",
						kills, name, strings.Count(g, "\n"), strings.Count(w, "\n"), firstDiff(g, w))
				}
			}
			t.Logf("%d kills, %d lines of sink", kills, strings.Count(strings.Join(mapValues(want), ""), "\n"))
		})
	}
}

// sortedLines returns the lines of s in sorted order.
func sortedLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// netLines returns the rows of a changelog sink whose lines start with
// the row's kind (+I, -U, +U, -D), in sorted order, once each retraction
// has taken out the row it retracts; a retraction of a row not there is
// kept, marked, so that it shows in a diff.
func netLines(s string) string {
	count := map[string]int{}
	for _, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		op, row, _ := strings.Cut(line, ",")
		switch op {
		case "+I", "+U":
			count[row]++
		case "-U", "-D":
			count[row]--
		default:
			count["? "+line]++
		}
	}
	var out []string
	for row, n := range count {
		for ; n > 0; n-- {
			out = append(out, row)
		}
		for ; n < 0; n++ {
			out = append(out, "retracted, not there: "+row)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "")
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// runUntilQuiet runs a live statement until its sink files in dir have not
// changed for a second, then stops it with SIGTERM (its final checkpoint)
// and waits for it to exit with status 0.
func runUntilQuiet(t *testing.T, bin string, args []string, dir string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// A run is quiet when its sink has not changed for a second, and not
	// before it had three seconds to start: a signal before it reached its
	// live statement would cancel the statement before it (or kill the
	// process before it handles signals), on a machine slow to start it.
	last, since, started := "", time.Now(), time.Now()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Since(since) < time.Second || time.Since(started) < 3*time.Second {
		select {
		case err := <-done:
			t.Fatalf("a live statement ended by itself: %v\n%s", err, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		now := strings.Join(mapValues(sinkFiles(t, dir)), "\x00")
		if now != last {
			last, since = now, time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatal("the sink kept changing for two minutes")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Fatalf("stopped with SIGTERM: %v\n%s", err, stderr.String())
	}
}
