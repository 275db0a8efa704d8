// Package tests holds ptfsh's end-to-end tests: script archives with golden
// outputs, the examples, and checks of the package graph.
package tests

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/internal/testarchive"
	"github.com/ptfsh/ptfsh/state"
)

var update = flag.Bool("update", false, "rewrite the want.out sections of the script tests, the generated tables of docs/ and the outputs shown in the docs")

// TestScripts runs every testdata/**/*.txtar archive: its files are written
// to a temporary folder, the statements of query.sql run one by one through
// a Session (an error is printed and the next statement runs, as in the
// REPL), and stdout and errors together must equal want.out.
func TestScripts(t *testing.T) {
	var files []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".txtar") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no script tests found")
	}
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(file), "testdata/"), ".txtar")
		t.Run(name, func(t *testing.T) { runArchive(t, file) })
	}
}

func runArchive(t *testing.T, file string) {
	test, dir := extractArchive(t, file)
	checkArchive(t, file, test, RunScript(t, dir, test.Query))
}

// checkArchive compares what an archive's statements printed with its
// want.out section, or rewrites the section with -update.
func checkArchive(t *testing.T, file string, test *testarchive.Test, got string) {
	t.Helper()
	if *update {
		if err := test.Update(got); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, ok := test.Want()
	if !ok {
		t.Fatalf("%s: no want.out section (run go test ./tests -update)", file)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: output differs (-want +got):\n%s", file, diff)
	}
}

// extractArchive reads a script archive and writes its files to a
// temporary folder.
func extractArchive(t *testing.T, file string) (*testarchive.Test, string) {
	t.Helper()
	test, err := testarchive.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := test.Extract(dir); err != nil {
		t.Fatal(err)
	}
	return test, dir
}

// RunScript runs the statements of query in a fresh session whose relative
// paths resolve in dir, and returns stdout and errors interleaved; the
// processing-time clock is pinned as ptfsh test pins it.
func RunScript(t testing.TB, dir, query string) string {
	t.Helper()
	return RunScriptNamed(t, dir, "query.sql", query)
}

// RunScriptNamed is RunScript with the script's file name for positions.
func RunScriptNamed(t testing.TB, dir, filename, query string) string {
	t.Helper()
	store := state.NewMem()
	defer store.Close()
	return runScript(t, dir, filename, query, store)
}

// runWithStore runs a script over a given store (a state file kept across runs).
func runWithStore(t testing.TB, dir, query string, store state.Store) string {
	t.Helper()
	return runScript(t, dir, "query.sql", query, store)
}

func runScript(t testing.TB, dir, filename, query string, store state.Store) string {
	t.Helper()
	return runScriptParallel(t, dir, filename, query, store, 1)
}

// runScriptParallel is runScript with --parallelism par.
func runScriptParallel(t testing.TB, dir, filename, query string, store state.Store, par int) string {
	t.Helper()
	var out bytes.Buffer
	seed := int64(1)
	// The eval timeout and the clock of ptfsh test, so that ptfsh test
	// tests/testdata prints what these archives want.
	sh, err := assembly.New(assembly.Options{Out: &out, Store: store, BaseDir: dir, Seed: &seed, Parallelism: par,
		EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sh.RunEach(context.Background(), filename, query, &out)
	// Paths in messages read as the script wrote them, as ptfsh test
	// shows them (absolute ones would differ from machine to machine).
	return strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
}
