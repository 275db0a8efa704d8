package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheck runs `go run ./bench/run -check` on 2,000 rows: the generator,
// ptfsh, plain Go and (when it is installed) the Node harness must print
// the same rows for every workload.
func TestCheck(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build ptfsh with")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	statSources(t, root)
	// B-1k and B-1M differ from B in their data only; leaving them out
	// keeps the test short.
	c := config{rows: 2000, rounds: 1, keys: 100_000, skew: 1, seed: 1, check: true, root: root, dataDir: t.TempDir(),
		only: "A,B,C,B-jsonl,F,B-spill,B-ckpt"}
	var stdout, stderr bytes.Buffer
	if err := run(c, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "outputs agree") {
		t.Errorf("no verdict in\n%s", stdout.String())
	}
	if strings.Contains(stderr.String(), "node not found") {
		t.Log("node is not installed: checked ptfsh against plain Go only")
	}
}

// statSources stats the repository's sources. The check runs them in
// child processes, whose reads go test does not see; the stats tell its
// result cache that a change to any of them means running the test again.
func statSources(t *testing.T, root string) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		switch filepath.Ext(path) {
		case ".go", ".js", ".mjs", ".ts", ".sql", ".mod", ".sum":
			_, err = os.Stat(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPaired: the paired ratio compares runs of the same round, so a
// machine twice as slow in later rounds leaves it unchanged.
func TestPaired(t *testing.T) {
	runs := func(walls ...float64) []measurement {
		var ms []measurement
		for _, w := range walls {
			ms = append(ms, measurement{wall: time.Duration(w * float64(time.Second))})
		}
		return ms
	}
	ref := result{engine: "ref", runs: runs(1, 2, 2)}
	r := result{engine: "r", runs: runs(1.1, 2.2, 2.2, 9)}
	got := r.paired(ref)
	if len(got) != 3 {
		t.Fatalf("paired gave %d ratios, want 3 (the rounds both ran): %v", len(got), got)
	}
	for i, p := range got {
		if p < 0.909 || p > 0.91 {
			t.Errorf("round %d: paired ratio %.4f, want 1/1.1", i, p)
		}
	}
	if got := r.paired(result{runs: runs(0)}); len(got) != 0 {
		t.Errorf("a run without a time paired: %v", got)
	}
}

// TestCheckWorkflow runs -check on the Parquet workloads (the flights
// workflow and the window aggregation) over a Parquet copy of
// examples/data/flights-20k.json that ptfsh writes: ptfsh must write rows,
// and the same rows as DuckDB when pip's duckdb is installed.
func TestCheckWorkflow(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build ptfsh with")
	}
	if testing.Short() {
		t.Skip("builds ptfsh and runs it over 20,000 flights; not with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	statSources(t, root)
	dir := t.TempDir()
	ptfsh := filepath.Join(dir, "ptfsh")
	build := exec.Command("go", "build", "-o", ptfsh, "./cmd/ptfsh")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pq := filepath.Join(dir, "flights.parquet")
	q := `CREATE TABLE src (` + "`date`" + ` TIMESTAMP(3), delay INT, distance INT, origin STRING, destination STRING)
  WITH ('connector' = 'filesystem', 'path' = '` + filepath.Join(root, "examples", "data", "flights-20k.json") + `', 'format' = 'json', 'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm');
CREATE TABLE dst (` + "`date`" + ` TIMESTAMP(3), delay INT, distance INT, origin STRING, destination STRING)
  WITH ('connector' = 'filesystem', 'path' = '` + pq + `', 'format' = 'parquet');
INSERT INTO dst SELECT * FROM src;
`
	if out, err := exec.Command(ptfsh, "-e", q).CombinedOutput(); err != nil {
		t.Fatalf("writing %s: %v\n%s", pq, err, out)
	}
	c := config{rows: 2000, rounds: 1, keys: 100_000, skew: 1, seed: 1, check: true, root: root, dataDir: t.TempDir(),
		only: "workflow,window", flightsParquet: pq}
	var stdout, stderr bytes.Buffer
	if err := run(c, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "outputs agree") {
		t.Errorf("no verdict in\n%s", stdout.String())
	}
	if strings.Contains(stderr.String(), "without DuckDB") {
		t.Log("python3 with duckdb is not installed: checked that ptfsh writes rows only")
	}
	t.Log(stdout.String())
}
