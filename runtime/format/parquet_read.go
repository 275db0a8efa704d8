package format

// Parquet files, read and written with github.com/parquet-go/parquet-go.
// This file, parquet_write.go and parquet_schema.go are the only ones of
// ptfsh that import it (tests/deps_test.go).
//
// Reading streams one row group at a time and, in it, one page of each
// column at a time: the file is never loaded whole. Only the columns the
// table declares are read, matched by name; the column chunks of the other
// columns are never decoded (nor read from the disk). Values are decoded a
// batch of rows at a time, column by column, into the Go values of the
// declared SQL types (the conversions are listed at OpenParquet).
//
// A position in a Parquet file is a row index: SourcePos.Offset is the
// number of rows consumed from the start of the file (returned or bad), and
// Line is 0. Resuming at it skips whole row groups by their row counts and
// seeks the pages of the row group it falls in (with the page index, when
// the file has one), without decoding the rows before it.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// ParquetSourceOptions configures OpenParquet.
type ParquetSourceOptions struct {
	// Resume, when its Offset is not 0, starts reading at a position that
	// Position returned earlier: Offset is a row index.
	Resume SourcePos
}

// parquetBatch is the number of rows decoded at a time, per column.
const parquetBatch = 1024

// pqConv says how a column's values convert to its SQL type.
type pqConv uint8

const (
	pqBool      pqConv = iota
	pqInt              // INT32 or INT64 (signed) → an integer type, range-checked
	pqUint             // an unsigned INT(n, false) → an integer type, range-checked
	pqIntFloat         // an integer → FLOAT or DOUBLE
	pqFloat            // FLOAT or DOUBLE → FLOAT or DOUBLE
	pqString           // BYTE_ARRAY → a string type
	pqBytes            // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY → a binary type
	pqDecimal          // a DECIMAL or an integer → DECIMAL, rescaled, precision-checked
	pqDate             // INT32 DATE → DATE
	pqTime             // INT32 or INT64 TIME → TIME
	pqTimestamp        // INT64 TIMESTAMP → TIMESTAMP or TIMESTAMP_LTZ
	pqInt96            // legacy INT96 timestamps → TIMESTAMP or TIMESTAMP_LTZ
)

// pqColumn is one declared column and how it is read from the file.
type pqColumn struct {
	srcColumn
	leaf     int    // the file's column index
	fileType string // the file's type, for messages
	conv     pqConv
	kind     parquet.Kind // the file's physical type
	min, max int64        // the range of an integer type
	unit     int64        // time units per second (TIME, TIMESTAMP)
	scaleBy  *big.Int     // DECIMAL: 10^(declared scale - file scale)
	limit    *big.Int     // DECIMAL: 10^precision
	ltz      bool
	// last is the value of the TIMESTAMP lastTime (in the file's unit)
	// read last.
	last     any
	lastTime int64

	pages parquet.Pages
	page  parquet.Page
	vr    parquet.ValueReader // the page's values, when it is not read by its data (typed)
	typed pqTyped
	buf   []parquet.Value
	vals  []any

	// dict is the dictionary of the column chunk read last, and dictVals
	// its values converted once (nil when one of them does not convert:
	// then its pages are read value by value).
	dict     parquet.Dictionary
	dictVals []any
}

type pqMode uint8

const (
	pqDictMode pqMode = iota // idx into the column's dictVals
	pqInt32Mode
	pqInt64Mode
	pqBytesMode
)

// pqBad is a value of the current batch that cannot be read.
type pqBad struct {
	idx, col int
	err      *ParseError
}

type parquetReader struct {
	path   string
	f      *os.File
	pf     *parquet.File
	cols   []pqColumn
	groups []parquet.RowGroup
	g      int   // the row group being read
	left   int64 // rows of group g not yet decoded
	n, i   int   // rows in the batch, next one to return
	start  int64 // the row index of the batch's first row
	row    int64 // rows consumed: Position().Offset
	rows   int64 // rows returned: Position().Row
	bad    []pqBad
	slab   types.RowSlab
	err    error
	typed  int // pages read from their data (startTyped)
}

