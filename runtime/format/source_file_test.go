package format_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// writeFile writes content to a new file named name and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll reads every row, and the first error other than io.EOF with
// path shown as its base name.
func readAll(r format.RowReader, path string) (rows []string, err error) {
	for {
		row, err := r.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, errors.New(strings.ReplaceAll(err.Error(), path, filepath.Base(path)))
		}
		rows = append(rows, showRow(row))
	}
}

func schema(cols ...types.Column) types.Schema { return types.Schema{Columns: cols} }

func col(name string, t types.Type) types.Column { return types.Column{Name: name, Type: t} }

var scoreSchema = schema(col("name", types.TypeString), col("score", types.TypeInt), col("ts", tTS3))

type readerCase struct {
	name     string
	schema   types.Schema // scoreSchema when empty
	csv      format.CSVSourceOptions
	json     format.JSONSourceOptions
	content  string
	want     []string // rows read before the error, if any
	wantErr  string   // with the file shown as its base name
	skipped  int64
	firstBad []string // Error() of the first skipped rows
}

func (tt readerCase) run(t *testing.T, open func(path string, s types.Schema) (format.RowReader, error), file string) {
	t.Helper()
	s := tt.schema
	if s.Columns == nil {
		s = scoreSchema
	}
	path := writeFile(t, file, tt.content)
	r, err := open(path, s)
	var rows []string
	if err == nil {
		defer r.Close()
		rows, err = readAll(r, path)
	} else {
		err = errors.New(strings.ReplaceAll(err.Error(), path, file))
	}
	gotErr := ""
	if err != nil {
		gotErr = err.Error()
	}
	if gotErr != tt.wantErr {
		t.Errorf("error\n got: %s\nwant: %s", gotErr, tt.wantErr)
	}
	if strings.Join(rows, "\n") != strings.Join(tt.want, "\n") {
		t.Errorf("rows\n got: %s\nwant: %s", strings.Join(rows, "\n      "), strings.Join(tt.want, "\n      "))
	}
	if r == nil {
		return
	}
	sr, ok := r.(format.SkipReporter)
	if !ok {
		t.Fatal("the reader is not a SkipReporter")
	}
	n, first := sr.Skipped()
	var firstText []string
	for _, e := range first {
		firstText = append(firstText, strings.ReplaceAll(e.Error(), path, file))
	}
	if n != tt.skipped || strings.Join(firstText, "\n") != strings.Join(tt.firstBad, "\n") {
		t.Errorf("skipped %d %q, want %d %q", n, firstText, tt.skipped, tt.firstBad)
	}
}

