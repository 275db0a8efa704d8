package format_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

var (
	tBool    = types.TypeBoolean
	tBigInt  = types.TypeBigInt
	tDouble  = types.TypeDouble
	tBytes   = types.TypeBytes
	tDec     = types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}
	tDec30   = types.Type{Kind: types.KindDecimal, Length: 30, Scale: 4}
	tDec5    = types.Type{Kind: types.KindDecimal, Length: 5, Scale: 1}
	tTime3   = types.Type{Kind: types.KindTime, Length: 3}
	tTime6   = types.Type{Kind: types.KindTime, Length: 6}
	tTS9     = types.Type{Kind: types.KindTimestamp, Length: 9}
	tLTZ6    = types.Type{Kind: types.KindTimestampLTZ, Length: 6}
	tIntNN   = types.TypeInt.AsNotNull()
	tString  = types.TypeString
	tInteger = types.TypeInt
)

// writeParquet writes rows given as text (parsed as each column's type,
// "NULL" for NULL) to a Parquet file and returns its path.
func writeParquet(t testing.TB, s types.Schema, rows ...[]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := format.NewParquetWriter(f, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		fields := make([]any, len(r))
		for i, text := range r {
			if text == "NULL" {
				continue
			}
			if fields[i], err = textparse.Value(text, s.Columns[i].Type, textparse.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(fields); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func openParquet(t testing.TB, path string, s types.Schema, resume format.SourcePos) format.RowReader {
	t.Helper()
	r, err := format.OpenParquet(path, s, format.ParquetSourceOptions{Resume: resume})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestParquet_roundTripEveryType(t *testing.T) {
	s := schema(col("b", tBool), col("ti", tTinyInt), col("si", tSmallInt), col("i", tIntNN), col("bi", tBigInt),
		col("f", tFloat), col("d", tDouble), col("s", tString), col("y", tBytes), col("dec", tDec), col("dec30", tDec30),
		col("day", tDate), col("t3", tTime3), col("t6", tTime6), col("ts0", tTS0), col("ts3", tTS3), col("ts6", tTS6),
		col("ts9", tTS9), col("ltz3", tLTZ3), col("ltz6", tLTZ6))
	rows := [][]string{
		{"true", "-128", "32767", "-2147483648", "9223372036854775807", "0.1", "2.5", "héllo", "AAEC", "-12345678.91",
			"-12345678901234567890123456.7891", "2025-03-27", "12:34:56.789", "23:59:59.123456", "2025-03-27 12:00:00",
			"1969-12-31 23:59:59.999", "2025-03-27 12:00:00.123456", "2025-03-27 12:00:00.123456789",
			"2025-03-27 12:00:00.5Z", "1900-01-01 00:00:00.000001Z"},
		{"NULL", "NULL", "NULL", "0", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
			"NULL", "NULL", "NULL", "NULL", "NULL", "NULL"},
	}
	path := writeParquet(t, s, rows...)
	got, err := readAll(openParquet(t, path, s, format.SourcePos{}), path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range rows {
		fields := make([]any, len(r))
		for i, text := range r {
			if text != "NULL" {
				fields[i], _ = textparse.Value(text, s.Columns[i].Type, textparse.Options{})
			}
		}
		want = append(want, showRow(types.NewRow(fields...)))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParquet_projectionAndConversions(t *testing.T) {
	file := schema(col("date", tTS6), col("delay", tBigInt), col("distance", tBigInt), col("origin", tString), col("score", tDec5))
	path := writeParquet(t, file,
		[]string{"2001-01-01 00:47:00.123456", "14", "405", "SAN", "1234.5"},
		[]string{"2001-01-01 00:48:00", "-3", "NULL", "LAX", "-0.5"})
	// Declared in another order, a subset, narrower and wider types.
	decl := schema(col("origin", tString), col("delay", tInteger), col("date", tTS3), col("score", tDec), col("distance", tDouble))
	got, err := readAll(openParquet(t, path, decl, format.SourcePos{}), path)
	if err != nil {
		t.Fatal(err)
	}
	want := `+I("SAN", int64(14), 2001-01-01T00:47:00.123, 123450E-2, float64(405))
+I("LAX", int64(-3), 2001-01-01T00:48:00.000, -50E-2, NULL)`
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
}

func TestParquet_schemaErrors(t *testing.T) {
	file := schema(col("name", tString), col("n", tBigInt), col("ts", tTS3), col("price", tDec))
	path := writeParquet(t, file, []string{"a", "1", "2025-01-01 00:00:00", "1.00"})
	for _, tt := range []struct {
		decl types.Schema
		want string
	}{
		{schema(col("missing", tString)), `t.parquet: column "missing": declared as STRING, but the file has no such column; its columns: name, n, ts, price`},
		{schema(col("Name", tString)), `t.parquet: column "Name": declared as STRING, but the file has no such column (names are case-sensitive: the file has 'name')`},
		{schema(col("name", tInteger)), `t.parquet: column "name": the file's type byte_array STRING cannot be read as INT`},
		{schema(col("ts", tDate)), `t.parquet: column "ts": the file's type int64 TIMESTAMP(isAdjustedToUTC=false,unit=MILLIS) cannot be read as DATE`},
		{schema(col("n", tString)), `t.parquet: column "n": the file's type int64 INT(64,true) cannot be read as STRING`},
		{schema(col("price", tDec5)), `t.parquet: column "price": the file's type int64 DECIMAL(10,2) has more digits after the point than DECIMAL(5, 1)`},
	} {
		_, err := format.OpenParquet(path, tt.decl, format.ParquetSourceOptions{})
		if err == nil || strings.ReplaceAll(err.Error(), path, "t.parquet") != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.decl.ColumnList(), err, tt.want)
		}
	}
	notParquet := writeFile(t, "x.parquet", "a,b\n1,2\n")
	if _, err := format.OpenParquet(notParquet, file, format.ParquetSourceOptions{}); err == nil || !strings.Contains(err.Error(), "not a Parquet file") {
		t.Errorf("a CSV file: %v", err)
	}
}

func TestParquet_badValuesArePositioned(t *testing.T) {
	file := schema(col("n", tBigInt))
	path := writeParquet(t, file, []string{"1"}, []string{"3000000000"}, []string{"NULL"}, []string{"4"})
	r := openParquet(t, path, schema(col("n", tIntNN)), format.SourcePos{})
	var got []string
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			got = append(got, strings.ReplaceAll(err.Error(), path, "t.parquet"))
			continue
		}
		got = append(got, showRow(row))
	}
	want := `+I(int64(1))
t.parquet: row 2: column "n": value 3000000000 out of range of INT NOT NULL
t.parquet: row 3: column "n": null value for INT NOT NULL
+I(int64(4))`
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("got\n%s\nwant\n%s", g, want)
	}
	if p := r.Position(); p.Offset != 4 || p.Row != 2 {
		t.Errorf("position %s", p)
	}
}

func TestParquet_invalidUTF8(t *testing.T) {
	path := filepath.Join(t.TempDir(), "u.parquet")
	f, _ := os.Create(path)
	w, err := format.NewParquetWriter(f, schema(col("s", tString)))
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]any{"ok"})
	w.Write([]any{"bad \xff"})
	w.Close()
	f.Close()
	r := openParquet(t, path, schema(col("s", tString)), format.SourcePos{})
	r.Next()
	if _, err := r.Next(); err == nil || !strings.HasSuffix(err.Error(), `u.parquet: row 2: column "s": invalid UTF-8 for STRING`) {
		t.Errorf("got %v", err)
	}
}

// TestParquet_resume reads a file of several row groups, stops at every
// position of a sample and resumes there: the rows after it follow.
func TestParquet_resume(t *testing.T) {
	n := format.ParquetRowGroupRows*2 + 1000
	s := schema(col("i", tBigInt), col("s", tString))
	path := filepath.Join(t.TempDir(), "big.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := format.NewParquetWriter(f, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := w.Write([]any{int64(i), fmt.Sprint("k", i%7)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, at := range []int64{0, 1, 1023, 1024, format.ParquetRowGroupRows - 1, format.ParquetRowGroupRows, format.ParquetRowGroupRows + 5000, int64(n) - 1, int64(n)} {
		r := openParquet(t, path, schema(col("i", tBigInt)), format.SourcePos{Offset: at, Row: at})
		want := at
		for {
			row, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if row.Fields[0] != want {
				t.Fatalf("resumed at %d: row %v, want %d", at, row.Fields[0], want)
			}
			want++
		}
		if want != int64(n) || r.Position().Offset != int64(n) || r.Position().Row != int64(n) {
			t.Errorf("resumed at %d: ended at %d, position %s", at, want, r.Position())
		}
		r.Close()
	}
	if _, err := format.OpenParquet(path, s, format.ParquetSourceOptions{Resume: format.SourcePos{Offset: int64(n) + 1}}); err == nil {
		t.Error("resuming past the end: no error")
	}
}

func TestParquet_writerRefusesNestedTypes(t *testing.T) {
	err := format.CheckParquetSchema(schema(col("a", types.ArrayOf(types.TypeInt))))
	if err == nil || err.Error() != "column 'a': a Parquet file of ptfsh cannot hold a column of type ARRAY<INT>" {
		t.Errorf("got %v", err)
	}
}

func TestParquetFooter(t *testing.T) {
	s := schema(col("i", tBigInt))
	a := writeParquet(t, s, []string{"1"})
	b := writeParquet(t, s, []string{"2"})
	fa, err := format.ParquetFooter(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, _ := format.ParquetFooter(b)
	if string(fa) == string(fb) {
		t.Error("two files of different values have the same footer")
	}
	if _, err := format.ParquetFooter(writeFile(t, "x.csv", "a,b\n")); err == nil {
		t.Error("a CSV file has a Parquet footer")
	}
}

// TestParquet_damagedFiles reads copies of a file with bytes overwritten
// or cut off at many places: each read ends in rows, io.EOF or an error,
// never a panic (parquet-go's panics on bad input are recovered).
func TestParquet_damagedFiles(t *testing.T) {
	s := schema(col("i", tBigInt), col("s", tString), col("d", tDec), col("ts", tTS6))
	var rows [][]string
	for i := 0; i < 300; i++ {
		rows = append(rows, []string{fmt.Sprint(i * 7919), fmt.Sprint("name", i%13), fmt.Sprint(i, ".25"), "2025-03-27 12:00:00.123456"})
	}
	path := writeParquet(t, s, rows...)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	try := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := format.OpenParquet(bad, s, format.ParquetSourceOptions{})
		if err != nil {
			return
		}
		defer r.Close()
		last := ""
		for n := 0; n < 10*len(rows); n++ {
			_, err := r.Next()
			switch {
			case err == io.EOF:
				return
			case err != nil && err.Error() == last:
				return // a final error: it stays
			case err != nil:
				last = err.Error()
			}
		}
		t.Errorf("a damaged file gives more rows than it has")
	}
	// A footer length of 4 GB in a file of 16 bytes: refused before any
	// allocation of that size.
	huge := writeFile(t, "huge.parquet", "PAR1\x15\x06\x15,\xff\xff\xff\xffPAR1")
	if _, err := format.OpenParquet(huge, s, format.ParquetSourceOptions{}); err == nil ||
		!strings.HasSuffix(err.Error(), "not a Parquet file: its footer of 4294967295 bytes does not fit in its 16 bytes (damaged?)") {
		t.Errorf("a 4 GB footer: %v", err)
	}
	step := max(len(orig)/97, 1)
	for at := 0; at < len(orig); at += step {
		for _, v := range []byte{0x00, 0xff, 0x7f} {
			b := append([]byte(nil), orig...)
			for k := at; k < min(at+4, len(b)); k++ {
				b[k] = v
			}
			try(b)
		}
		try(orig[:at])
	}
}

// FuzzParquet reads arbitrary bytes as a Parquet file: rows, io.EOF or
// an error, never a panic. (It runs slowly under go test -fuzz: parquet-go
// is a large package to instrument; .ci/run does not smoke it.)
func FuzzParquet(f *testing.F) {
	s := schema(col("i", tBigInt), col("s", tString), col("d", tDec), col("ts", tTS6), col("b", tBool))
	path := writeParquet(f, s, []string{"1", "a", "1.25", "2025-03-27 12:00:00.123456", "true"},
		[]string{"NULL", "bb", "NULL", "1969-12-31 23:59:59", "NULL"}, []string{"-7", "a", "-0.01", "NULL", "false"})
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := format.OpenParquet(p, s, format.ParquetSourceOptions{})
		if err != nil {
			return
		}
		defer r.Close()
		last := ""
		for n := 0; n < 100000; n++ {
			_, err := r.Next()
			if err == io.EOF || err != nil && err.Error() == last {
				return
			}
			if err != nil {
				last = err.Error()
			}
		}
	})
}