// OpenParquet opens a Parquet file whose columns include those of schema,
// matched by name (exactly; top-level columns that are not repeated).
// Columns of the file that the schema does not declare are not read.
//
// A file's column reads as a declared type when its values fit:
//
//	BOOLEAN                          BOOLEAN
//	INT32, INT64, INT(n, signed)     TINYINT, SMALLINT, INT, BIGINT (each value range-checked),
//	                                 FLOAT, DOUBLE, DECIMAL
//	FLOAT, DOUBLE                    FLOAT, DOUBLE
//	BYTE_ARRAY (STRING, ENUM, JSON   CHAR, VARCHAR, STRING
//	  or none)
//	BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY BINARY, VARBINARY, BYTES
//	DECIMAL(p, s)                    DECIMAL(p', s') with s' >= s (each value precision-checked)
//	DATE                             DATE
//	TIME(MILLIS|MICROS|NANOS)        TIME(p)
//	TIMESTAMP(MILLIS|MICROS|NANOS),  TIMESTAMP(p), TIMESTAMP_LTZ(p) (the fraction truncated to p)
//	  INT96
//
// A declared column that the file lacks, or whose type does not fit, is an
// error of OpenParquet that names the column, the file's type and the
// declared one. A value that does not fit (out of range, a NULL for a NOT
// NULL column) is a *ParseError at its row (1-based) from Next; the rows
// after it can still be read. The caller closes the reader.
func OpenParquet(path string, schema types.Schema, opts ParquetSourceOptions) (rr RowReader, err error) {
	defer func() {
		if p := recover(); p != nil {
			rr, err = nil, &ParseError{File: path, Msg: fmt.Sprintf("not a readable Parquet file: %v", p)}
		}
	}()
	res := opts.Resume
	if res.Offset < 0 || res.Row < 0 || res.Line < 0 {
		return nil, fmt.Errorf("open %s: invalid resume position %s", path, res)
	}
	// As the text readers open theirs: a directory, a named pipe or a
	// device is an error, not a hang (the position is a row, not a byte).
	f, err := openSourceFile(path, SourcePos{})
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() == 0 {
		f.Close()
		return nil, &ParseError{File: path, Msg: "not a Parquet file: the file is empty"}
	}
	if err := checkParquetTail(f, st.Size()); err != nil {
		f.Close()
		return nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error()}
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.ReadBufferSize(256<<10))
	if err != nil {
		f.Close()
		return nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error()}
	}
	r := &parquetReader{path: path, f: f, pf: pf, groups: pf.RowGroups()}
	src := srcColumns(schema)
	r.cols = make([]pqColumn, len(src))
	for i := range src {
		c := &r.cols[i]
		c.srcColumn = src[i]
		if err := r.bind(c); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := r.checkChunks(st.Size()); err != nil {
		f.Close()
		return nil, err
	}
	if res.Offset > pf.NumRows() {
		f.Close()
		return nil, fmt.Errorf("open %s: cannot resume after row %d: the file has only %d rows (replaced?)", path, res.Offset, pf.NumRows())
	}
	r.row, r.rows, r.start = res.Offset, res.Row, res.Offset
	skip := res.Offset
	for r.g < len(r.groups) && skip >= r.groups[r.g].NumRows() {
		skip -= r.groups[r.g].NumRows()
		r.g++
	}
	if r.g < len(r.groups) {
		if err := r.openGroup(skip); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// checkParquetTail checks the end of a file before parquet-go reads its
// footer, whose length it would otherwise allocate as the file says (4
// GB for a damaged file of 50 bytes): the magic bytes, and a footer that
// fits in the file. Encrypted files are not read.
func checkParquetTail(f *os.File, size int64) error {
	var tail [8]byte
	if size < 12 {
		return fmt.Errorf("it has only %d bytes", size)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return errors.New("it is encrypted, which ptfsh does not read")
	default:
		return fmt.Errorf("it does not end with Parquet's magic bytes PAR1 (but %q)", tail[4:])
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("its footer of %d bytes does not fit in its %d bytes (damaged?)", n, size)
	}
	return nil
}

// checkChunks checks what the footer says of the declared columns' chunks
// before any is read: each lies within the file, and holds as many values
// as its row group has rows (the columns are flat).
func (r *parquetReader) checkChunks(size int64) error {
	md := r.pf.Metadata()
	for g, rg := range md.RowGroups {
		if rg.NumRows < 0 {
			return &ParseError{File: r.path, Msg: fmt.Sprintf("not a readable Parquet file: row group %d has %d rows", g, rg.NumRows)}
		}
		for i := range r.cols {
			c := &r.cols[i]
			if c.leaf >= len(rg.Columns) {
				return &ParseError{File: r.path, Column: c.name, Msg: fmt.Sprintf("not a readable Parquet file: row group %d has no chunk for the column", g)}
			}
			cm := &rg.Columns[c.leaf].MetaData
			start := cm.DataPageOffset
			if cm.DictionaryPageOffset > 0 && cm.DictionaryPageOffset < start {
				start = cm.DictionaryPageOffset
			}
			if start < 4 || cm.TotalCompressedSize < 0 || start+cm.TotalCompressedSize > size || cm.NumValues != rg.NumRows {
				return &ParseError{File: r.path, Column: c.name, Msg: fmt.Sprintf("not a readable Parquet file: the chunk of row group %d (%d values at byte %d, %d bytes) does not fit the file or the row group (%d rows)",
					g, cm.NumValues, start, cm.TotalCompressedSize, rg.NumRows)}
			}
		}
	}
	return nil
}

// fileColumns lists the top-level column names of the file.
func (r *parquetReader) fileColumns() string {
	var names []string
	for _, f := range r.pf.Schema().Fields() {
		names = append(names, f.Name())
	}
	return strings.Join(names, ", ")
}

// bind finds c in the file and chooses its conversion.
func (r *parquetReader) bind(c *pqColumn) error {
	fail := func(msg string) error { return &ParseError{File: r.path, Column: c.name, Msg: msg} }
	leaf, ok := r.pf.Schema().Lookup(c.name)
	if !ok {
		for _, f := range r.pf.Schema().Fields() {
			if f.Name() == c.name {
				return fail(fmt.Sprintf("the file's column is a group (%s), which cannot be read as %s", strings.TrimSpace(f.String()), c.typ))
			}
			if strings.EqualFold(f.Name(), c.name) {
				return fail(fmt.Sprintf("declared as %s, but the file has no such column (names are case-sensitive: the file has '%s')", c.typ, f.Name()))
			}
		}
		return fail(fmt.Sprintf("declared as %s, but the file has no such column; its columns: %s", c.typ, r.fileColumns()))
	}
	if len(leaf.Path) != 1 || leaf.MaxRepetitionLevel > 0 {
		return fail(fmt.Sprintf("the file's column is repeated or nested (%s), which cannot be read as %s", pqTypeString(leaf.Node), c.typ))
	}
	c.leaf = leaf.ColumnIndex
	c.fileType = pqTypeString(leaf.Node)
	typ := leaf.Node.Type()
	c.kind = typ.Kind()
	lt := typ.LogicalType()
	var ltv pqformat.LogicalTypeValue
	if lt != nil {
		ltv = lt.Value
	}
	incompatible := func() error {
		return fail(fmt.Sprintf("the file's type %s cannot be read as %s", c.fileType, c.typ))
	}
	t := c.typ
	intFile := (c.kind == parquet.Int32 || c.kind == parquet.Int64) && (ltv == nil || isIntLogical(ltv))
	unsigned := false
	if it, ok := ltv.(*pqformat.IntType); ok && !it.IsSigned {
		unsigned = true
	}
	switch {
	case t.Kind == types.KindBoolean && c.kind == parquet.Boolean:
		c.conv = pqBool
	case t.IsInteger() && intFile:
		c.conv = pqInt
		if unsigned {
			c.conv = pqUint
		}
		c.min, c.max = t.Kind.IntegerRange()
	case (t.Kind == types.KindFloat || t.Kind == types.KindDouble) && intFile:
		c.conv = pqIntFloat
		if unsigned {
			return incompatible()
		}
	case t.Kind == types.KindDouble && (c.kind == parquet.Float || c.kind == parquet.Double) && ltv == nil,
		t.Kind == types.KindFloat && c.kind == parquet.Float && ltv == nil:
		c.conv = pqFloat
	case t.IsString() && c.kind == parquet.ByteArray && (ltv == nil || isStringLogical(ltv)):
		c.conv = pqString
	case (t.Kind == types.KindBinary || t.Kind == types.KindVarBinary) && (c.kind == parquet.ByteArray || c.kind == parquet.FixedLenByteArray):
		c.conv = pqBytes
	case t.Kind == types.KindDecimal:
		fileScale := 0
		switch d := ltv.(type) {
		case *pqformat.DecimalType:
			fileScale = int(d.Scale)
		case nil, *pqformat.IntType:
			if !intFile || unsigned {
				return incompatible()
			}
		default:
			return incompatible()
		}
		if fileScale > t.Scale {
			return fail(fmt.Sprintf("the file's type %s has more digits after the point than %s", c.fileType, c.typ))
		}
		c.conv = pqDecimal
		c.scaleBy = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale-fileScale)), nil)
		c.limit = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Length)), nil)
	case t.Kind == types.KindDate:
		if _, ok := ltv.(*pqformat.DateType); !ok || c.kind != parquet.Int32 {
			return incompatible()
		}
		c.conv = pqDate
	case t.Kind == types.KindTime:
		tt, ok := ltv.(*pqformat.TimeType)
		if !ok {
			return incompatible()
		}
		c.conv, c.unit = pqTime, unitsPerSecond(tt.Unit)
	case t.Kind == types.KindTimestamp || t.Kind == types.KindTimestampLTZ:
		c.ltz = t.Kind == types.KindTimestampLTZ
		switch tt := ltv.(type) {
		case *pqformat.TimestampType:
			if c.kind != parquet.Int64 {
				return incompatible()
			}
			c.conv, c.unit = pqTimestamp, unitsPerSecond(tt.Unit)
		case nil:
			if c.kind != parquet.Int96 {
				return incompatible()
			}
			c.conv = pqInt96
		default:
			return incompatible()
		}
	default:
		return incompatible()
	}
	return nil
}

