package format

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestInt96Timestamp checks the legacy INT96 layout: nanoseconds of the
// day in the low 8 bytes, the Julian day in the high 4.
func TestInt96Timestamp(t *testing.T) {
	nanos := uint64(12*3600+34*60+56)*1e9 + 123456789                          // 12:34:56.123456789
	got := int96Timestamp(uint32(nanos), uint32(nanos>>32), 2451545, 6, false) // 2000-01-01
	want := types.LocalDateTime{Millis: 946730096123, NanoOfMilli: 456000}
	if got != want {
		t.Errorf("got %#v, want %#v", got, want)
	}
	got = int96Timestamp(0, 0, 2440587, 3, true) // 1969-12-31
	if want := (types.Instant{Millis: -86400000}); got != want {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

// TestParquet_typedPages reads files whose pages are plain and
// dictionary-encoded, with nulls, values out of range, invalid UTF-8 (in a
// dictionary too) and NULLs in a NOT NULL column, over many pages and row
// groups, from a start and from resume positions: reading the pages from
// their data gives the rows and errors that reading every value through a
// parquet.Value gives.
func TestParquet_typedPages(t *testing.T) {
	ps := parquet.NewSchema("t", parquet.Group{
		"a": parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary)),
		"b": parquet.Optional(parquet.String()),
		"c": parquet.Optional(parquet.Int(32)),
		"d": parquet.Optional(parquet.Encoded(parquet.Int(64), &parquet.RLEDictionary)),
		"e": parquet.Optional(parquet.Timestamp(parquet.Millisecond)),
		"f": parquet.Int(64),
	})
	words := []string{"ATL", "ORD", "LAX", "", "SFO"}
	rng := rand.New(rand.NewPCG(3, 4))
	var rows []parquet.Row
	for i := range 6000 {
		val := func(col int, v parquet.Value) parquet.Value {
			if col < 5 && rng.IntN(7) == 0 {
				return parquet.NullValue().Level(0, 0, col)
			}
			return v.Level(0, 1, col)
		}
		a := words[rng.IntN(len(words))]
		if i >= 4500 && rng.IntN(300) == 0 {
			a = "bad \xff" // in the dictionary of the last row group only
		}
		b := words[rng.IntN(len(words))] + fmt.Sprint(i%13)
		if rng.IntN(500) == 0 {
			b = "\xfe"
		}
		d := int64(rng.IntN(20) - 5)
		if rng.IntN(400) == 0 {
			d = 1 << 40 // out of range of INT
		}
		f := parquet.Int64Value(int64(i)).Level(0, 0, 5)
		rows = append(rows, parquet.Row{
			val(0, parquet.ByteArrayValue([]byte(a))),
			val(1, parquet.ByteArrayValue([]byte(b))),
			val(2, parquet.Int32Value(int32(rng.IntN(4000)-1000))),
			val(3, parquet.Int64Value(d)),
			val(4, parquet.Int64Value(int64(1e12)+int64(i/3)*60000)),
			f,
		})
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewWriter(f, ps, parquet.PageBufferSize(700), parquet.MaxRowsPerRowGroup(1500))
	if _, err := w.WriteRows(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ts3 := types.Type{Kind: types.KindTimestamp, Length: 3}
	table := types.Schema{Columns: []types.Column{
		{Name: "f", Type: types.TypeBigInt}, {Name: "a", Type: types.TypeString}, {Name: "b", Type: types.TypeString},
		{Name: "c", Type: types.TypeInt.AsNotNull()}, {Name: "d", Type: types.TypeInt}, {Name: "e", Type: ts3},
	}}
	read := func(typed bool, from int64) (string, int) {
		pqTypedPages = typed
		defer func() { pqTypedPages = true }()
		rr, err := OpenParquet(path, table, ParquetSourceOptions{Resume: SourcePos{Offset: from, Row: from}})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Close()
		var b strings.Builder
		last := ""
		for {
			row, err := rr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if err.Error() == last {
					break // the reader stopped at it
				}
				last = err.Error()
				fmt.Fprintln(&b, err)
				continue
			}
			fmt.Fprintf(&b, "%#v\n", row.Fields)
		}
		fmt.Fprintln(&b, rr.Position())
		return b.String(), rr.(*parquetReader).typed
	}
	for _, from := range []int64{0, 1, 699, 1500, 2999, 4501, 5999, 6000} {
		want, _ := read(false, from)
		got, typed := read(true, from)
		if got != want {
			gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("from row %d, line %d:\ngot  %s\nwant %s", from, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("from row %d: %d lines, want %d", from, len(gl), len(wl))
		}
		if from == 0 {
			if typed == 0 {
				t.Error("no page was read from its data")
			}
			for _, s := range []string{"invalid UTF-8", "out of range of INT", "null value for INT NOT NULL"} {
				if !strings.Contains(got, s) {
					t.Errorf("no %q among the errors", s)
				}
			}
		}
	}
}
