package connector

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

func sinkTable(dir string) *catalog.Table {
	return &catalog.Table{Name: "s", Kind: catalog.TableConnector, BaseDir: dir,
		Schema:  types.Schema{Columns: []types.Column{{Name: "n", Type: types.TypeInt}}},
		Options: map[string]string{"connector": "filesystem", "path": "s.csv", "format": "csv"}}
}

func readSinkFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "s.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A sink that did not end (an error, or a kill) is cut back to its last
// checkpoint; one that ended leaves no record behind.
func TestFileSink_checkpoints(t *testing.T) {
	dir := t.TempDir()
	store := state.NewMem()
	var notes bytes.Buffer
	newSink := func() *FileSink {
		tb := sinkTable(dir)
		return &FileSink{t: tb, path: TablePath(tb), store: store, errOut: &notes, op: -1}
	}
	row := func(n int64) types.Row { return types.Row{Kind: types.Insert, Fields: []any{n}} }
	checkpoint := func(k *FileSink) {
		t.Helper()
		if err := store.Update(k.Checkpoint); err != nil {
			t.Fatal(err)
		}
		k.Committed()
	}

	// A statement writes 1, checkpoints, writes 2 and fails.
	k := newSink()
	if err := k.Begin(types.Schema{}); err != nil {
		t.Fatal(err)
	}
	k.Row(row(1))
	checkpoint(k)
	k.Row(row(2))
	k.w.Flush()
	if got := readSinkFile(t, dir); got != "1\n2\n" {
		t.Fatalf("before close: %q", got)
	}
	k.Close()
	if got := readSinkFile(t, dir); got != "1\n" {
		t.Errorf("after a failure: %q, want the checkpointed \"1\\n\"", got)
	}

	// A killed statement: its record stays, and the file grew past it.
	k = newSink()
	if err := k.Begin(types.Schema{}); err != nil {
		t.Fatal(err)
	}
	k.Row(row(3))
	k.w.Flush()
	k.f.Close() // killed: no close, no checkpoint
	notes.Reset()
	k = newSink()
	if err := k.Begin(types.Schema{}); err != nil {
		t.Fatal(err)
	}
	if got := readSinkFile(t, dir); got != "1\n" {
		t.Errorf("after a kill: %q, want \"1\\n\"", got)
	}
	if want := "note: table 's': 's.csv' cut back to byte 2, where the last checkpoint of an unfinished INSERT left it\n"; notes.String() != want {
		t.Errorf("note %q, want %q", notes.String(), want)
	}

	// A statement that ends: its rows stay and its record goes.
	k.Row(row(4))
	if err := k.End(); err != nil {
		t.Fatal(err)
	}
	checkpoint(k)
	k.Close()
	if got := readSinkFile(t, dir); got != "1\n4\n" {
		t.Errorf("after an end: %q", got)
	}
	store.View(func(tx state.Tx) error {
		if b, _ := tx.Get(exec.SinkNamespace, k.key()); b != nil {
			t.Errorf("record left after the end: %s", b)
		}
		return nil
	})
}

// TestFileSink_failedCommit: a checkpoint whose transaction does not commit
// (a full disk) leaves the last committed length in force, so the failed
// statement's file is cut back to it.
func TestFileSink_failedCommit(t *testing.T) {
	dir := t.TempDir()
	store := state.NewMem()
	var notes bytes.Buffer
	tb := sinkTable(dir)
	k := NewFileSink(tb, types.Pos{}, types.Schema{}, store, &notes, false)
	if err := k.Begin(types.Schema{}); err != nil {
		t.Fatal(err)
	}
	k.Row(types.Row{Kind: types.Insert, Fields: []any{int64(1)}})
	if err := store.Update(k.Checkpoint); err != nil {
		t.Fatal(err)
	}
	k.Committed()
	k.Row(types.Row{Kind: types.Insert, Fields: []any{int64(2)}})
	full := errors.New("no space left on device")
	if err := store.Update(func(tx state.Tx) error {
		if err := k.Checkpoint(tx); err != nil {
			return err
		}
		return full // the commit fails after the sink flushed its rows
	}); !errors.Is(err, full) {
		t.Fatalf("err = %v", err)
	}
	k.Close() // the statement fails
	if got := readSinkFile(t, dir); got != "1\n" {
		t.Errorf("after a failed commit: %q, want the committed \"1\\n\"", got)
	}
}