func isIntLogical(v pqformat.LogicalTypeValue) bool {
	_, ok := v.(*pqformat.IntType)
	return ok
}

func isStringLogical(v pqformat.LogicalTypeValue) bool {
	switch v.(type) {
	case *pqformat.StringType, *pqformat.EnumType, *pqformat.JsonType:
		return true
	}
	return false
}

func unitsPerSecond(u pqformat.TimeUnit) int64 {
	switch u.Value.(type) {
	case *pqformat.MilliSeconds:
		return 1e3
	case *pqformat.MicroSeconds:
		return 1e6
	}
	return 1e9
}

// pqTypeString shows a file's column as parquet tools do: its physical
// type, then its logical type: int64 TIMESTAMP(isAdjustedToUTC=false,unit=MICROS).
func pqTypeString(n parquet.Node) string {
	if !n.Leaf() {
		return "group"
	}
	t := n.Type()
	s := strings.ToLower(t.Kind().String())
	if t.Kind() == parquet.FixedLenByteArray {
		s = "fixed_len_byte_array(" + strconv.Itoa(t.Length()) + ")"
	}
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		s += " " + lt.String()
	}
	if n.Repeated() {
		s = "repeated " + s
	}
	return s
}

// openGroup starts reading row group r.g at its row skip.
func (r *parquetReader) openGroup(skip int64) error {
	g := r.groups[r.g]
	chunks := g.ColumnChunks()
	for i := range r.cols {
		c := &r.cols[i]
		r.closePages(c)
		c.pages = chunks[c.leaf].Pages()
		if skip > 0 {
			if err := c.pages.SeekToRow(skip); err != nil {
				return r.corrupt(c, err)
			}
		}
	}
	r.left = g.NumRows() - skip
	return nil
}

