package tests

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
)

// TestScripts_windowsScratchStore runs the archives of window table
// functions as the ptfsh command runs a script without --state: over a
// scratch store, where a bounded window aggregation keeps its windows in
// memory instead of the store. The rows must be those of the store's
// way, which TestScripts checks against the same want.out.
func TestScripts_windowsScratchStore(t *testing.T) {
	for _, name := range []string{"window_agg", "windows", "group_windows", "window_join", "window_topn", "window_errors", "expressions", "nonreserved_names"} {
		file := filepath.Join("testdata", "sql", name+".txtar")
		t.Run(name, func(t *testing.T) {
			test, dir := extractArchive(t, file)
			checkArchive(t, file, test, runScratch(t, dir, test.Query))
		})
	}
}

// runScratch is RunScript over a scratch store, as the ptfsh command
// opens one without --state.
func runScratch(t *testing.T, dir, query string) string {
	t.Helper()
	var out bytes.Buffer
	seed := int64(1)
	sh, err := assembly.New(assembly.Options{Out: &out, BaseDir: dir, Seed: &seed,
		EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sh.RunEach(context.Background(), "query.sql", query, &out)
	return strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
}
