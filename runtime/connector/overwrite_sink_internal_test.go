package connector

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// INSERT OVERWRITE of a csv table writes a new file and renames it over
// the table's after the final checkpoint commits: a statement that fails
// or is killed leaves the file as it was (its new file removed by the next
// INSERT); one killed between the commit and the rename has the rename
// done by the next INSERT, OVERWRITE or INTO; the unfinished length an
// INSERT INTO left does not cut the replaced file.
func TestOverwriteSink_commit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "o.csv")
	tmp := filepath.Join(dir, ".o.csv.ptfsh-tmp")
	store := state.NewMem()
	var notes bytes.Buffer
	table := &catalog.Table{Name: "o", Kind: catalog.TableConnector, BaseDir: dir,
		Schema:  types.Schema{Columns: []types.Column{{Name: "n", Type: types.TypeBigInt}}},
		Options: map[string]string{"connector": "filesystem", "path": "o.csv", "format": "csv"}}
	newSink := func(overwrite bool) *FileSink {
		k := NewFileSink(table, types.Pos{}, types.Schema{}, store, &notes, false)
		if overwrite {
			k.SetOverwrite()
		}
		return k
	}
	run := func(k *FileSink, rows ...int64) {
		t.Helper()
		if err := k.Begin(types.Schema{}); err != nil {
			t.Fatal(err)
		}
		for _, n := range rows {
			if err := k.Row(types.Row{Kind: types.Insert, Fields: []any{n}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkpoint := func(k *FileSink) {
		t.Helper()
		if err := k.End(); err != nil {
			t.Fatal(err)
		}
		if err := store.Update(k.Checkpoint); err != nil {
			t.Fatal(err)
		}
	}
	finish := func(k *FileSink) {
		t.Helper()
		checkpoint(k)
		k.Committed()
		k.Close()
	}
	file := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return "missing"
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", ",")
	}

	k := newSink(false)
	run(k, 1, 2)
	finish(k)
	if k := newSink(true); k.NoCheckpoints() == "" || !k.Overwrite() {
		t.Error("an OVERWRITE sink allows checkpoints before its end")
	}

	// A statement that fails: the file stays, the new one goes.
	k = newSink(true)
	run(k, 7)
	k.Close()
	if got := file(); got != "1,2" {
		t.Errorf("after a failed OVERWRITE: %s", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the new file is left: %v", err)
	}

	// One that ends replaces the rows, and counts its own.
	k = newSink(true)
	run(k, 3, 4, 5)
	finish(k)
	if got := file(); got != "3,4,5" || k.Rows() != 3 {
		t.Errorf("after an OVERWRITE: %s, %d rows", got, k.Rows())
	}

	// Killed before its end: the next INSERT INTO removes its new file.
	k = newSink(true)
	run(k, 9)
	k.pq.bw.Flush()
	k.pq.f.Close() // killed
	notes.Reset()
	k = newSink(false)
	run(k, 6)
	finish(k)
	if got := file(); got != "3,4,5,6" || !strings.Contains(notes.String(), "removed '.o.csv.ptfsh-tmp'") {
		t.Errorf("after a killed OVERWRITE and an INSERT INTO: %s; notes %q", got, notes.String())
	}

	// An INSERT INTO killed after a checkpoint leaves its length; an
	// OVERWRITE killed after its final checkpoint, before the rename.
	k = newSink(false)
	run(k, 10)
	if err := store.Update(k.Checkpoint); err != nil {
		t.Fatal(err)
	}
	k.Committed()
	k.w.Flush()
	k.f.Close() // killed
	k = newSink(true)
	run(k, 8)
	checkpoint(k)
	k.pq.f.Close() // killed: no Committed, no Close
	if got := file(); got != "3,4,5,6,10" {
		t.Errorf("before the rename: %s", got)
	}
	notes.Reset()
	k = newSink(false)
	run(k, 11)
	finish(k)
	if got := file(); got != "8,11" || !strings.Contains(notes.String(), "is now the file that the last INSERT wrote") {
		t.Errorf("after the roll-forward and an INSERT INTO: %s; notes %q", got, notes.String())
	}
}

// An OVERWRITE killed after its final checkpoint, before the rename, is
// completed by FinishRenames when the state file is opened again, before
// any statement reads the table; a second call finds nothing to do.
func TestFinishRenames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "o.csv")
	store := state.NewMem()
	var notes bytes.Buffer
	table := &catalog.Table{Name: "o", Kind: catalog.TableConnector, BaseDir: dir,
		Schema:  types.Schema{Columns: []types.Column{{Name: "n", Type: types.TypeBigInt}}},
		Options: map[string]string{"connector": "filesystem", "path": "o.csv", "format": "csv"}}
	if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := NewFileSink(table, types.Pos{}, types.Schema{}, store, &notes, false)
	k.SetOverwrite()
	if err := k.Begin(types.Schema{}); err != nil {
		t.Fatal(err)
	}
	if err := k.Row(types.Row{Kind: types.Insert, Fields: []any{int64(2)}}); err != nil {
		t.Fatal(err)
	}
	if err := k.End(); err != nil {
		t.Fatal(err)
	}
	if err := store.Update(k.Checkpoint); err != nil {
		t.Fatal(err)
	}
	k.pq.f.Close() // killed: no Committed, no Close
	for i := range 2 {
		notes.Reset()
		if err := FinishRenames(store, &notes); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		if string(b) != "2\n" {
			t.Errorf("call %d: o.csv holds %q, want the OVERWRITE's row", i+1, b)
		}
		if wantNote := i == 0; strings.Contains(notes.String(), "is now the file that the last INSERT wrote") != wantNote {
			t.Errorf("call %d: notes %q", i+1, notes.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".o.csv.ptfsh-tmp")); !os.IsNotExist(err) {
		t.Errorf("the new file is left: %v", err)
	}
}