func (r *parquetReader) closePages(c *pqColumn) {
	if c.page != nil {
		parquet.Release(c.page)
		c.page, c.vr = nil, nil
	}
	c.typed = pqTyped{}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

func (r *parquetReader) corrupt(c *pqColumn, err error) error {
	return &ParseError{File: r.path, Column: c.name, Msg: fmt.Sprintf("cannot read row group %d: %v", r.g, err)}
}

// nextBatch decodes the next rows of every column.
func (r *parquetReader) nextBatch() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &ParseError{File: r.path, Msg: fmt.Sprintf("cannot read row group %d: %v", r.g, p)}
		}
	}()
	for r.left == 0 {
		if r.g >= len(r.groups) {
			return io.EOF
		}
		r.g++
		if r.g >= len(r.groups) {
			for i := range r.cols {
				r.closePages(&r.cols[i])
			}
			return io.EOF
		}
		if err := r.openGroup(0); err != nil {
			return err
		}
	}
	n := int(min(r.left, parquetBatch))
	r.bad = r.bad[:0]
	for ci := range r.cols {
		if err := r.fill(ci, n); err != nil {
			return err
		}
	}
	if len(r.bad) > 1 {
		sort.SliceStable(r.bad, func(a, b int) bool { return r.bad[a].idx < r.bad[b].idx })
	}
	r.start = r.row
	r.n, r.i = n, 0
	r.left -= int64(n)
	return nil
}

