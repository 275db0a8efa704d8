package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
