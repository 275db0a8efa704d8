package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/bench/internal/gen"
)

// params are the generator's parameters of a workload's data set.
func (c config) params(d dataSet) gen.Params {
	keys := d.keys
	if keys == 0 {
		keys = c.keys
		if d.kind == "flights" {
			keys = gen.DefaultKeys("flights")
		}
	}
	return gen.Params{Kind: d.kind, Rows: c.rows, Keys: keys, Skew: c.skew, Seed: c.seed, Format: d.format}
}

// generate writes a data set into dir, unless a file of the same
// parameters is there already (the generator is deterministic).
func generate(dir string, p gen.Params, stderr io.Writer) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, p.Name())
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	start := time.Now()
	f, err := os.CreateTemp(dir, p.Name()+".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if err := gen.Write(f, p); err != nil {
		f.Close()
		return "", fmt.Errorf("generating %s: %w", p.Name(), err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return "", err
	}
	fmt.Fprintf(stderr, "generated %s in %.1f s\n", path, time.Since(start).Seconds())
	return path, nil
}

// countRows counts the rows of a Parquet file of flights with ptfsh.
func countRows(ptfsh, path string) (int, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
	q := fmt.Sprintf("SET 'sql-client.execution.result-mode' = 'table';\nCREATE TABLE f (origin STRING) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'parquet');\nSELECT COUNT(*) FROM f;\n", strings.ReplaceAll(abs, "'", "''"))
	cmd := exec.Command(ptfsh, "--format", "csv", "-e", q)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, fmt.Errorf("counting the rows of %s: %v\n%s", path, err, ee.Stderr)
		}
		return 0, fmt.Errorf("counting the rows of %s: %v", path, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return 0, fmt.Errorf("counting the rows of %s: ptfsh printed nothing", path)
	}
	last := lines[len(lines)-1]
	n, err := strconv.Atoi(last[strings.LastIndexByte(last, ',')+1:])
	if err != nil || n < 1 {
		return 0, fmt.Errorf("counting the rows of %s: ptfsh ended with %.100q", path, last)
	}
	return n, nil
}