// fill decodes the next n values of column ci into its vals.
func (r *parquetReader) fill(ci, n int) error {
	c := &r.cols[ci]
	if cap(c.buf) < n {
		c.buf = make([]parquet.Value, parquetBatch)
		c.vals = make([]any, parquetBatch)
	}
	buf, vals := c.buf[:n], c.vals[:n]
	got := 0
	for got < n {
		if c.page == nil {
			p, err := c.pages.ReadPage()
			if err != nil {
				if err == io.EOF {
					err = fmt.Errorf("the column chunk has fewer values than the row group has rows")
				}
				return r.corrupt(c, err)
			}
			c.page = p
			if !r.startTyped(ci, p) {
				c.vr = p.Values()
			}
		}
		if c.typed.on {
			k, err := r.readTyped(ci, vals[got:], got)
			if err != nil {
				return r.corrupt(c, err)
			}
			got += k
			if c.typed.pos == c.typed.n {
				parquet.Release(c.page)
				c.page, c.typed = nil, pqTyped{}
			}
			continue
		}
		k, err := c.vr.ReadValues(buf[got:])
		r.convert(ci, buf[got:got+k], vals[got:got+k], got)
		got += k
		if err == io.EOF || (err == nil && k == 0) {
			parquet.Release(c.page)
			c.page, c.vr = nil, nil
		} else if err != nil {
			return r.corrupt(c, err)
		}
	}
	return nil
}

