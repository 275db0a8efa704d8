package connector

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

var prefetchSchema = types.Schema{Columns: []types.Column{
	{Name: "name", Type: types.Type{Kind: types.KindVarChar, Length: types.MaxLength}},
	{Name: "n", Type: types.Type{Kind: types.KindInt}},
}}

// writePrefetchCSV writes rows from..to-1, every 500th of them bad (its
// number is not an INT).
func writePrefetchCSV(t *testing.T, path string, from, to int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := from; i < to; i++ {
		if i%500 == 499 {
			fmt.Fprintf(&b, "k%d,x%d\n", i%7, i)
			continue
		}
		fmt.Fprintf(&b, "k%d,%d\n", i%7, i)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type readStep struct {
	row types.Row
	err string
	pos format.SourcePos
}

// readSteps calls Next n times, or until io.EOF.
func readSteps(t *testing.T, r format.RowReader, n int) []readStep {
	t.Helper()
	var out []readStep
	for range n {
		row, err := r.Next()
		s := readStep{row: row, pos: r.Position()}
		if err != nil {
			s.err = err.Error()
		}
		out = append(out, s)
		if err == io.EOF {
			break
		}
	}
	return out
}

// TestPrefetchReader_sameAsDirect: read ahead, a file gives the same rows,
// bad rows, positions and end as read directly, and after its end the rows
// appended to it; skipped rows are counted the same.
func TestPrefetchReader_sameAsDirect(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprintf("ignore-parse-errors=%v", ignore), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.csv")
			total := 3*prefetchRows + 17
			writePrefetchCSV(t, path, 0, total)
			opts := format.CSVSourceOptions{IgnoreParseErrors: ignore}
			direct, err := format.OpenCSV(path, prefetchSchema, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer direct.Close()
			inner, err := format.OpenCSV(path, prefetchSchema, opts)
			if err != nil {
				t.Fatal(err)
			}
			ahead := newPrefetchReader(inner)
			defer ahead.Close()
			if got, want := ahead.Position(), direct.Position(); got != want {
				t.Fatalf("position before reading: %+v, want %+v", got, want)
			}
			want := readSteps(t, direct, 2*total)
			got := readSteps(t, ahead, 2*total)
			if len(got) != len(want) || want[len(want)-1].err != io.EOF.Error() {
				t.Fatalf("%d steps read ahead, %d directly (last %q)", len(got), len(want), want[len(want)-1].err)
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("step %d: read ahead %+v, directly %+v", i, got[i], want[i])
				}
			}
			if !ahead.direct {
				t.Fatal("the goroutine did not stop at the end of the file")
			}
			n1, first1 := direct.(format.SkipReporter).Skipped()
			n2, first2 := ahead.Skipped()
			if n1 != n2 || !reflect.DeepEqual(first1, first2) || ignore != (n1 > 0) {
				t.Fatalf("skipped %d %v read ahead, %d %v directly", n2, first2, n1, first1)
			}
			// The file grows after the goroutine found its end and before
			// the statement got there: the rows are read, as directly.
			inner2, err := format.OpenCSV(path, prefetchSchema, opts)
			if err != nil {
				t.Fatal(err)
			}
			late := newPrefetchReader(inner2)
			defer late.Close()
			<-late.exited // the goroutine decoded the file to its end
			writePrefetchCSV(t, path, total, total+5)
			if n := len(readSteps(t, late, 2*total)); n != len(want)+5 {
				t.Fatalf("%d steps after the file grew at its end, want %d", n, len(want)+5)
			}
			// The file grows again: both read on.
			writePrefetchCSV(t, path, total, total+10)
			want, got = readSteps(t, direct, 20), readSteps(t, ahead, 20)
			if len(want) != 16 || !reflect.DeepEqual(got, want) {
				t.Fatalf("after growing: read ahead %+v, directly %+v", got, want)
			}
		})
	}
}

