package connector

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

func parquetTable(dir string) *catalog.Table {
	return &catalog.Table{Name: "p", Kind: catalog.TableConnector, BaseDir: dir,
		Schema:  types.Schema{Columns: []types.Column{{Name: "n", Type: types.TypeBigInt}}},
		Options: map[string]string{"connector": "filesystem", "path": "p.parquet", "format": "parquet"}}
}

// readParquet returns the values of column n, or "missing".
func readParquet(t *testing.T, dir string) string {
	t.Helper()
	tb := parquetTable(dir)
	r, err := format.OpenParquet(TablePath(tb), tb.Schema, format.ParquetSourceOptions{})
	if errors.Is(err, os.ErrNotExist) {
		return "missing"
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var vals []string
	for {
		row, err := r.Next()
		if err == io.EOF {
			return strings.Join(vals, ",")
		}
		if err != nil {
			t.Fatal(err)
		}
		vals = append(vals, fmt.Sprint(row.Fields[0]))
	}
}

// A parquet sink writes its file at the end, after its final checkpoint
// commits; a statement that fails leaves the file as it was; one killed
// between its final checkpoint and the rename has the rename done by the
// next INSERT; a later INSERT adds rows.
func TestParquetSink_commit(t *testing.T) {
	dir := t.TempDir()
	store := state.NewMem()
	var notes bytes.Buffer
	tmp := filepath.Join(dir, ".p.parquet.ptfsh-tmp")
	newSink := func() *FileSink {
		return NewFileSink(parquetTable(dir), types.Pos{}, types.Schema{}, store, &notes, false)
	}
	row := func(n int64) types.Row { return types.Row{Kind: types.Insert, Fields: []any{n}} }
	run := func(k *FileSink, rows ...int64) {
		t.Helper()
		if err := k.Begin(types.Schema{}); err != nil {
			t.Fatal(err)
		}
		for _, n := range rows {
			if err := k.Row(row(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	finish := func(k *FileSink) {
		t.Helper()
		if err := k.End(); err != nil {
			t.Fatal(err)
		}
		if err := store.Update(k.Checkpoint); err != nil {
			t.Fatal(err)
		}
		k.Committed()
		k.Close()
	}

	if k := newSink(); k.NoCheckpoints() == "" {
		t.Error("a parquet sink allows checkpoints before its end")
	}
	// A statement that fails: no file.
	k := newSink()
	run(k, 1, 2)
	k.Close()
	if got := readParquet(t, dir); got != "missing" {
		t.Errorf("after a failure: %s", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the new file is left: %v", err)
	}

	// One that ends.
	k = newSink()
	run(k, 1, 2)
	finish(k)
	if got := readParquet(t, dir); got != "1,2" {
		t.Errorf("after an end: %s", got)
	}

	// One killed before its end: its new file stays, the next removes it.
	k = newSink()
	run(k, 3)
	k.pq.bw.Flush()
	k.pq.f.Close() // killed
	if got := readParquet(t, dir); got != "1,2" {
		t.Errorf("during a killed INSERT: %s", got)
	}
	notes.Reset()
	k = newSink()
	run(k, 4)
	if want := "note: table 'p': removed '.p.parquet.ptfsh-tmp', the unfinished file of an INSERT that did not end\n"; notes.String() != want {
		t.Errorf("note %q, want %q", notes.String(), want)
	}

	// Killed after its final checkpoint committed, before the rename.
	if err := k.End(); err != nil {
		t.Fatal(err)
	}
	if err := store.Update(k.Checkpoint); err != nil {
		t.Fatal(err)
	}
	k.pq.f.Close() // killed: no Committed, no Close
	if got := readParquet(t, dir); got != "1,2" {
		t.Errorf("before the rename: %s", got)
	}
	notes.Reset()
	k = newSink()
	run(k, 5)
	if !strings.Contains(notes.String(), "is now the file that the last INSERT wrote") {
		t.Errorf("note %q", notes.String())
	}
	finish(k)
	if got := readParquet(t, dir); got != "1,2,4,5" {
		t.Errorf("after the roll-forward: %s", got)
	}

	// A checkpoint whose transaction fails: the file stays as it was.
	k = newSink()
	run(k, 6)
	if err := k.End(); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	if err := store.Update(func(tx state.Tx) error {
		if err := k.Checkpoint(tx); err != nil {
			return err
		}
		return full
	}); !errors.Is(err, full) {
		t.Fatal(err)
	}
	k.Close()
	k = newSink()
	run(k)
	finish(k)
	if got := readParquet(t, dir); got != "1,2,4,5" {
		t.Errorf("after a failed final checkpoint: %s", got)
	}
}

// A file whose columns are not the table's is not rewritten.
func TestParquetSink_otherColumns(t *testing.T) {
	dir := t.TempDir()
	tb := parquetTable(dir)
	f, err := os.Create(TablePath(tb))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := format.NewParquetWriter(f, types.Schema{Columns: []types.Column{{Name: "n", Type: types.TypeBigInt}, {Name: "extra", Type: types.TypeString}}})
	w.Write([]any{int64(1), "x"})
	w.Close()
	f.Close()
	var notes bytes.Buffer
	k := NewFileSink(tb, types.Pos{}, types.Schema{}, state.NewMem(), &notes, false)
	err = k.Begin(types.Schema{})
	k.Close()
	if want := "table 'p': cannot add rows to 'p.parquet': its columns (n, extra) are not the table's (n), and a Parquet file is rewritten to add rows; INSERT INTO another file"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