// convert turns the values src of column ci, the first at batch index at,
// into Go values.
func (r *parquetReader) convert(ci int, src []parquet.Value, dst []any, at int) {
	c := &r.cols[ci]
	bad := func(j int, v parquet.Value, msg string) {
		dst[j] = nil
		r.bad = append(r.bad, pqBad{idx: at + j, col: ci, err: &ParseError{File: r.path, Column: c.name, Value: v.String(), Msg: msg}})
	}
	for j, v := range src {
		if v.IsNull() {
			dst[j] = nil
			if c.typ.NotNull {
				r.bad = append(r.bad, pqBad{idx: at + j, col: ci, err: &ParseError{File: r.path, Column: c.name, Msg: "null value for " + c.typ.String()}})
			}
			continue
		}
		switch c.conv {
		case pqBool:
			dst[j] = v.Boolean()
		case pqInt:
			x := v.Int64()
			if c.kind == parquet.Int32 {
				x = int64(v.Int32())
			}
			if x < c.min || x > c.max {
				bad(j, v, "value "+strconv.FormatInt(x, 10)+" out of range of "+c.typ.String())
				continue
			}
			dst[j] = boxInt(x)
		case pqUint:
			var x uint64
			if c.kind == parquet.Int32 {
				x = uint64(v.Uint32())
			} else {
				x = v.Uint64()
			}
			if x > uint64(c.max) {
				bad(j, v, "value "+strconv.FormatUint(x, 10)+" out of range of "+c.typ.String())
				continue
			}
			dst[j] = boxInt(int64(x))
		case pqIntFloat:
			if c.kind == parquet.Int32 {
				dst[j] = float64(v.Int32())
			} else {
				dst[j] = float64(v.Int64())
			}
		case pqFloat:
			if c.kind == parquet.Float {
				dst[j] = float64(v.Float())
			} else {
				dst[j] = v.Double()
			}
		case pqString:
			b := v.ByteArray()
			if !utf8.Valid(b) {
				bad(j, v, "invalid UTF-8 for "+c.typ.String())
				continue
			}
			if c.intern != nil {
				dst[j] = c.intern.get(b)
			} else {
				dst[j] = string(b)
			}
		case pqBytes:
			dst[j] = append([]byte(nil), v.ByteArray()...)
		case pqDecimal:
			var u *big.Int
			switch c.kind {
			case parquet.Int32:
				u = big.NewInt(int64(v.Int32()))
			case parquet.Int64:
				u = big.NewInt(v.Int64())
			default:
				u = twosComplement(v.ByteArray())
			}
			if c.scaleBy.BitLen() > 1 {
				u.Mul(u, c.scaleBy)
			}
			if new(big.Int).Abs(u).Cmp(c.limit) >= 0 {
				bad(j, v, "value out of range of "+c.typ.String())
				continue
			}
			dst[j] = types.Decimal{Unscaled: u, Scale: c.typ.Scale}
		case pqDate:
			dst[j] = types.Date(v.Int32())
		case pqTime:
			x := v.Int64()
			if c.kind == parquet.Int32 {
				x = int64(v.Int32())
			}
			ns := x * (1e9 / c.unit)
			if ns < 0 || ns >= 86400e9 {
				bad(j, v, "not a time of day")
				continue
			}
			sec := ns / 1e9
			dst[j] = types.TimeOfDay(sec*1e9 + int64(textparse.TruncNanos(int(ns-sec*1e9), c.typ.Length)))
		case pqTimestamp:
			// Rows in time order often share a time: those share its value.
			x := v.Int64()
			if c.last == nil || x != c.lastTime {
				sec, frac := floorDiv(x, c.unit)
				c.last, c.lastTime = timestampOf(sec, frac*(1e9/c.unit), c.typ.Length, c.ltz), x
			}
			dst[j] = c.last
		case pqInt96:
			i96 := v.Int96()
			dst[j] = int96Timestamp(i96[0], i96[1], i96[2], c.typ.Length, c.ltz)
		}
	}
}

// int96Timestamp reads a legacy INT96 timestamp (Impala, Spark, Hive):
// nanoseconds of the day in its low 64 bits (lo, hi), the Julian day in
// its high 32.
func int96Timestamp(lo, hi, julianDay uint32, p int, ltz bool) any {
	nanosOfDay := int64(uint64(hi)<<32 | uint64(lo))
	day := int64(int32(julianDay)) - 2440588 // the Julian day of 1970-01-01
	sec, frac := floorDiv(nanosOfDay, 1e9)
	return timestampOf(day*86400+sec, frac, p, ltz)
}

// floorDiv returns x / d and x % d rounded towards minus infinity.
func floorDiv(x, d int64) (int64, int64) {
	q, m := x/d, x%d
	if m < 0 {
		q, m = q-1, m+d
	}
	return q, m
}