// TestPrefetchReader_close: closing in the middle stops the goroutine;
// closing twice is safe.
func TestPrefetchReader_close(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	writePrefetchCSV(t, path, 0, 10*prefetchRows)
	inner, err := format.OpenCSV(path, prefetchSchema, format.CSVSourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := newPrefetchReader(inner)
	if got := readSteps(t, p, 10); len(got) != 10 || got[9].pos.Row != 10 {
		t.Fatalf("read %+v", got)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	default:
		t.Fatal("the goroutine still runs after Close")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// failingReader returns n rows, then err (a panic when err is nil).
type failingReader struct {
	n, i int
	err  error
}

func (r *failingReader) Next() (types.Row, error) {
	if r.i == r.n {
		if r.err == nil {
			panic("reader bug")
		}
		return types.Row{}, r.err
	}
	r.i++
	return types.NewRow(int64(r.i)), nil
}
func (r *failingReader) Position() format.SourcePos { return format.SourcePos{Row: int64(r.i)} }
func (r *failingReader) Close() error               { return nil }

// TestPrefetchReader_failures: a final error comes after the rows before
// it, and again on the next call; a panic of the reader is raised on the
// statement's goroutine after the rows before it.
func TestPrefetchReader_failures(t *testing.T) {
	boom := errors.New("disk on fire")
	p := newPrefetchReader(&failingReader{n: prefetchRows + 3, err: boom})
	steps := readSteps(t, p, prefetchRows+5)
	if len(steps) != prefetchRows+5 || steps[prefetchRows+2].err != "" || steps[prefetchRows+3].err != boom.Error() || steps[prefetchRows+4].err != boom.Error() {
		t.Fatalf("steps around the error: %+v", steps[prefetchRows+2:])
	}
	if pos := p.Position(); pos.Row != prefetchRows+3 {
		t.Fatalf("position after the error: %+v", pos)
	}
	p.Close()

	p = newPrefetchReader(&failingReader{n: 5})
	defer p.Close()
	readSteps(t, p, 5)
	defer func() {
		if v := recover(); v != "reader bug" {
			t.Fatalf("recovered %v", v)
		}
	}()
	p.Next()
	t.Fatal("no panic")
}

// TestPrefetchReader_parquet: read ahead, a Parquet file of several
// batches gives the same rows, bad rows and positions as read directly
// (the rows handed over a batch at a time, the bad ones one by one): no
// row read ahead changes when the pages behind it are released.
func TestPrefetchReader_parquet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// n is a BIGINT in the file, read as an INT: a value out of range is
	// a bad row, every 300th, and two in a row at 1000 and 1001.
	written := prefetchSchema
	written.Columns = slices.Clone(written.Columns)
	written.Columns[1].Type = types.TypeBigInt
	w, err := format.NewParquetWriter(f, written)
	if err != nil {
		t.Fatal(err)
	}
	total := 5*prefetchRows + 3
	for i := range total {
		n := int64(i)
		if i%300 == 299 || i == 1000 || i == 1001 {
			n = 1 << 40
		}
		if err := w.Write([]any{fmt.Sprintf("name-%d", i%97), n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	direct, err := format.OpenParquet(path, prefetchSchema, format.ParquetSourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	inner, err := format.OpenParquet(path, prefetchSchema, format.ParquetSourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := inner.(format.RowBatchReader); !ok {
		t.Fatal("the Parquet reader reads no batches")
	}
	ahead := newPrefetchReader(inner)
	defer ahead.Close()
	// The rows read ahead are kept while the later batches decode (and
	// release their pages), then compared.
	got := readSteps(t, ahead, total+1)
	want := readSteps(t, direct, total+1)
	if len(want) != total+1 || want[total].err != io.EOF.Error() || want[299].err == "" || want[1001].err == "" {
		t.Fatalf("%d steps read directly (last %q, 299th %q)", len(want), want[len(want)-1].err, want[299].err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("step %d: read ahead %+v, directly %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("%d steps read ahead, %d directly", len(got), len(want))
	}
}
