package format

// Parquet files written with github.com/parquet-go/parquet-go (the reader
// is parquet_read.go, the schema's inference parquet_schema.go; the three
// are the only files of ptfsh that import it, see tests/deps_test.go).

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// ---------------------------------------------------------------------------
// Writing

// ParquetWriter writes rows to a Parquet file: one row group every
// ParquetRowGroupRows rows (each is buffered in memory until then),
// Snappy-compressed pages, and the footer at Close. The file's columns are
// the schema's, in order; a nullable column is OPTIONAL, a NOT NULL one
// REQUIRED.
type ParquetWriter struct {
	w      *parquet.GenericWriter[any]
	schema types.Schema
	cols   []pqOut
	// vals holds the values of the rows not yet handed to w, row after
	// row; rows are their slices. They go to w a batch at a time
	// (pqWriteBatch rows), which costs parquet-go's per-call work once a
	// batch, and at Close.
	vals []parquet.Value
	rows []parquet.Row
	n    int64
}

// pqWriteBatch is how many rows a ParquetWriter hands to parquet-go at once.
const pqWriteBatch = 512

// ParquetRowGroupRows is the number of rows of a row group the writer
// makes (the last may have fewer).
const ParquetRowGroupRows = 128 * 1024

// pqOut is how a column is written.
type pqOut struct {
	typ      types.Type
	physical parquet.Kind
	unit     int64 // TIME, TIMESTAMP: units per second
	size     int   // DECIMAL as FIXED_LEN_BYTE_ARRAY: bytes
}

// parquetNode returns the Parquet node a column of type t is written as,
// and how its values are, or an error for a type a Parquet file of ptfsh
// cannot hold.
func parquetNode(t types.Type) (parquet.Node, pqOut, error) {
	o := pqOut{typ: t}
	var n parquet.Node
	switch t.Kind {
	case types.KindBoolean:
		n = parquet.Leaf(parquet.BooleanType)
	case types.KindTinyInt:
		n = parquet.Int(8)
	case types.KindSmallInt:
		n = parquet.Int(16)
	case types.KindInt:
		n = parquet.Int(32)
	case types.KindBigInt:
		n = parquet.Int(64)
	case types.KindFloat:
		n = parquet.Leaf(parquet.FloatType)
	case types.KindDouble:
		n = parquet.Leaf(parquet.DoubleType)
	case types.KindChar, types.KindVarChar:
		n = parquet.String()
	case types.KindBinary, types.KindVarBinary:
		n = parquet.Leaf(parquet.ByteArrayType)
	case types.KindDecimal:
		switch {
		case t.Length <= 9:
			n = parquet.Decimal(t.Scale, t.Length, parquet.Int32Type)
		case t.Length <= 18:
			n = parquet.Decimal(t.Scale, t.Length, parquet.Int64Type)
		default:
			o.size = int(math.Ceil((float64(t.Length)*math.Log2(10) + 1) / 8))
			n = parquet.Decimal(t.Scale, t.Length, parquet.FixedLenByteArrayType(o.size))
		}
	case types.KindDate:
		n = parquet.Date()
	case types.KindTime:
		unit, per := timeUnitFor(t.Length)
		n, o.unit = parquet.TimeAdjusted(unit, false), per
		if per == 1e3 {
			o.physical = parquet.Int32
		}
	case types.KindTimestamp, types.KindTimestampLTZ:
		unit, per := timeUnitFor(t.Length)
		n, o.unit = parquet.TimestampAdjusted(unit, t.Kind == types.KindTimestampLTZ), per
	default:
		return nil, o, fmt.Errorf("a Parquet file of ptfsh cannot hold a column of type %s", t)
	}
	if o.physical == 0 {
		o.physical = n.Type().Kind()
	}
	if t.NotNull {
		n = parquet.Required(n)
	} else {
		n = parquet.Optional(n)
	}
	return n, o, nil
}

