package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// crashShapes are scripts of the shapes that exactly-once must hold for:
// a table read twice in one statement, a statement set, a script of
// several INSERTs, INSERT OVERWRITE between INSERTs INTO, event time with
// timers and ORDER BY, and parallelism 2 (a keyed sum, event time with
// timers and ORDER BY, and list and map state).
// Each writes file sinks named *.csv in its folder.
var crashShapes = []struct {
	name   string
	flags  []string
	script string
}{
	{name: "self_union", script: `
CREATE VIEW twice AS SELECT user_id, v FROM clicks UNION ALL SELECT user_id, v FROM clicks;
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE twice PARTITION BY user_id);
`},
	{name: "statement_set", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
CREATE TABLE big (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');
EXECUTE STATEMENT SET BEGIN
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
INSERT INTO big SELECT user_id, v FROM clicks WHERE v > 90;
END;
`},
	{name: "two_inserts", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
CREATE TABLE big (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
INSERT INTO big SELECT user_id, v FROM clicks WHERE v > 90;
`},
	{name: "event_time", script: `
CREATE FUNCTION quiet AS 'quiet.js';
CREATE TABLE timed (user_id STRING, v INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE alerts (user_id STRING, last_v INT, n INT, rowtime TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = 'alerts.csv', 'format' = 'csv');
INSERT INTO alerts SELECT * FROM quiet(TABLE timed PARTITION BY user_id ORDER BY ts, on_time => DESCRIPTOR(ts));
`},
	{name: "overwrite", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
CREATE TABLE big (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');
INSERT OVERWRITE totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
INSERT INTO big SELECT user_id, v FROM clicks WHERE v > 90;
INSERT OVERWRITE big SELECT user_id, v FROM clicks WHERE v > 95;
INSERT INTO big SELECT user_id, v FROM clicks WHERE v < 3;
`},
	{name: "parallel", flags: []string{"--parallelism", "2"}, script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
`},
	{name: "parallel_event_time", flags: []string{"--parallelism", "2"}, script: `
CREATE FUNCTION quiet AS 'quiet.js';
CREATE TABLE timed (user_id STRING, v INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE alerts (user_id STRING, last_v INT, n INT, rowtime TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = 'alerts.csv', 'format' = 'csv');
INSERT INTO alerts SELECT * FROM quiet(TABLE timed PARTITION BY user_id ORDER BY ts, on_time => DESCRIPTOR(ts));
`},
	{name: "parallel_views", flags: []string{"--parallelism", "2"}, script: `
CREATE FUNCTION recent AS 'recent.js';
CREATE TABLE recents (user_id STRING, recent STRING, seen INT) WITH ('connector' = 'filesystem', 'path' = 'recents.csv', 'format' = 'csv');
INSERT INTO recents SELECT * FROM recent(TABLE clicks PARTITION BY user_id);
`},
}

// crashRecent keeps list and map state (Flink's ListView and MapView): the
// last values of its key, cut back to two past four, and a count per last
// digit.
const crashRecent = `export default {
  output: "ROW<recent STRING, seen INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { recent: { kind: "list", type: "ARRAY<INT>" }, byDigit: { kind: "map", type: "MAP<INT, INT>" } },
  eval(ctx, { recent, byDigit }, { r }) {
    recent.add(r.v);
    let all = recent.getList();
    if (all.length > 4) { recent.clear(); recent.addAll(all.slice(-2)); all = recent.getList(); }
    const d = r.v % 10;
    const seen = (byDigit.contains(d) ? byDigit.get(d) : 0) + 1;
    byDigit.put(d, seen);
    ctx.collect({ recent: all.join(" "), seen });
  },
};`

// crashSum keeps a running total and count of column v per key (the
// crash and cache tests share it).
const crashSum = `export default {
  output: "ROW<total BIGINT, n INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { total: 0, n: 0 } } },
  eval(ctx, { s }, { r }) { s.total += r.v; s.n++; ctx.collect([s.total, s.n]); },
};`

// quiet alerts when a user was quiet for 20 s of event time after a row,
// with the count of rows so far; ORDER BY ts drops late rows.
const crashQuiet = `export default {
  output: "ROW<last_v INT, n INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE", "REQUIRE_ON_TIME"] }],
  state: { s: { default: { last: 0, n: 0 } } },
  eval(ctx, { s }, { r }) {
    s.last = r.v; s.n++;
    ctx.timeContext().registerOnTime("quiet", ctx.timeContext().time() + 20000);
  },
  onTimer(ctx, { s }) {
    if (ctx.timeContext().currentWatermark() === Number.MAX_SAFE_INTEGER) return;
    ctx.collect({ last_v: s.last, n: s.n });
  },
};`

var buildOnce struct {
	sync.Once
	bin string
	err error
	out []byte
}

// ptfshBinary builds cmd/ptfsh once for the tests that run it as a process.
// PTFSH_TEST_BIN names a binary to use instead (to run the crash tests
// against another build).
func ptfshBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("PTFSH_TEST_BIN"); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ptfsh-bin-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.bin = filepath.Join(dir, "ptfsh")
		buildOnce.out, buildOnce.err = exec.Command("go", "build", "-o", buildOnce.bin, "../cmd/ptfsh").CombinedOutput()
	})
	if buildOnce.err != nil {
		t.Fatalf("building ptfsh: %v\n%s", buildOnce.err, buildOnce.out)
	}
	return buildOnce.bin
}

