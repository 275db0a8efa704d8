package format

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

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

// TestParquet_typedPages reads a file whose pages are plain and
// dictionary-encoded (testdata/typed_pages.parquet, described in
// testdata/README.md), with nulls, values out of range, invalid UTF-8 (in
// a dictionary too) and NULLs in a NOT NULL column, over many pages and
// row groups, from its start and from resume positions: reading the pages
// from their data gives the rows and errors that reading every value
// through a parquet.Value gives.
func TestParquet_typedPages(t *testing.T) {
	path := filepath.Join("testdata", "typed_pages.parquet")
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
