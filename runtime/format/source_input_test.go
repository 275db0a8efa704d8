package format_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
)

func gzipped(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGzip_readAndResume: CSV and JSON lines in a .gz file read as the
// plain file does, positions count decompressed bytes, and a reader opened
// at a position of an earlier one goes on with the same rows, line
// numbers and columns in errors.
func TestGzip_readAndResume(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"s.csv.gz", "alice,1,\nbob,2,\ncarol,x,\ndave,4,\n"},
		{"s.json.gzip", "{\"name\":\"alice\",\"score\":1}\n{\"name\":\"bob\",\"score\":2}\n{\"name\":\"carol\",\"score\":\"x\"}\n{\"name\":\"dave\",\"score\":4}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name, gzipped(t, tc.content))
			open := func(resume format.SourcePos) format.RowReader {
				var r format.RowReader
				var err error
				if strings.Contains(tc.name, ".csv") {
					r, err = format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{Resume: resume})
				} else {
					r, err = format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{Resume: resume})
				}
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			r := open(format.SourcePos{})
			if _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			row, err := r.Next()
			if err != nil || row.Fields[0] != "bob" {
				t.Fatalf("row 2 = %v, %v", row, err)
			}
			pos := r.Position()
			if want := int64(strings.Index(tc.content, "\n{\"name\":\"carol") + 1); !strings.Contains(tc.name, ".csv") && pos.Offset != want {
				t.Errorf("offset %d, want %d (decompressed)", pos.Offset, want)
			}
			_, err1 := r.Next()
			r.Close()
			r2 := open(pos)
			defer r2.Close()
			_, err2 := r2.Next()
			if err1 == nil || err2 == nil || strings.ReplaceAll(err1.Error(), path, "") != strings.ReplaceAll(err2.Error(), path, "") {
				t.Fatalf("errors differ after resume:\n%v\n%v", err1, err2)
			}
			var pe *format.ParseError
			if !errors.As(err2, &pe) || pe.Line != 3 {
				t.Fatalf("error %v, want line 3", err2)
			}
			if row, err := r2.Next(); err != nil || row.Fields[0] != "dave" {
				t.Fatalf("after resume: %v %v", row, err)
			}
			if _, err := r2.Next(); err != io.EOF {
				t.Fatalf("end: %v", err)
			}
			if _, err := format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{Resume: format.SourcePos{Offset: 1000, Line: 9, Row: 9}}); err == nil || !strings.Contains(err.Error(), "once decompressed") {
				t.Fatalf("resume past the end: %v", err)
			}
		})
	}
}

// FuzzGzip feeds the CSV reader .gz files: the bytes as they are (damaged
// gzip) or compressed (CSV through the decompressor). Bad input ends in an
// error, never a panic or endless rows.
func FuzzGzip(f *testing.F) {
	f.Add([]byte("a,1,,,\n"), byte(0))
	f.Add([]byte("a,1,,,\n"), byte(1))
	f.Add([]byte(gzipped(f, "a,1,,,\n")[:12]), byte(0))
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"), byte(0))
	path := filepath.Join(f.TempDir(), "fuzz.csv.gz")
	f.Fuzz(func(t *testing.T, data []byte, flags byte) {
		if flags&1 != 0 {
			data = []byte(gzipped(t, string(data)))
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := format.OpenCSV(path, fuzzSchema, format.CSVSourceOptions{Header: flags&2 != 0})
		if err != nil {
			var pe *format.ParseError
			var ge *format.GzipError
			if !errors.As(err, &pe) && !errors.As(err, &ge) {
				t.Fatalf("open: %v", err)
			}
			return
		}
		defer r.Close()
		for i := 0; ; i++ {
			_, err := r.Next()
			if err == io.EOF {
				return
			}
			var ge *format.GzipError
			if errors.As(err, &ge) {
				return
			}
			if i > len(data)+10 {
				t.Fatal("endless rows")
			}
			if err != nil {
				var pe *format.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error of type %T: %v", err, err)
				}
				if pe.Line < 1 || pe.Col < 1 {
					t.Fatalf("bad position in %q", err)
				}
			}
		}
	})
}
