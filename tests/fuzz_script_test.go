package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/internal/testarchive"
)

// functionPath matches the file of a CREATE FUNCTION ... AS '...'.
var functionPath = regexp.MustCompile(`(?i)AS\s+'[^']*\.(js|ts|mjs)'`)

// FuzzScript runs whole scripts (statements and one function file, f.js)
// through a shell, as a user's script runs: whatever the input, no
// statement may panic (an internal error), and every run ends. Its seeds
// are the golden archives, with their function files renamed to f.js.
// .ci/run fuzzes it for a few seconds; go test runs the seeds.
func FuzzScript(f *testing.F) {
	archives, _ := filepath.Glob(filepath.Join("testdata", "*", "*.txtar"))
	for _, path := range archives {
		t, err := testarchive.Read(path)
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		js := firstSection(string(raw), ".js")
		f.Add(functionPath.ReplaceAllString(t.Query, "AS 'f.js'"), js)
	}
	f.Fuzz(func(t *testing.T, query, js string) {
		if len(query) > 8<<10 || len(js) > 8<<10 {
			t.Skip("longer than the fuzzer needs")
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "f.js"), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		seed := int64(1)
		sh, err := assembly.New(assembly.Options{Out: &out, Memory: true, BaseDir: dir, Format: "rows", Seed: &seed,
			EvalTimeout: 200 * time.Millisecond, MaxRowsPerCall: 10_000, MaxMemory: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer sh.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		sh.RunEach(ctx, "query.sql", query, &out)
		if strings.Contains(out.String(), "internal error") {
			t.Fatalf("a statement panicked:\n%s\n-- f.js --\n%s\n-- output --\n%s", query, js, out.String())
		}
	})
}

// firstSection returns the first section of a txtar archive whose name
// ends in ext, or "".
func firstSection(archive, ext string) string {
	lines := strings.SplitAfter(archive, "\n")
	var b strings.Builder
	in := false
	for _, l := range lines {
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(strings.TrimSpace(l), " --") {
			if in {
				break
			}
			name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(l), "-- "), " --")
			in = strings.HasSuffix(name, ext)
			continue
		}
		if in {
			b.WriteString(l)
		}
	}
	return b.String()
}