func timeUnitFor(p int) (parquet.TimeUnit, int64) {
	switch {
	case p <= 3:
		return parquet.Millisecond, 1e3
	case p <= 6:
		return parquet.Microsecond, 1e6
	}
	return parquet.Nanosecond, 1e9
}

// CheckParquetSchema reports the first column of schema that a Parquet file
// cannot hold.
func CheckParquetSchema(schema types.Schema) error {
	for _, c := range schema.Columns {
		if _, _, err := parquetNode(c.Type); err != nil {
			return fmt.Errorf("column '%s': %w", c.Name, err)
		}
	}
	return nil
}

// NewParquetWriter starts a Parquet file of the given columns on w.
func NewParquetWriter(w io.Writer, schema types.Schema) (*ParquetWriter, error) {
	g := make(pqGroup, len(schema.Columns))
	pw := &ParquetWriter{schema: schema, cols: make([]pqOut, len(schema.Columns))}
	for i, c := range schema.Columns {
		n, o, err := parquetNode(c.Type)
		if err != nil {
			return nil, fmt.Errorf("column '%s': %w", c.Name, err)
		}
		g[i] = pqField{Node: n, name: c.Name}
		pw.cols[i] = o
	}
	pw.w = parquet.NewGenericWriter[any](w, parquet.NewSchema("schema", g),
		parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(ParquetRowGroupRows))
	pw.vals = make([]parquet.Value, pqWriteBatch*len(schema.Columns))
	pw.rows = make([]parquet.Row, 0, pqWriteBatch)
	return pw, nil
}

// Write adds a row, its fields holding the Go values of the columns' types.
// A value that does not fit its column is an error of this call, and the
// row is not added; the rows are written to the file a batch at a time,
// so an error of the file itself may come from a later Write or Close.
func (pw *ParquetWriter) Write(fields []any) error {
	nc := len(pw.cols)
	if len(fields) != nc {
		return fmt.Errorf("a row of %d fields for %d columns", len(fields), nc)
	}
	at := len(pw.rows) * nc
	row := pw.vals[at : at+nc : at+nc]
	for i, f := range fields {
		v, err := pw.value(i, f)
		if err != nil {
			return fmt.Errorf("column '%s': %w", pw.schema.Columns[i].Name, err)
		}
		row[i] = v
	}
	pw.rows = append(pw.rows, row)
	pw.n++
	if len(pw.rows) == pqWriteBatch {
		return pw.flush()
	}
	return nil
}

// flush hands the rows held to parquet-go.
func (pw *ParquetWriter) flush() error {
	if len(pw.rows) == 0 {
		return nil
	}
	_, err := pw.w.WriteRows(pw.rows)
	clear(pw.vals) // no string stays reachable from here
	pw.rows = pw.rows[:0]
	return err
}

// Rows returns the number of rows written.
func (pw *ParquetWriter) Rows() int64 { return pw.n }

