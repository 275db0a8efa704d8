package format

// Reading a Parquet page from its decoded data (pqTyped): the typed slices
// parquet-go decoded it into, and a dictionary's values converted once per
// column chunk, instead of a parquet.Value per value.

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	pqencoding "github.com/parquet-go/parquet-go/encoding"
)

// pqTyped reads a page from its decoded data: the typed slices parquet-go
// decoded it into, and the dictionary's values converted once, without a
// parquet.Value per value.
type pqTyped struct {
	on   bool
	mode pqMode
	defs []byte // definition levels (0: null), nil for a required column
	n    int    // values in the page, nulls included
	pos  int    // values consumed
	dpos int    // non-null values consumed
	idx  []int32
	i32  []int32
	i64  []int64
	data []byte
	offs []uint32
}

// pqTypedPages turns the reading of pages from their data on (off: every
// value through a parquet.Value, as tests compare).
var pqTypedPages = true

// startTyped prepares page p of column ci to be read from its decoded
// data, and reports whether it can be: a dictionary page whose
// dictionary's values all convert, or a plain page of integers,
// timestamps or strings. Any other page, and any page whose data does not
// add up, is read value by value.
func (r *parquetReader) startTyped(ci int, p parquet.Page) bool {
	c := &r.cols[ci]
	if !pqTypedPages {
		return false
	}
	t := pqTyped{n: int(p.NumValues()), defs: p.DefinitionLevels()}
	if t.n < 0 || p.RepetitionLevels() != nil || (t.defs != nil && len(t.defs) != t.n) {
		return false
	}
	nonNull := t.n
	if t.defs != nil {
		for _, d := range t.defs {
			if d > 1 {
				return false
			}
			nonNull -= int(1 - d)
		}
	}
	data := p.Data()
	if d := p.Dictionary(); d != nil {
		switch c.conv {
		case pqBytes, pqDecimal: // values with memory of their own: one per row
			return false
		}
		if data.Kind() != pqencoding.Int32 || !r.convertDict(ci, d) {
			return false
		}
		t.mode, t.idx = pqDictMode, data.Int32()
		if len(t.idx) < nonNull {
			return false
		}
		c.typed = t
		c.typed.on = true
		r.typed++
		return true
	}
	switch k := data.Kind(); {
	case (c.conv == pqInt || c.conv == pqTimestamp) && c.kind == parquet.Int64 && k == pqencoding.Int64:
		t.mode, t.i64 = pqInt64Mode, data.Int64()
		if len(t.i64) < nonNull {
			return false
		}
	case c.conv == pqInt && c.kind == parquet.Int32 && k == pqencoding.Int32:
		t.mode, t.i32 = pqInt32Mode, data.Int32()
		if len(t.i32) < nonNull {
			return false
		}
	case c.conv == pqString && c.kind == parquet.ByteArray && k == pqencoding.ByteArray:
		t.mode = pqBytesMode
		t.data, t.offs = data.ByteArray()
		if len(t.offs) < nonNull+1 {
			return false
		}
	default:
		return false
	}
	c.typed = t
	c.typed.on = true
	r.typed++
	return true
}

// convertDict converts the values of dictionary d of column ci, once per
// dictionary, and reports whether all of them convert.
func (r *parquetReader) convertDict(ci int, d parquet.Dictionary) bool {
	c := &r.cols[ci]
	if c.dict == d {
		return c.dictVals != nil
	}
	c.dict, c.dictVals = d, nil
	n := d.Len()
	src := make([]parquet.Value, n)
	if k, err := d.Page().Values().ReadValues(src); k != n || (err != nil && err != io.EOF) {
		return false
	}
	vals := make([]any, n)
	bad := len(r.bad)
	r.convert(ci, src, vals, 0)
	if len(r.bad) != bad {
		r.bad = r.bad[:bad] // its pages are read value by value, and the bad values reported at their rows
		return false
	}
	c.dictVals = vals
	return true
}

// readTyped reads the next values of column ci's typed page into dst, the
// first at batch index at, and returns how many.
func (r *parquetReader) readTyped(ci int, dst []any, at int) (int, error) {
	c := &r.cols[ci]
	t := &c.typed
	k := min(len(dst), t.n-t.pos)
	for j := range k {
		if t.defs != nil && t.defs[t.pos+j] == 0 {
			dst[j] = nil
			if c.typ.NotNull {
				r.convert(ci, []parquet.Value{parquet.NullValue()}, dst[j:j+1], at+j)
			}
			continue
		}
		d := t.dpos
		t.dpos++
		switch t.mode {
		case pqDictMode:
			x := t.idx[d]
			if x < 0 || int(x) >= len(c.dictVals) {
				return 0, fmt.Errorf("dictionary index %d out of range of its %d values", x, len(c.dictVals))
			}
			dst[j] = c.dictVals[x]
		case pqInt32Mode:
			x := int64(t.i32[d])
			if x < c.min || x > c.max {
				r.convert(ci, []parquet.Value{parquet.Int32Value(t.i32[d])}, dst[j:j+1], at+j)
				continue
			}
			dst[j] = boxInt(x)
		case pqInt64Mode:
			x := t.i64[d]
			if c.conv == pqTimestamp {
				// Rows in time order often share a time: those share its value.
				if c.last == nil || x != c.lastTime {
					sec, frac := floorDiv(x, c.unit)
					c.last, c.lastTime = timestampOf(sec, frac*(1e9/c.unit), c.typ.Length, c.ltz), x
				}
				dst[j] = c.last
				continue
			}
			if x < c.min || x > c.max {
				r.convert(ci, []parquet.Value{parquet.Int64Value(x)}, dst[j:j+1], at+j)
				continue
			}
			dst[j] = boxInt(x)
		case pqBytesMode:
			lo, hi := t.offs[d], t.offs[d+1]
			if lo > hi || int(hi) > len(t.data) {
				return 0, fmt.Errorf("a value's bytes %d to %d lie outside the page's %d", lo, hi, len(t.data))
			}
			b := t.data[lo:hi]
			if !utf8.Valid(b) {
				r.convert(ci, []parquet.Value{parquet.ByteArrayValue(b)}, dst[j:j+1], at+j)
				continue
			}
			if c.intern != nil {
				dst[j] = c.intern.get(b)
			} else {
				dst[j] = string(b)
			}
		}
	}
	t.pos += k
	return k, nil
}