func TestOpenCSV(t *testing.T) {
	bob := `+I("Bob", int64(12), 2025-03-27T12:00:00.000)`
	alice := `+I("Alice", int64(7), 2025-03-27T12:00:00.000)`
	notNull := schema(col("name", types.TypeString.AsNotNull()), col("score", types.TypeInt), col("ts", tTS3))
	tests := []readerCase{
		{name: "basic", content: "Bob,12,2025-03-27T12:00:00Z\nAlice,7,1743076800000\n", want: []string{bob, alice}},
		{name: "last line without newline", content: "Bob,12,2025-03-27 12:00:00\nAlice,7,2025-03-27T12:00", want: []string{bob, alice}},
		{name: "empty file", content: ""},
		{name: "blank lines", content: "\n\r\nBob,12,2025-03-27 12:00:00\n\n", want: []string{bob}},
		{name: "crlf", content: "Bob,12,2025-03-27 12:00:00\r\nAlice,7,1743076800000\r\n", want: []string{bob, alice}},
		{name: "bom", content: "\xef\xbb\xbfBob,12,2025-03-27 12:00:00\n", want: []string{bob}},
		// An empty string field is the empty string, quoted or not, as
		// Flink's csv format reads it; an empty field of another type NULL.
		{name: "nulls and empty strings", content: ",,\n\"\",,\n", want: []string{`+I("", NULL, NULL)`, `+I("", NULL, NULL)`}},
		{name: "empty is null", csv: format.CSVSourceOptions{EmptyIsNull: true}, content: ",,\n\"\",,\n", want: []string{"+I(NULL, NULL, NULL)", `+I("", NULL, NULL)`}},
		{name: "quoted empty int", content: "a,\"\",\n", wantErr: `x.csv:1:3: column "score": cannot parse "" as INT`},
		{name: "quotes", content: "\"a,b\",\"1\",\n\"say \"\"hi\"\"\",2,\n", want: []string{`+I("a,b", int64(1), NULL)`, `+I("say \"hi\"", int64(2), NULL)`}},
		{name: "quote inside unquoted field", content: "a\"b,1,\n", want: []string{`+I("a\"b", int64(1), NULL)`}},
		{name: "embedded newlines", content: "\"two\nlines\",1,\n\"crlf\r\nkept\",2,\nc,x,\n",
			want:    []string{`+I("two\nlines", int64(1), NULL)`, `+I("crlf\r\nkept", int64(2), NULL)`},
			wantErr: `x.csv:5:3: column "score": cannot parse "x" as INT`},
		{name: "delimiter", csv: format.CSVSourceOptions{FieldDelimiter: ';'}, content: "a,b;1;\n", want: []string{`+I("a,b", int64(1), NULL)`}},
		{name: "tab delimiter", csv: format.CSVSourceOptions{FieldDelimiter: '\t'}, content: "a b\t1\t\n", want: []string{`+I("a b", int64(1), NULL)`}},
		{name: "quote character", csv: format.CSVSourceOptions{QuoteCharacter: '\''}, content: "'a,b',1,\n", want: []string{`+I("a,b", int64(1), NULL)`}},
		{name: "quotes disabled", csv: format.CSVSourceOptions{DisableQuoteCharacter: true}, content: "\"a\",1,\n", want: []string{`+I("\"a\"", int64(1), NULL)`}},
		{name: "escape", csv: format.CSVSourceOptions{EscapeCharacter: '\\'}, content: "a\\,b,1,\n\"q\\\"\",2,\n", want: []string{`+I("a,b", int64(1), NULL)`, `+I("q\"", int64(2), NULL)`}},
		{name: "comments", csv: format.CSVSourceOptions{AllowComments: true}, content: "# a comment\nBob,12,2025-03-27 12:00:00\n#,x,\n", want: []string{bob}},
		{name: "comments off", content: "# a comment\n", wantErr: `x.csv:1:12: column "score": missing value: expected 3 fields (name, score, ts), found 1`},
		{name: "null literal", csv: format.CSVSourceOptions{NullLiteral: "NULL"}, content: "NULL,NULL,\n\"NULL\",1,\n", want: []string{"+I(NULL, NULL, NULL)", `+I("NULL", int64(1), NULL)`}},
		{name: "too many fields", content: "a,1,,extra\n", wantErr: `x.csv:1:6: unexpected extra field "extra": expected 3 fields (name, score, ts), found 4`},
		{name: "too few fields", content: "Bob,12,2025-03-27 12:00:00\nab,1\n", want: []string{bob}, wantErr: `x.csv:2:5: column "ts": missing value: expected 3 fields (name, score, ts), found 2`},
		{name: "unterminated quote", content: "a,\"1\nb,2,\n", wantErr: `x.csv:1:3: column "score": unterminated quoted field`},
		{name: "text after closing quote", content: "\"a\"b,1,\n", wantErr: `x.csv:1:4: column "name": unexpected 'b' after the closing quote of the field at column 1`},
		{name: "invalid utf8", content: "ok,1,\na\xff,2,\n", want: []string{`+I("ok", int64(1), NULL)`}, wantErr: `x.csv:2:1: column "name": invalid UTF-8 in "a\xff"`},
		{name: "int out of range", content: "a,3000000000,\n", wantErr: `x.csv:1:3: column "score": cannot parse "3000000000" as INT: out of range [-2147483648, 2147483647]`},
		{name: "not a number", content: "a,abc,\n", wantErr: `x.csv:1:3: column "score": cannot parse "abc" as INT`},
		{name: "bad timestamp", content: "a,1,yesterday\n", wantErr: `x.csv:1:5: column "ts": cannot parse "yesterday" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds`},
		{name: "spaces around numbers", content: "a, 1 ,\n", want: []string{`+I("a", int64(1), NULL)`}},
		{name: "not null", schema: notNull, content: ",1,\n", want: []string{`+I("", int64(1), NULL)`}},
		{name: "not null empty", schema: notNull, csv: format.CSVSourceOptions{EmptyIsNull: true}, content: ",1,\n", wantErr: `x.csv:1:1: column "name": null value (an empty field) for STRING NOT NULL`},
		{name: "header", csv: format.CSVSourceOptions{Header: true}, content: "name,score,ts\nBob,12,2025-03-27 12:00:00\n", want: []string{bob}},
		{name: "header quoted with bom", csv: format.CSVSourceOptions{Header: true}, content: "\xef\xbb\xbf\"name\", score ,ts\r\nBob,12,2025-03-27 12:00:00\r\n", want: []string{bob}},
		{name: "header mismatch", csv: format.CSVSourceOptions{Header: true}, content: "name,points,ts\n", wantErr: `x.csv:1:1: header (name, points, ts) does not match the declared columns (name, score, ts)`},
		{name: "header short", csv: format.CSVSourceOptions{Header: true}, content: "name,score\n", wantErr: `x.csv:1:1: header (name, score) does not match the declared columns (name, score, ts)`},
		{name: "header on empty file", csv: format.CSVSourceOptions{Header: true}, content: ""},
		{name: "header only", csv: format.CSVSourceOptions{Header: true}, content: "name,score,ts"},
		{name: "timestamp pattern", csv: format.CSVSourceOptions{Parse: textparse.Options{TimestampPattern: "yyyy/MM/dd HH:mm"}}, content: "a,1,2001/01/01 00:47\n", want: []string{`+I("a", int64(1), 2001-01-01T00:47:00.000)`}},
		{name: "bad pattern", csv: format.CSVSourceOptions{Parse: textparse.Options{TimestampPattern: "yyyy-mm"}}, content: "", wantErr: `open x.csv: timestamp pattern "yyyy-mm": needs a year (yyyy), a month (MM) and a day (dd)`},
		{name: "bad delimiter", csv: format.CSVSourceOptions{FieldDelimiter: '\n'}, content: "", wantErr: `open x.csv: field delimiter '\n' must be an ASCII character other than a line break`},
		{name: "delimiter is quote", csv: format.CSVSourceOptions{FieldDelimiter: '"'}, content: "", wantErr: `open x.csv: quote character and field delimiter are both '"'`},
		{name: "ignore parse errors", csv: format.CSVSourceOptions{IgnoreParseErrors: true},
			content: "a,x,\nBob,12,2025-03-27 12:00:00\nb,1\nc,1,2,3\n\"d,1,\nok\",1,\n\"e\"x,1,\nf,1,never\ng,99999999999,\nAlice,7,2025-03-27 12:00:00\n\"open",
			want:    []string{bob, `+I("d,1,\nok", int64(1), NULL)`, alice},
			skipped: 7,
			firstBad: []string{
				`x.csv:1:3: column "score": cannot parse "x" as INT`,
				`x.csv:3:4: column "ts": missing value: expected 3 fields (name, score, ts), found 2`,
				`x.csv:4:7: unexpected extra field "3": expected 3 fields (name, score, ts), found 4`,
				`x.csv:7:4: column "name": unexpected 'x' after the closing quote of the field at column 1`,
				`x.csv:8:5: column "ts": cannot parse "never" as TIMESTAMP(3): expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, func(path string, s types.Schema) (format.RowReader, error) {
				return format.OpenCSV(path, s, tt.csv)
			}, "x.csv")
		})
	}
}

func TestOpenCSV_longLine(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	path := writeFile(t, "long.csv", long+",1,\n\""+long+"\n"+long+"\",2,\n")
	r, err := format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, want := range []string{long, long + "\n" + long} {
		row, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row.Fields[0] != want || row.Fields[1] != int64(i+1) {
			t.Errorf("row %d: got %d bytes, %v", i, len(row.Fields[0].(string)), row.Fields[1])
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("got %v, want io.EOF", err)
	}
	if pos := r.Position(); pos.Line != 4 || pos.Row != 2 {
		t.Errorf("position %v, want line 4, row 2", pos)
	}
}

func TestOpen_badPaths(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.csv")
	openers := map[string]func(string) error{
		"csv": func(p string) error {
			_, err := format.OpenCSV(p, scoreSchema, format.CSVSourceOptions{})
			return err
		},
		"json": func(p string) error {
			_, err := format.OpenJSON(p, scoreSchema, format.JSONSourceOptions{})
			return err
		},
	}
	for name, open := range openers {
		err := open(missing)
		if err == nil || err.Error() != "open "+missing+": no such file or directory" || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s, missing file: got %v", name, err)
		}
		err = open(dir)
		if err == nil || err.Error() != "open "+dir+": is a directory, not a file" {
			t.Errorf("%s, directory: got %v", name, err)
		}
	}
}

// TestOpen_notRegular: a named pipe would block the open until a writer
// comes, and a device such as /dev/zero (or a symbolic link to it) never
// ends: both are refused at once, naming the file.
func TestOpen_notRegular(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.csv")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{pipe, "open " + pipe + ": is a named pipe, not a regular file"},
		{zero, "open " + zero + ": is a device, not a regular file"},
	} {
		done := make(chan error, 2)
		go func() {
			_, err := format.OpenCSV(tc.path, scoreSchema, format.CSVSourceOptions{})
			done <- err
			_, err = format.OpenJSON(tc.path, scoreSchema, format.JSONSourceOptions{})
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if err == nil || err.Error() != tc.want {
					t.Errorf("got %v, want %s", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: the open hangs", tc.path)
			}
		}
	}
}

func TestLineTooLong(t *testing.T) {
	if got, want := format.LineTooLong("big.csv", 3).Error(), "line 3 of big.csv is longer than 64 MiB, the longest line a file table reads"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestReaders_positionAndResume reads part of a file, reopens it at the
// position reached, and checks that the rest comes out exactly once.
func TestReaders_positionAndResume(t *testing.T) {
	type reader struct {
		name, content string
		open          func(path string, resume format.SourcePos) (format.RowReader, error)
	}
	openCSV := func(path string, resume format.SourcePos) (format.RowReader, error) {
		return format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{Header: true, Resume: resume})
	}
	openJSON := func(path string, resume format.SourcePos) (format.RowReader, error) {
		return format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{Resume: resume})
	}
	formats := []reader{
		{"csv", "\xef\xbb\xbfname,score,ts\r\na,1,\r\n\"b\nb\",2,\r\n\r\nc,3,\r\nd,4,", openCSV},
		{"json lines", "{\"name\":\"a\",\"score\":1}\n\n{\"name\":\"b\",\"score\":2}\r\n{\"name\":\"c\",\"score\":3}\n{\"name\":\"d\",\"score\":4}", openJSON},
		{"json array", "\xef\xbb\xbf [{\"name\":\"a\",\"score\":1},\n {\"name\":\"b\",\n  \"score\":2} , {\"name\":\"c\",\"score\":3},\n{\"name\":\"d\",\"score\":4}\n]\n", openJSON},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			path := writeFile(t, "resume", f.content)
			r, err := f.open(path, format.SourcePos{})
			if err != nil {
				t.Fatal(err)
			}
			all, err := readAll(r, path)
			r.Close()
			if err != nil || len(all) != 4 {
				t.Fatalf("got %q, %v", all, err)
			}
			for cut := 1; cut <= 4; cut++ {
				r, _ := f.open(path, format.SourcePos{})
				for range cut {
					if _, err := r.Next(); err != nil {
						t.Fatal(err)
					}
				}
				pos := r.Position()
				r.Close()
				if pos.Row != int64(cut) || pos.File != path {
					t.Errorf("cut %d: position %v", cut, pos)
				}
				r2, err := f.open(path, pos)
				if err != nil {
					t.Fatal(err)
				}
				rest, err := readAll(r2, path)
				if err != nil || strings.Join(rest, " ") != strings.Join(all[cut:], " ") {
					t.Errorf("cut %d at %v: got %q, %v; want %q", cut, pos, rest, err, all[cut:])
				}
				if end := r2.Position(); end.Row != 4 || end.Offset != int64(len(f.content)) {
					t.Errorf("cut %d: end position %v, want row 4 at offset %d", cut, end, len(f.content))
				}
				r2.Close()
			}
		})
	}
}

func TestReaders_resumeErrors(t *testing.T) {
	path := writeFile(t, "short.csv", "a,1,\n")
	_, err := format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{Resume: format.SourcePos{Offset: 100, Line: 3}})
	want := "open " + path + ": cannot resume at offset 100: the file has only 5 bytes (truncated or replaced?)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// Errors after a resume keep true line and column numbers.
	path = writeFile(t, "x.json", `[{"score":1}, {"score":2}, {"score":"x"}]`)
	r, err := format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{Resume: format.SourcePos{Offset: 12, Line: 1, Row: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := readAll(r, path)
	if len(rows) != 1 || err == nil || err.Error() != `x.json:1:37: column "score": cannot parse "x" as INT` {
		t.Errorf("got %q, %v", rows, err)
	}
}

// TestReaders_growingFile reads a file that another writer extends: the
// reader returns io.EOF at the current end, then the appended rows.
func TestReaders_growingFile(t *testing.T) {
	for _, ext := range []string{"csv", "json"} {
		t.Run(ext, func(t *testing.T) {
			first, more := "a,1,\nb,2,\n", "c,3,\n"
			if ext == "json" {
				first, more = "{\"name\":\"a\"}\n{\"name\":\"b\"}\n", "{\"name\":\"c\"}\n"
			}
			path := writeFile(t, "grow."+ext, first)
			var r format.RowReader
			var err error
			if ext == "csv" {
				r, err = format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{})
			} else {
				r, err = format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			rows, _ := readAll(r, path)
			if len(rows) != 2 {
				t.Fatalf("first read: %q", rows)
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(more)
			f.Close()
			rows, err = readAll(r, path)
			if err != nil || len(rows) != 1 || !strings.HasPrefix(rows[0], `+I("c"`) {
				t.Errorf("after growing: %q, %v", rows, err)
			}
			if pos := r.Position(); pos.Row != 3 || pos.Line != 4 {
				t.Errorf("position %v, want row 3, line 4", pos)
			}
		})
	}
}

func TestReaders_closeTwice(t *testing.T) {
	path := writeFile(t, "x.csv", "a,1,\n")
	r, err := format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := r.Next(); err == nil || err == io.EOF {
		t.Errorf("Next after Close: %v", err)
	}
}

// exampleData returns the path of a whole data set of examples/data.
func exampleData(name string) string {
	return filepath.Join("..", "..", "examples", "data", name)
}

var flightsSchema = schema(
	col("date", tTS3), col("delay", types.TypeInt), col("distance", types.TypeInt),
	col("origin", types.TypeString), col("destination", types.TypeString))

var flightsOpts = format.JSONSourceOptions{Parse: textparse.Options{TimestampPattern: "yyyy/MM/dd HH:mm"}}

// countRows reads every row and returns the count and the first row.
func countRows(t *testing.T, open func() (format.RowReader, error)) (int64, string) {
	t.Helper()
	r, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n int64
	first := ""
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			first = showRow(row)
		}
		n++
	}
	if pos := r.Position(); pos.Row != n {
		t.Errorf("position %v after %d rows", pos, n)
	}
	return n, first
}

func TestOpenJSON_flights(t *testing.T) {
	const first = `+I(2001-01-01T00:47:00.000, int64(66), int64(1750), "DTW", "LAS")`
	n, got := countRows(t, func() (format.RowReader, error) {
		return format.OpenJSON("testdata/flights-300.json", flightsSchema, flightsOpts)
	})
	if n != 300 || got != first {
		t.Errorf("testdata: %d rows, first %s", n, got)
	}
	n, got = countRows(t, func() (format.RowReader, error) {
		return format.OpenJSON(exampleData("flights-20k.json"), flightsSchema, flightsOpts)
	})
	if n != 20000 || got != first {
		t.Errorf("whole file: %d rows, first %s", n, got)
	}
}

var stocksSchema = schema(col("symbol", types.TypeString), col("date", tDate), col("price", tDecimal(10, 2)))

var stocksOpts = format.CSVSourceOptions{Header: true, Parse: textparse.Options{TimestampPattern: "MMM d yyyy"}}

func TestOpenCSV_stocks(t *testing.T) {
	const first = `+I("MSFT", 2000-01-01, 3981E-2)`
	n, got := countRows(t, func() (format.RowReader, error) {
		return format.OpenCSV("testdata/stocks-300.csv", stocksSchema, stocksOpts)
	})
	if n != 300 || got != first {
		t.Errorf("testdata: %d rows, first %s", n, got)
	}
	n, got = countRows(t, func() (format.RowReader, error) {
		return format.OpenCSV(exampleData("stocks.csv"), stocksSchema, stocksOpts)
	})
	if n != 560 || got != first {
		t.Errorf("whole file: %d rows, first %s", n, got)
	}
}

func TestOpenCSV_moreRealData(t *testing.T) {
	github := schema(col("time", tLTZ3), col("count", types.TypeInt))
	n, got := countRows(t, func() (format.RowReader, error) {
		return format.OpenCSV("testdata/github-100.csv", github,
			format.CSVSourceOptions{Header: true, Parse: textparse.Options{TimestampPattern: "yyyy/MM/dd HH:mm:ss"}})
	})
	if n != 100 || got != `+I(2015-01-01T01:00:00.000Z, int64(2))` {
		t.Errorf("github: %d rows, first %s", n, got)
	}
	names := []string{"Airport Name", "Aircraft Make Model", "Effect Amount of damage", "Flight Date",
		"Aircraft Airline Operator", "Origin State", "Phase of flight", "Wildlife Size", "Wildlife Species",
		"Time of day", "Cost Other", "Cost Repair", "Cost Total $", "Speed IAS in knots"}
	var cols []types.Column
	for _, name := range names {
		t := types.TypeString
		switch name {
		case "Flight Date":
			t = tDate
		case "Cost Other", "Cost Repair", "Cost Total $", "Speed IAS in knots":
			t = types.TypeInt
		}
		cols = append(cols, col(name, t))
	}
	r, err := format.OpenCSV("testdata/birdstrikes-50.csv", schema(cols...), format.CSVSourceOptions{Header: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rows, err := readAll(r, "")
	if err != nil || len(rows) != 50 {
		t.Fatalf("birdstrikes: %d rows, %v", len(rows), err)
	}
	want := `+I("BARKSDALE AIR FORCE BASE ARPT", "T-38A", "None", 1990-01-08, "MILITARY", "Louisiana", "Climb", "Large", "Turkey vulture", "Day", int64(0), int64(0), int64(0), int64(300))`
	if rows[0] != want {
		t.Errorf("birdstrikes first row\n got: %s\nwant: %s", rows[0], want)
	}
	nulls := 0
	for _, row := range rows {
		nulls += strings.Count(row, "NULL")
	}
	if nulls == 0 {
		t.Error("birdstrikes: no NULL from the empty fields")
	}
}

// fuzzSchema has a column of each family, so that fuzzed text reaches
// every value parser.
var fuzzSchema = schema(col("s", types.TypeString), col("i", types.TypeInt), col("ts", tTS3),
	col("d", tDecimal(5, 2)), col("a", types.ArrayOf(types.TypeInt)))

// drain reads r to the end, checking the contract of errors: a
// *ParseError has a line and a column of at least 1, and a reader that
// reports one either moves on or keeps reporting it.
func drain(t *testing.T, r format.RowReader) {
	for {
		before := r.Position()
		row, err := r.Next()
		if err == io.EOF {
			return
		}
		if err == nil {
			if len(row.Fields) != len(fuzzSchema.Columns) {
				t.Fatalf("row of %d fields", len(row.Fields))
			}
			continue
		}
		var pe *format.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("an error that is not a *ParseError: %v", err)
		}
		if pe.Line < 1 || pe.Col < 1 {
			t.Fatalf("bad position in %q", err)
		}
		if strings.Contains(pe.Error(), "\n") {
			t.Fatalf("a multi-line error: %q", err)
		}
		if r.Position() == before {
			return // a final error
		}
	}
}

func FuzzCSV(f *testing.F) {
	seeds := []string{
		"", "\n", "\xef\xbb\xbf", "a,1,2025-03-27T12:00:00Z,1.5,[1]\n",
		"\"a\nb\",\"\",,,\r\n", "\"unterminated", "a\"b,1,x,y,z", "a,99999999999,1,1,[x]",
		"#c\n,,,,\n", "\"a\"x,1,2,3,4\n", "a\xff,1,,,\n", ",,,,\n,,,,", "\"\"\"\",,,,\r",
	}
	for _, s := range seeds {
		f.Add([]byte(s), byte(0))
	}
	// One file per fuzzing process, rewritten for each input: a temporary
	// folder per input makes fuzzing ten times slower.
	path := filepath.Join(f.TempDir(), "fuzz.csv")
	f.Fuzz(func(t *testing.T, data []byte, flags byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := format.CSVSourceOptions{
			Header:            flags&1 != 0,
			AllowComments:     flags&2 != 0,
			IgnoreParseErrors: flags&4 != 0,
		}
		if flags&8 != 0 {
			opts.EscapeCharacter = '\\'
		}
		if flags&16 != 0 {
			opts.FieldDelimiter = ';'
		}
		r, err := format.OpenCSV(path, fuzzSchema, opts)
		if err != nil {
			var pe *format.ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("open: %v", err)
			}
			return
		}
		defer r.Close()
		drain(t, r)
	})
}

// TestReaders_lineTooLong: a file with a line past MaxLineBytes (a file of
// zeros without a line end, a quoted field that never closes) stops with
// the line's number instead of growing memory without bound.
func TestReaders_lineTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("writes three 65 MiB files")
	}
	big := strings.Repeat("x", format.MaxLineBytes+1)
	for _, tc := range []struct{ name, content string }{
		{"plain.csv", "a,1,\n" + big + "\n"},
		{"quoted.csv", "a,1,\n\"" + big},
		{"lines.json", "{\"name\":\"a\"}\n{\"name\":\"" + big + "\"}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.name, tc.content)
			var r format.RowReader
			var err error
			if strings.HasSuffix(tc.name, ".csv") {
				r, err = format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{})
			} else {
				r, err = format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for err == nil {
				_, err = r.Next()
			}
			var lt *format.LineTooLongError
			if !errors.As(err, &lt) || lt.Line != 2 {
				t.Fatalf("err = %v, want line 2 too long", err)
			}
		})
	}
}

// TestReaders_follow reads a file as lines are appended to it, some in
// pieces: a line is read only once its line end is written.
func TestReaders_follow(t *testing.T) {
	for _, ext := range []string{"csv", "json"} {
		t.Run(ext, func(t *testing.T) {
			line := func(name string, score int) string {
				if ext == "json" {
					return fmt.Sprintf("{\"name\":%q,\"score\":%d}\n", name, score)
				}
				return fmt.Sprintf("%s,%d,\n", name, score)
			}
			path := writeFile(t, "follow."+ext, line("a", 1))
			in := format.InputOptions{Follow: true}
			var r format.RowReader
			var err error
			if ext == "csv" {
				r, err = format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{Input: in})
			} else {
				r, err = format.OpenJSON(path, scoreSchema, format.JSONSourceOptions{Input: in})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			appendTo := func(s string) {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(s)
				f.Close()
			}
			var got []string
			read := func(step string, want int) {
				t.Helper()
				rows, err := readAll(r, path)
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				got = append(got, rows...)
				if len(rows) != want {
					t.Fatalf("%s: read %q; want %d rows", step, rows, want)
				}
			}
			read("the first line", 1)
			b := line("bob", 22)
			appendTo(b[:4]) // half a line: not a row yet
			read("half a line", 0)
			read("half a line again", 0)
			appendTo(b[4:] + line("c", 3)[:2])
			read("the line's end and the start of the next", 1)
			appendTo(line("c", 3)[2:] + line("d", 4))
			read("two more", 2)
			if pos := r.Position(); pos.Row != 4 || pos.Line != 5 {
				t.Errorf("position %v, want row 4, line 5", pos)
			}
			want := []string{`+I("a"`, `+I("bob", int64(22)`, `+I("c", int64(3)`, `+I("d", int64(4)`}
			for i, w := range want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("row %d = %s; want %s...", i, got[i], w)
				}
			}
		})
	}
}

// TestReaders_stream reads rows from a stream (standard input) and
// refuses to resume one.
func TestReaders_stream(t *testing.T) {
	in := format.InputOptions{Stream: strings.NewReader("a,1,\nb,2,\nc,3,")}
	r, err := format.OpenCSV("<stdin>", scoreSchema, format.CSVSourceOptions{Input: in})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readAll(r, "<stdin>")
	if err != nil || len(rows) != 3 {
		t.Fatalf("read %q, %v; want 3 rows", rows, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = format.OpenCSV("<stdin>", scoreSchema, format.CSVSourceOptions{Input: in, Resume: format.SourcePos{Offset: 5, Line: 2, Row: 1}})
	if err == nil || !strings.Contains(err.Error(), "cannot resume") {
		t.Errorf("resuming a stream: %v; want an error", err)
	}
	bad := format.InputOptions{Stream: strings.NewReader("{\"name\":\"a\"}\n{\"name\":\n")}
	jr, err := format.OpenJSON("<stdin>", scoreSchema, format.JSONSourceOptions{Input: bad})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readAll(jr, "<stdin>"); err == nil || !strings.Contains(err.Error(), "<stdin>:2:") {
		t.Errorf("a bad line of a stream: %v; want an error at <stdin>:2", err)
	}
}

// TestReaders_followGzip refuses to follow a compressed file.
func TestReaders_followGzip(t *testing.T) {
	path := writeFile(t, "x.csv.gz", "")
	_, err := format.OpenCSV(path, scoreSchema, format.CSVSourceOptions{Input: format.InputOptions{Follow: true}})
	if err == nil || !strings.Contains(err.Error(), "cannot be followed") {
		t.Errorf("following a gzip file: %v", err)
	}
}
