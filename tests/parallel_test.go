package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ptfsh/ptfsh/state"
)

// workerNote matches the end-of-statement note that says how many workers
// a PTF call ran on; it appears only at parallelism > 1.
var workerNote = regexp.MustCompile(`(?m)^note: \S+ ran on (\d+) workers?( \(parallelism \d+\)[^\n]*)?\n`)

// stripWorkerNotes removes the worker notes and counts the calls that ran
// on more than one worker.
func stripWorkerNotes(s string) (string, int) {
	n := 0
	for _, m := range workerNote.FindAllStringSubmatch(s, -1) {
		if m[1] != "1" {
			n++
		}
	}
	return workerNote.ReplaceAllString(s, ""), n
}

// TestParallelEquivalence runs every script archive and example at
// parallelism 2 and requires the output of parallelism 1 (want.out, the
// .out files), the worker notes aside.
func TestParallelEquivalence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every script test again")
	}
	parallelCalls := 0
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
	check := func(t *testing.T, name, want, got string) {
		got, n := stripWorkerNotes(got)
		parallelCalls += n
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s at parallelism 2: output differs from parallelism 1 (-want +got):\n%s", name, diff)
		}
	}
	for _, file := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(file), "testdata/"), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, dir, query, wantIdx := extractArchive(t, file)
			if wantIdx < 0 {
				t.Skip("no want.out")
			}
			store := state.NewMem()
			defer store.Close()
			check(t, file, string(ar.Files[wantIdx].Data), runScriptParallel(t, dir, "query.sql", query, store, 2))
		})
	}
	scripts, err := filepath.Glob(filepath.Join("..", "examples", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		t.Run("examples/"+name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(path, ".sql") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			dir, err := filepath.Abs(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			store := state.NewMem()
			defer store.Close()
			check(t, path, string(want), runScriptParallel(t, dir, filepath.Base(path), string(src), store, 2))
		})
	}
	t.Logf("%d PTF calls ran on 2 workers", parallelCalls)
	if parallelCalls == 0 {
		t.Error("no PTF call ran on more than one worker: the equivalence test proves nothing")
	}
}