// BenchmarkParquetReader reads the rows of BenchmarkCSVReader from a
// Parquet file written by ParquetWriter: every column, and one of them.
func BenchmarkParquetReader(b *testing.B) {
	csvPath, _ := writeBenchFile(b, "csv")
	src, err := format.OpenCSV(csvPath, benchSchema, format.CSVSourceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "clicks.parquet")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w, err := format.NewParquetWriter(f, benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	for {
		row, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(row.Fields); err != nil {
			b.Fatal(err)
		}
	}
	src.Close()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	b.Run("rows=100k", func(b *testing.B) {
		benchRead(b, st.Size(), func() (format.RowReader, error) {
			return format.OpenParquet(path, benchSchema, format.ParquetSourceOptions{})
		})
	})
	b.Run("rows=100k/one-column", func(b *testing.B) {
		benchRead(b, st.Size(), func() (format.RowReader, error) {
			return format.OpenParquet(path, schema(col("score", types.TypeInt)), format.ParquetSourceOptions{})
		})
	})
}

// TestParquetWriter_batches: rows go to the file a batch at a time; a row
// with a value that does not fit is refused by its Write and the others,
// before and after it and across batches, are in the file in order.
func TestParquetWriter_batches(t *testing.T) {
	s := schema(col("i", tIntNN), col("s", tString))
	path := filepath.Join(t.TempDir(), "b.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := format.NewParquetWriter(f, s)
	if err != nil {
		t.Fatal(err)
	}
	const n, bad = 1300, 700
	for i := range n {
		row := []any{int64(i), fmt.Sprint("k", i)}
		if i == bad {
			row[0] = nil
		}
		err := w.Write(row)
		if i == bad {
			if err == nil || err.Error() != "column 'i': NULL for INT NOT NULL" {
				t.Fatalf("row %d: got %v", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if w.Rows() != n-1 {
		t.Errorf("Rows() = %d, want %d", w.Rows(), n-1)
	}
	r := openParquet(t, path, s, format.SourcePos{})
	want := 0
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if want == bad {
			want++
		}
		if got := fmt.Sprint(row.Fields); got != fmt.Sprintf("[%d k%d]", want, want) {
			t.Fatalf("row %d: got %s", want, got)
		}
		want++
	}
	if want != n {
		t.Errorf("read up to %d, want %d", want, n)
	}
}
