package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
