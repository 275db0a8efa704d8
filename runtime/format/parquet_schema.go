package format

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// InferParquet returns the columns of a Parquet file's schema, each with
// the SQL type that reads it exactly (the inverse of OpenParquet's
// conversions): BOOLEAN; INT32 as INT, INT64 as BIGINT, INT(8/16) as
// TINYINT/SMALLINT, unsigned INT(n) as the next wider type (INT(64,
// false) as BIGINT, its values range-checked); FLOAT; DOUBLE; STRING,
// ENUM and JSON as STRING; other byte arrays as BYTES, BINARY(n) for a
// fixed length; DECIMAL(p, s); DATE; TIME(p) and TIMESTAMP(p) with p 3,
// 6 or 9 by the unit, TIMESTAMP_LTZ(p) when adjusted to UTC; INT96 as
// TIMESTAMP(9). A REQUIRED column is NOT NULL. Nested and repeated
// columns, which the reader does not read, are left out: skipped
// describes each ("tags (a repeated or nested column)").
func InferParquet(path string) (cols []types.Column, skipped []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			cols, skipped, err = nil, nil, &ParseError{File: path, Msg: fmt.Sprintf("not a readable Parquet file: %v", p)}
		}
	}()
	f, err := openSourceFile(path, SourcePos{})
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 {
		return nil, nil, &ParseError{File: path, Msg: "not a Parquet file: the file is empty"}
	}
	if err := checkParquetTail(f, st.Size()); err != nil {
		return nil, nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error()}
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, nil, &ParseError{File: path, Msg: "not a Parquet file: " + err.Error()}
	}
	for _, fd := range pf.Schema().Fields() {
		if !fd.Leaf() || fd.Repeated() {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", fd.Name(), pqTypeString(fd)))
			continue
		}
		t, ok := pqSQLType(fd.Type())
		if !ok {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", fd.Name(), pqTypeString(fd)))
			continue
		}
		t.NotNull = fd.Required()
		cols = append(cols, types.Column{Name: fd.Name(), Type: t})
	}
	if len(cols) == 0 {
		return nil, skipped, &ParseError{File: path, Msg: "the file has no column ptfsh reads (nested and repeated columns are not read yet)"}
	}
	return cols, skipped, nil
}

// pqSQLType is the SQL type that reads a Parquet leaf type exactly.
func pqSQLType(t parquet.Type) (types.Type, bool) {
	var ltv pqformat.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		ltv = lt.Value
	}
	k := t.Kind()
	precision := func(u pqformat.TimeUnit) int {
		switch unitsPerSecond(u) {
		case 1e3:
			return 3
		case 1e6:
			return 6
		}
		return 9
	}
	switch lv := ltv.(type) {
	case nil:
		switch k {
		case parquet.Boolean:
			return types.TypeBoolean, true
		case parquet.Int32:
			return types.Type{Kind: types.KindInt}, true
		case parquet.Int64:
			return types.Type{Kind: types.KindBigInt}, true
		case parquet.Float:
			return types.Type{Kind: types.KindFloat}, true
		case parquet.Double:
			return types.Type{Kind: types.KindDouble}, true
		case parquet.ByteArray:
			return types.Type{Kind: types.KindVarBinary, Length: types.MaxLength}, true
		case parquet.FixedLenByteArray:
			return types.Type{Kind: types.KindBinary, Length: t.Length()}, true
		case parquet.Int96:
			return types.Type{Kind: types.KindTimestamp, Length: 9}, true
		}
	case *pqformat.IntType:
		if k != parquet.Int32 && k != parquet.Int64 {
			return types.Type{}, false
		}
		bits := int(lv.BitWidth)
		if !lv.IsSigned && bits < 64 {
			bits *= 2
		}
		switch {
		case bits <= 8:
			return types.Type{Kind: types.KindTinyInt}, true
		case bits <= 16:
			return types.Type{Kind: types.KindSmallInt}, true
		case bits <= 32:
			return types.Type{Kind: types.KindInt}, true
		}
		return types.Type{Kind: types.KindBigInt}, true
	case *pqformat.StringType, *pqformat.EnumType, *pqformat.JsonType:
		if k == parquet.ByteArray {
			return types.TypeString, true
		}
	case *pqformat.DecimalType:
		return types.Type{Kind: types.KindDecimal, Length: int(lv.Precision), Scale: int(lv.Scale)}, true
	case *pqformat.DateType:
		if k == parquet.Int32 {
			return types.Type{Kind: types.KindDate}, true
		}
	case *pqformat.TimeType:
		return types.Type{Kind: types.KindTime, Length: precision(lv.Unit)}, true
	case *pqformat.TimestampType:
		if k != parquet.Int64 {
			return types.Type{}, false
		}
		kind := types.KindTimestamp
		if lv.IsAdjustedToUTC {
			kind = types.KindTimestampLTZ
		}
		return types.Type{Kind: kind, Length: precision(lv.Unit)}, true
	}
	return types.Type{}, false
}