// timestampOf makes a TIMESTAMP or TIMESTAMP_LTZ of epoch seconds and
// nanoseconds, the fraction truncated to precision p.
func timestampOf(sec, nano int64, p int, ltz bool) any {
	n := int64(textparse.TruncNanos(int(nano), p))
	return textparse.MakeTimestamp(sec*1000+n/1e6, int32(n%1e6), ltz)
}

// twosComplement reads a big-endian two's complement integer.
func twosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

// Next returns the next row of the file, or io.EOF after the last one (a
// Parquet file cannot grow: io.EOF stays).
func (r *parquetReader) Next() (types.Row, error) {
	if r.err != nil {
		return types.Row{}, r.err
	}
	for r.i == r.n {
		if err := r.nextBatch(); err != nil {
			if err != io.EOF {
				r.err = err
			}
			return types.Row{}, err
		}
	}
	i := r.i
	r.i++
	r.row++
	if len(r.bad) > 0 && r.bad[0].idx == i {
		e := r.bad[0].err
		for len(r.bad) > 0 && r.bad[0].idx == i {
			r.bad = r.bad[1:]
		}
		e.Row = r.start + int64(i) + 1
		return types.Row{}, e
	}
	fields := r.slab.Fields(len(r.cols))
	for c := range r.cols {
		fields[c] = r.cols[c].vals[i]
	}
	r.rows++
	return types.Row{Kind: types.Insert, Fields: fields}, nil
}

var _ RowBatchReader = (*parquetReader)(nil)

// NextRows implements [RowBatchReader]: the good rows of the decoded
// batch, up to len(rows), made as Next makes them without a call per row.
func (r *parquetReader) NextRows(rows []types.Row) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	for r.i == r.n {
		if err := r.nextBatch(); err != nil {
			if err != io.EOF {
				r.err = err
			}
			return 0, err
		}
	}
	n := min(len(rows), r.n-r.i)
	if len(r.bad) > 0 {
		n = min(n, r.bad[0].idx-r.i)
	}
	if n == 0 {
		// A bad row next: Next reports it.
		_, err := r.Next()
		return 0, err
	}
	w := len(r.cols)
	for j := range rows[:n] {
		rows[j] = types.Row{Kind: types.Insert, Fields: r.slab.Fields(w)}
	}
	for c := range r.cols {
		for j, v := range r.cols[c].vals[r.i : r.i+n] {
			rows[j].Fields[c] = v
		}
	}
	r.i += n
	r.row += int64(n)
	r.rows += int64(n)
	return n, nil
}

// Position returns the row index after the last row consumed.
func (r *parquetReader) Position() SourcePos {
	return SourcePos{File: r.path, Offset: r.row, Row: r.rows}
}

// Close releases the file.
func (r *parquetReader) Close() error {
	if r.f == nil {
		return nil
	}
	for i := range r.cols {
		r.closePages(&r.cols[i])
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// ParquetColumns lists the top-level columns of a Parquet file, in order.
func ParquetColumns(path string) (names []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			names, err = nil, &ParseError{File: path, Msg: fmt.Sprintf("not a readable Parquet file: %v", p)}
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkParquetTail(f, st.Size()); err != nil {
		return nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error()}
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error()}
	}
	for _, fl := range pf.Schema().Fields() {
		names = append(names, fl.Name())
	}
	return names, nil
}

// ParquetFooter returns what identifies a Parquet file's contents for a
// checkpoint: its size and its footer (the file metadata, which holds the
// offsets, sizes and statistics of every column chunk), as bytes to hash.
func ParquetFooter(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	var tail [8]byte
	if size < 12 {
		return nil, errors.New("not a Parquet file")
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if string(tail[4:]) != "PAR1" {
		return nil, errors.New("not a Parquet file")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, errors.New("not a Parquet file")
	}
	b := make([]byte, 8, n+16)
	binary.LittleEndian.PutUint64(b, uint64(size))
	b = b[:8+n]
	if _, err := f.ReadAt(b[8:], size-8-n); err != nil {
		return nil, err
	}
	return b, nil
}
