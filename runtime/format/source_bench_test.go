package format_test

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
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

// benchSchema is a click stream: a timestamp, two strings (one repeating
// a lot, one mostly distinct), an INT and a DOUBLE.
var benchSchema = schema(col("ts", tLTZ3), col("user_id", types.TypeString), col("url", types.TypeString),
	col("score", types.TypeInt), col("price", types.TypeDouble))

const benchRows = 100_000

// writeBenchFile writes benchRows generated rows in the given format:
// "csv", "jsonl" or "json" (one array).
func writeBenchFile(b *testing.B, ext string) (path string, size int64) {
	b.Helper()
	path = filepath.Join(b.TempDir(), "clicks."+ext)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if ext == "json" {
		w.WriteString("[\n")
	}
	for i := range benchRows {
		ts := fmt.Sprintf("2025-03-27T%02d:%02d:%02d.%03dZ", i/3600%24, i/60%60, i%60, i%1000)
		user := fmt.Sprintf("user%d", i%500)
		url := fmt.Sprintf("/product/%d?ref=%d", i*7919%100_000, i%13)
		score, price := i%1000, float64(i%10_000)/100
		switch ext {
		case "csv":
			fmt.Fprintf(w, "%s,%s,%s,%d,%g\n", ts, user, url, score, price)
		default:
			sep := "\n"
			if ext == "json" && i < benchRows-1 {
				sep = ",\n"
			}
			fmt.Fprintf(w, `{"ts":"%s","user_id":"%s","url":"%s","score":%d,"price":%g}%s`, ts, user, url, score, price, sep)
		}
	}
	if ext == "json" {
		w.WriteString("]\n")
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	return path, st.Size()
}

// benchRead reads the whole file once per iteration and reports rows/s.
func benchRead(b *testing.B, size int64, open func() (format.RowReader, error)) {
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r, err := open()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		r.Close()
		if n != benchRows {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkCSVReader(b *testing.B) {
	path, size := writeBenchFile(b, "csv")
	b.Run("rows=100k", func(b *testing.B) {
		benchRead(b, size, func() (format.RowReader, error) {
			return format.OpenCSV(path, benchSchema, format.CSVSourceOptions{})
		})
	})
	// The same rows through encoding/csv and textparse.Value, for comparison.
	b.Run("rows=100k/encoding-csv", func(b *testing.B) {
		benchRead(b, size, func() (format.RowReader, error) { return openStdCSV(path) })
	})
}

func BenchmarkJSONReader(b *testing.B) {
	for _, ext := range []string{"jsonl", "json"} {
		path, size := writeBenchFile(b, ext)
		b.Run("rows=100k/"+ext, func(b *testing.B) {
			benchRead(b, size, func() (format.RowReader, error) {
				return format.OpenJSON(path, benchSchema, format.JSONSourceOptions{})
			})
		})
	}
	// JSON lines through encoding/json (UseNumber) and textparse.ConvertJSON, for
	// comparison.
	path, size := writeBenchFile(b, "jsonl")
	b.Run("rows=100k/jsonl/encoding-json", func(b *testing.B) {
		benchRead(b, size, func() (format.RowReader, error) { return openStdJSON(path) })
	})
}

// stdReader is the baseline: the standard library's decoders, then the
// same value conversions as the real readers.
type stdReader struct {
	f    *os.File
	next func() (types.Row, error)
}

func (r *stdReader) Next() (types.Row, error)   { return r.next() }
func (r *stdReader) Position() format.SourcePos { return format.SourcePos{} }
func (r *stdReader) Close() error               { return r.f.Close() }

func openStdCSV(path string) (format.RowReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	cr.ReuseRecord = true
	return &stdReader{f: f, next: func() (types.Row, error) {
		rec, err := cr.Read()
		if err != nil {
			return types.Row{}, err
		}
		fields := make([]any, len(rec))
		for i, s := range rec {
			if s == "" {
				continue
			}
			if fields[i], err = textparse.Value(s, benchSchema.Columns[i].Type, textparse.Options{}); err != nil {
				return types.Row{}, err
			}
			if str, ok := fields[i].(string); ok {
				fields[i] = strings.Clone(str) // the record is reused
			}
		}
		return types.NewRow(fields...), nil
	}}, nil
}

func openStdJSON(path string) (format.RowReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bufio.NewReaderSize(f, 64<<10))
	dec.UseNumber()
	return &stdReader{f: f, next: func() (types.Row, error) {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return types.Row{}, err
		}
		fields := make([]any, len(benchSchema.Columns))
		for i, c := range benchSchema.Columns {
			var err error
			if fields[i], err = textparse.ConvertJSON(obj[c.Name], c.Type, textparse.Options{}); err != nil {
				return types.Row{}, err
			}
		}
		return types.NewRow(fields...), nil
	}}, nil
}

// BenchmarkJSONRecordDecoder decodes Kafka record values of a click
// stream (as the kafka sink writes them: Flink's json format) one record
// at a time, as the kafka source does.
func BenchmarkJSONRecordDecoder(b *testing.B) {
	sch := schema(col("user_id", types.TypeString), col("url", types.TypeString),
		col("view_time", types.TypeInt), col("ts", tTS3))
	recs := make([][]byte, 16384) // more users than the interner keeps, as in a real stream
	for i := range recs {
		recs[i] = fmt.Appendf(nil, `{"user_id":"user%d","url":"https://shop.example/p/%d","view_time":%d,"ts":"2026-12-01 00:%02d:%02d.%03d"}`,
			i*7919%100_000, i%1000, i*31%1000, i/60%60, i%60, i*7%1000)
	}
	d, err := format.NewJSONRecordDecoder(sch, format.JSONSourceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.Decode(recs[i%len(recs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