// crashKills is how many times a crash test kills a run: long with
// PTFSH_LONG=1 (the long set, which .ci/run runs); otherwise a quarter of
// that, at least two, so that go test ./... still kills and restarts
// every shape. Tests that draw their kill moments from the length of an
// uninterrupted run spread fewer kills over more of it. The shapes of a
// test run in parallel: a run spends most of its time in its own
// process, waiting on fsync as much as computing.
func crashKills(long int) int {
	if os.Getenv("PTFSH_LONG") == "1" {
		return long
	}
	return max(long/4, 2)
}

// TestCrash_scriptShapes kills each shape of script with SIGKILL at ten
// seeded moments (two without PTFSH_LONG=1, spread over as much of the
// run: crashKills), running it again after each kill with the same command
// and state file, then once more to the end; every sink file must equal an
// uninterrupted run's, byte for byte.
func TestCrash_scriptShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test runs each shape about a dozen times")
	}
	bin := ptfshBinary(t)
	work := t.TempDir()
	data := crashClicks(500_000, 300)
	kills := crashKills(10)
	for _, shape := range crashShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			setup := func(dir string) {
				writeCrashJob(t, dir, data, "SET 'execution.checkpointing.interval-rows' = '5000';\n", shape.script)
			}
			run := func(dir string, kill time.Duration) (killed bool) {
				args := append([]string{"--state", filepath.Join(dir, "state.db")}, shape.flags...)
				return runKilled(t, bin, append(args, "-f", filepath.Join(dir, "job.sql")), kill)
			}
			ref := filepath.Join(work, shape.name, "ref")
			setup(ref)
			began := time.Now()
			run(ref, 0)
			whole := time.Since(began)

			crash := filepath.Join(work, shape.name, "crash")
			setup(crash)
			rng := rand.New(rand.NewPCG(2026, uint64(len(shape.name))))
			killed, finished := 0, false
			for i := 0; i < kills; i++ {
				at := 30*time.Millisecond + time.Duration(rng.Int64N(2*int64(whole)/int64(kills)+1))
				if !run(crash, at) {
					finished = true // it finished before its kill
					break
				}
				killed++
				if sameFiles(sinkFiles(t, crash), sinkFiles(t, ref)) {
					// The kill came as the process exited, after the
					// script had completed (and forgotten its progress,
					// so that running it again runs it afresh): its work
					// is done, as a user would see in its output.
					finished = true
					break
				}
			}
			if !finished {
				run(crash, 0) // what is left
			}
			want, got := sinkFiles(t, ref), sinkFiles(t, crash)
			if len(want) == 0 {
				t.Fatal("the uninterrupted run wrote no sink file")
			}
			for name, w := range want {
				if g := got[name]; g != w {
					t.Errorf("after %d kills %s differs from an uninterrupted run: %d lines, want %d (%s)",
						killed, name, strings.Count(g, "\n"), strings.Count(w, "\n"), firstDiff(g, w))
				}
			}
			t.Logf("%d kills; an uninterrupted run took %v", killed, whole)
		})
	}
}

// crashClicks is the crash tests' input: rows of a user (of users), a
// value and a time that moves forward by 1 s on average, some rows late by
// up to 8 s.
func crashClicks(rows, users int) string {
	var data bytes.Buffer
	w := bufio.NewWriter(&data)
	width := len(fmt.Sprint(users - 1))
	start := int64(1_767_225_600_000) // 2026-01-01
	for i := 0; i < rows; i++ {
		ts := start + int64(i)*1000 - int64((i*7)%9)*1000
		fmt.Fprintf(w, "u%0*d,%d,%d\n", width, (i*7919)%users, i%100, ts)
	}
	w.Flush()
	return data.String()
}

// writeCrashJob writes a crash test's folder: the input, the functions and
// job.sql, which runs preamble, declares sum and the clicks table, then
// script.
func writeCrashJob(t *testing.T, dir, clicks, preamble, script string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"clicks.csv": clicks,
		"sum.js":     crashSum,
		"quiet.js":   crashQuiet,
		"recent.js":  crashRecent,
		"job.sql": preamble + `CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE clicks (user_id STRING, v INT, ts BIGINT) WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
` + script,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sameFiles reports whether two folders' sink files are the same.
func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		if y, ok := b[name]; !ok || x != y {
			return false
		}
	}
	return true
}

// sinkFiles reads the sink files (every *.csv but the input) of a folder.
func sinkFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	sort.Strings(names)
	out := map[string]string{}
	for _, n := range names {
		if filepath.Base(n) == "clicks.csv" {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = string(b)
	}
	return out
}

// firstDiff says where two texts first differ, by line.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("one ends at line %d", min(len(g), len(w)))
}

// runKilled runs ptfsh with args and, when kill > 0, kills it with SIGKILL
// after kill unless it ended before; it reports whether it was killed. A
// run that fails fails the test.
func runKilled(t *testing.T, bin string, args []string, kill time.Duration) (killed bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if kill > 0 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run failed before the kill: %v\n%s", err, stderr.String())
			}
			return false
		case <-time.After(kill):
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-done
			return true
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("run failed: %v\n%s", err, stderr.String())
	}
	return false
}
