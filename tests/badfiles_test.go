package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// growLine is line i of a growing file: 16 bytes, so that 256 lines fill
// a 4 KiB page exactly and no line written at once straddles two pages
// (the kernel makes a write visible to readers page by page).
func growLine(i int) string { return fmt.Sprintf("r%06d,%07d\n", i, i) }

// appendLines appends lines from..to-1 to path, one write each.
func appendLines(path string, from, to int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for i := from; i < to; i++ {
		if _, err := f.WriteString(growLine(i)); err != nil {
			return err
		}
	}
	return nil
}

// growPTF is a Go PTF with row semantics that passes its rows through and,
// on the row numbered at, appends lines to a file: the statement that
// reads the file makes it grow while it reads it.
type growPTF struct {
	path         string
	at, from, to int // on row at, append lines from..to-1
}

func (g *growPTF) Eval(ctx *ptf.Context, row types.Row) error {
	id := row.Fields[1].(int64)
	if int(id) == g.at {
		if err := appendLines(g.path, g.from, g.to); err != nil {
			return err
		}
	}
	return ctx.Collect(types.Row{Kind: types.Insert, Fields: []any{id}})
}

func (g *growPTF) OnTimer(*ptf.Context) error { return nil }

// checkGrowRows checks that out (rows as +I[r000001, 1]) are the lines
// 1, 2, ... of a growing file, each whole and read once, and returns how
// many there are.
func checkGrowRows(t *testing.T, out string) int {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		if want := fmt.Sprintf("+I[r%06d, %d]", i+1, i+1); l != want {
			t.Fatalf("row %d is %q, want %q (a line torn, lost or read twice)", i+1, l, want)
		}
	}
	return len(lines)
}

// TestFileGrowsWhileRead reads a file table while it grows. Lines
// appended before the reader reaches the end of the file are read, each
// once and whole; the statement ends at the end of the file as it finds
// it, and the next statement reads everything.
func TestFileGrowsWhileRead(t *testing.T) {
	const first = 3000 // 48 KB: more than one buffer of the reader
	// Every statement reads the file from its start: it finishes, so the
	// next does not resume after it.
	newSession := func(t *testing.T) *hostileSession {
		h := newHostileSession(t)
		h.mustExec("SET 'ptfsh.end-of-input' = 'true';")
		return h
	}
	t.Run("appended by the statement", func(t *testing.T) {
		h := newSession(t)
		path := filepath.Join(h.dir, "grow.csv")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := appendLines(path, 1, first+1); err != nil {
			t.Fatal(err)
		}
		g := &growPTF{path: path, at: 10, from: first + 1, to: 2*first + 1}
		h.sess.Catalog().RegisterBuiltIn(&ptf.FuncDef{
			Name: "grow", Language: "GO", Output: types.TypeBigInt,
			Args: []ptf.ArgDecl{{Name: "input", Traits: ptf.RowSemanticTable}},
			New:  func(ptf.CallSpec) (ptf.PTF, error) { return g, nil },
		})
		h.mustExec(`CREATE TABLE grow (name STRING, id BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'grow.csv', 'format' = 'csv');`)
		out := h.mustExec("SELECT * FROM grow(TABLE grow);")
		if n := strings.Count(out, "\n"); n != 2*first {
			t.Errorf("read %d rows, want %d: the rows appended while reading are read", n, 2*first)
		}
		// The next statement reads the whole file, once.
		if got := checkGrowRows(t, h.mustExec("SELECT * FROM grow;")); got != 2*first {
			t.Errorf("second read: %d rows, want %d", got, 2*first)
		}
	})
	t.Run("appended by another writer", func(t *testing.T) {
		h := newSession(t)
		path := filepath.Join(h.dir, "grow.csv")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := appendLines(path, 1, first+1); err != nil {
			t.Fatal(err)
		}
		h.mustExec(`CREATE TABLE grow (name STRING, id BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'grow.csv', 'format' = 'csv');`)
		const last = 40 * first
		var wg sync.WaitGroup
		var werr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := first + 1; i <= last && werr == nil; i += 100 {
				werr = appendLines(path, i, min(i+100, last+1))
			}
		}()
		var reads []int
		for range 5 {
			out, err := h.exec(context.Background(), "SELECT * FROM grow;")
			if err != nil {
				wg.Wait()
				t.Fatal(err)
			}
			reads = append(reads, checkGrowRows(t, out))
		}
		wg.Wait()
		if werr != nil {
			t.Fatal(werr)
		}
		if got := checkGrowRows(t, h.mustExec("SELECT * FROM grow;")); got != last {
			t.Errorf("after the writer: %d rows, want %d", got, last)
		}
		for _, n := range reads {
			if n < first {
				t.Errorf("reads %v: one read fewer than the %d rows the file had from the start", reads, first)
			}
		}
		t.Logf("rows read while the file grew: %v", reads)
	})
}

// TestBadFiles_sessionGoesOn checks that a statement failing on a bad file
// leaves the session working and prints the error with its position, as
// the shell shows it.
func TestBadFiles_sessionGoesOn(t *testing.T) {
	h := newHostileSession(t)
	if err := os.WriteFile(filepath.Join(h.dir, "bad.csv"), []byte("Bob,12\nAlice,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.mustExec(`CREATE TABLE bad (name STRING, score INT)
WITH ('connector' = 'filesystem', 'path' = 'bad.csv', 'format' = 'csv');`)
	src := "SELECT * FROM bad;"
	_, err := h.exec(context.Background(), src)
	if err == nil {
		t.Fatal("no error")
	}
	want := "query.sql:1:15: bad.csv:2:7: column \"score\": cannot parse \"x\" as INT\n | SELECT * FROM bad;\n |               ^\n"
	if got := session.FormatError(err, src); got != want {
		t.Errorf("FormatError:\n got %q\nwant %q", got, want)
	}
	if got := h.mustExec("SELECT 1 AS one;"); got != "+I[1]\n" {
		t.Errorf("after the bad file: %q", got)
	}
}