func (pw *ParquetWriter) value(i int, f any) (parquet.Value, error) {
	o := &pw.cols[i]
	def := 1
	if o.typ.NotNull {
		def = 0
	}
	if f == nil {
		if o.typ.NotNull {
			return parquet.Value{}, fmt.Errorf("NULL for %s", o.typ)
		}
		return parquet.NullValue().Level(0, 0, i), nil
	}
	var v parquet.Value
	wrong := func() (parquet.Value, error) {
		return parquet.Value{}, fmt.Errorf("value %v (%T) for %s", f, f, o.typ)
	}
	switch x := f.(type) {
	case bool:
		v = parquet.BooleanValue(x)
	case int64:
		if o.physical == parquet.Int32 {
			v = parquet.Int32Value(int32(x))
		} else {
			v = parquet.Int64Value(x)
		}
	case float64:
		if o.physical == parquet.Float {
			v = parquet.FloatValue(float32(x))
		} else {
			v = parquet.DoubleValue(x)
		}
	case string:
		v = parquet.ByteArrayValue([]byte(x))
	case []byte:
		v = parquet.ByteArrayValue(x)
	case types.Decimal:
		u := x.Unscaled
		if x.Scale != o.typ.Scale {
			return wrong()
		}
		switch o.physical {
		case parquet.Int32:
			v = parquet.Int32Value(int32(u.Int64()))
		case parquet.Int64:
			v = parquet.Int64Value(u.Int64())
		default:
			v = parquet.FixedLenByteArrayValue(fixedTwosComplement(u, o.size))
		}
	case types.Date:
		v = parquet.Int32Value(int32(x))
	case types.TimeOfDay:
		units := int64(x) / (1e9 / o.unit)
		if o.physical == parquet.Int32 {
			v = parquet.Int32Value(int32(units))
		} else {
			v = parquet.Int64Value(units)
		}
	case types.LocalDateTime:
		u, err := epochUnits(x.Millis, x.NanoOfMilli, o.unit)
		if err != nil {
			return parquet.Value{}, err
		}
		v = parquet.Int64Value(u)
	case types.Instant:
		u, err := epochUnits(x.Millis, x.NanoOfMilli, o.unit)
		if err != nil {
			return parquet.Value{}, err
		}
		v = parquet.Int64Value(u)
	default:
		return wrong()
	}
	return v.Level(0, def, i), nil
}

// epochUnits converts epoch milliseconds and nanoseconds to units of
// 1/per second.
func epochUnits(ms int64, nano int32, per int64) (int64, error) {
	switch per {
	case 1e3:
		return ms, nil
	case 1e6:
		if ms > math.MaxInt64/1000 || ms < math.MinInt64/1000 {
			break
		}
		return ms*1000 + int64(nano)/1000, nil
	default:
		if ms > math.MaxInt64/1_000_000-1 || ms < math.MinInt64/1_000_000+1 {
			break
		}
		return ms*1e6 + int64(nano), nil
	}
	return 0, errors.New("timestamp out of the range of Parquet's TIMESTAMP(NANOS) (years 1677 to 2262)")
}

// fixedTwosComplement writes u as a big-endian two's complement integer of
// size bytes.
func fixedTwosComplement(u *big.Int, size int) []byte {
	b := make([]byte, size)
	if u.Sign() >= 0 {
		u.FillBytes(b)
		return b
	}
	m := new(big.Int).Add(u, new(big.Int).Lsh(big.NewInt(1), uint(8*size)))
	m.FillBytes(b)
	return b
}

// Close writes the last row group and the footer. It does not close the
// underlying writer.
func (pw *ParquetWriter) Close() error {
	if err := pw.flush(); err != nil {
		pw.w.Close()
		return err
	}
	return pw.w.Close()
}

// pqGroup is the root of a schema whose columns keep their order
// (parquet.Group sorts them by name).
type pqGroup []parquet.Field

func (g pqGroup) ID() int                           { return 0 }
func (g pqGroup) String() string                    { return "group" }
func (g pqGroup) Type() parquet.Type                { return parquet.Group{}.Type() }
func (g pqGroup) Optional() bool                    { return false }
func (g pqGroup) Repeated() bool                    { return false }
func (g pqGroup) Required() bool                    { return true }
func (g pqGroup) Leaf() bool                        { return false }
func (g pqGroup) Fields() []parquet.Field           { return g }
func (g pqGroup) Encoding() encoding.Encoding       { return nil }
func (g pqGroup) Compression() compress.Codec       { return nil }
func (g pqGroup) GoType() reflect.Type              { return reflect.TypeOf(struct{}{}) }
func (f pqField) Name() string                      { return f.name }
func (f pqField) Value(reflect.Value) reflect.Value { return reflect.Value{} }

// pqField is a column of a pqGroup.
type pqField struct {
	parquet.Node
	name string
}
