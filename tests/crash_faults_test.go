package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// faultShapes are scripts of every sink kind whose commit path the fault
// crash test cuts: INSERT INTO csv and json (append, cut back at a
// restart), INSERT INTO parquet (a new file renamed over the table's, its
// rows copied first), INSERT OVERWRITE of csv and json (a new file renamed
// over the table's), and a statement set of all three kinds. Each runs
// after the preamble of writeCrashJob (sum.js, the clicks table).
var faultShapes = []struct{ name, script string }{
	{name: "csv", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
`},
	{name: "json", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.json', 'format' = 'json');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
`},
	{name: "parquet", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.parquet', 'format' = 'parquet');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id) WHERE n < 5;
INSERT INTO totals SELECT user_id, v, 0 FROM clicks WHERE v > 97;
`},
	{name: "overwrite", script: `
CREATE TABLE big (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');
CREATE TABLE bigj (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.json', 'format' = 'json');
INSERT INTO big SELECT user_id, v FROM clicks WHERE v > 90;
INSERT OVERWRITE big SELECT user_id, v FROM clicks WHERE v > 95;
INSERT OVERWRITE bigj SELECT user_id, v FROM clicks WHERE v < 3;
`},
	{name: "statement_set", script: `
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv', 'format' = 'csv');
CREATE TABLE big (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.json', 'format' = 'json');
CREATE TABLE small (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'small.parquet', 'format' = 'parquet');
EXECUTE STATEMENT SET BEGIN
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
INSERT INTO big SELECT user_id, v FROM clicks WHERE v > 90;
INSERT INTO small SELECT user_id, v FROM clicks WHERE v < 5;
END;
`},
}

var faultBuild struct {
	sync.Once
	bin string
	err error
	out []byte
}

// faultBinary builds cmd/ptfsh with the tag ptfsh_faults (internal/fault):
// a build that kills itself at the point of its commit path that
// PTFSH_FAULT names.
func faultBinary(t *testing.T) string {
	t.Helper()
	faultBuild.Do(func() {
		dir, err := os.MkdirTemp("", "ptfsh-faults-")
		if err != nil {
			faultBuild.err = err
			return
		}
		faultBuild.bin = filepath.Join(dir, "ptfsh")
		faultBuild.out, faultBuild.err = exec.Command("go", "build", "-tags", "ptfsh_faults", "-o", faultBuild.bin, "../cmd/ptfsh").CombinedOutput()
	})
	if faultBuild.err != nil {
		t.Fatalf("building ptfsh with faults: %v\n%s", faultBuild.err, faultBuild.out)
	}
	return faultBuild.bin
}

// TestCrash_faultPoints kills each shape of script at every system call of
// its commit path in turn: before each rename, unlink, ftruncate and fsync
// of a sink and before and after each commit of the state file
// (internal/fault names them), as strace's fault injection would but
// counting the calls of the whole process rather than of one thread. An
// uninterrupted run counts the points it passes; then, for each point and
// each time it is reached (the first and the last when there are more
// than two; PTFSH_FAULTS=all, as .ci/run sets, for every one), a fresh
// folder runs the script killed there and then runs it again to its end,
// and every file of the folder, hidden ones included, must equal the
// uninterrupted run's byte for byte.
func TestCrash_faultPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault crash test runs each shape about twenty times")
	}
	bin := faultBinary(t)
	work := t.TempDir()
	data := crashClicks(3000, 40)
	all := os.Getenv("PTFSH_FAULTS") == "all"
	for _, shape := range faultShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			setup := func(dir string) {
				writeCrashJob(t, dir, data, "SET 'execution.checkpointing.interval-rows' = '700';\n", shape.script)
			}
			ref := filepath.Join(work, shape.name, "ref")
			setup(ref)
			log := filepath.Join(work, shape.name, "points.log")
			if killed, out := runFault(t, bin, ref, "", log); killed {
				t.Fatalf("the uninterrupted run was killed\n%s", out)
			}
			want := folderFiles(t, ref)
			counts := map[string]int{}
			b, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range strings.Fields(string(b)) {
				counts[name]++
			}
			names := make([]string, 0, len(counts))
			for name := range counts {
				names = append(names, name)
			}
			sort.Strings(names)
			runs := 0
			for _, name := range names {
				for _, n := range faultOccurrences(counts[name], all) {
					runs++
					dir := filepath.Join(work, shape.name, fmt.Sprintf("%s-%d", name, n))
					setup(dir)
					killed, out := runFault(t, bin, dir, fmt.Sprintf("%s:%d", name, n), "")
					if !killed {
						t.Errorf("%s:%d: the run was not killed (the points of a run changed?)\n%s", name, n, out)
					}
					if sameFiles(folderFiles(t, dir), want) {
						// Killed after the commit that ends the script
						// (and forgets its progress, so that running it
						// again runs it afresh): its work is done, as a
						// user would see in its files.
						continue
					}
					if killed, out := runFault(t, bin, dir, "", ""); killed {
						t.Fatalf("%s:%d: the run after the kill was killed\n%s", name, n, out)
					} else if got := folderFiles(t, dir); !sameFiles(got, want) {
						t.Errorf("killed at %s:%d and run again, the folder differs from an uninterrupted run's: %s\nthe run after the kill said:\n%s",
							name, n, folderDiff(got, want), out)
					}
				}
			}
			t.Logf("%d kills at %d points: %v", runs, len(names), counts)
		})
	}
}

// faultOccurrences picks the times a point reached count times is cut.
func faultOccurrences(count int, all bool) []int {
	if all || count <= 2 {
		out := make([]int, count)
		for i := range out {
			out[i] = i + 1
		}
		return out
	}
	return []int{1, count}
}

// runFault runs job.sql of dir with its state file, killed at the point
// fault names ("" for none) and logging the points reached to log ("" for
// none). It reports whether SIGKILL ended it, and its output. A run that
// fails fails the test.
func runFault(t *testing.T, bin, dir, fault, log string) (killed bool, out string) {
	t.Helper()
	cmd := exec.Command(bin, "--state", filepath.Join(dir, "state.db"), "-f", filepath.Join(dir, "job.sql"))
	cmd.Env = append(os.Environ(), "PTFSH_FAULT="+fault, "PTFSH_FAULT_LOG="+log)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return true, buf.String()
	}
	if err != nil {
		t.Fatalf("run (fault %q) failed: %v\n%s", fault, err, buf.String())
	}
	return false, buf.String()
}

// folderFiles reads every file of dir but the state file and the
// script's own, hidden files included.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		switch e.Name() {
		case "state.db", "job.sql", "sum.js", "quiet.js", "recent.js", "clicks.csv":
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// folderDiff says which files of two folders differ and how.
func folderDiff(got, want map[string]string) string {
	var out []string
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			out = append(out, name+" is missing")
		case g != w:
			out = append(out, fmt.Sprintf("%s: %d bytes, want %d (%s)", name, len(g), len(w), firstDiff(g, w)))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name+" should not be there")
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}
