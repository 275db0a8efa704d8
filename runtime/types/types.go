package types

import (
	"math"
	"strconv"
	"strings"
)

// Kind is the root of a SQL data type, named as in Flink's LogicalTypeRoot.
type Kind uint8

// The type kinds ptfsh knows.
const (
	KindNull Kind = iota // the type of an untyped NULL literal
	KindBoolean
	KindTinyInt
	KindSmallInt
	KindInt
	KindBigInt
	KindFloat
	KindDouble
	KindDecimal
	KindChar
	KindVarChar
	KindBinary
	KindVarBinary
	KindDate
	KindTime
	KindTimestamp    // TIMESTAMP(p): a LocalDateTime
	KindTimestampLTZ // TIMESTAMP_LTZ(p): an Instant
	KindIntervalDayTime
	KindIntervalYearMonth
	KindArray
	KindMap
	KindRow
	KindDescriptor
)

// IntegerRange is the range of an integer kind: TINYINT, SMALLINT, INT,
// and BIGINT's for any other.
func (k Kind) IntegerRange() (lo, hi int64) {
	switch k {
	case KindTinyInt:
		return math.MinInt8, math.MaxInt8
	case KindSmallInt:
		return math.MinInt16, math.MaxInt16
	case KindInt:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// MaxLength is the length of STRING (VARCHAR(2147483647)) and BYTES.
const MaxLength = 2147483647

// Type is a SQL data type. The zero Type is the type of NULL.
type Type struct {
	Kind Kind
	// NotNull is true for NOT NULL types.
	NotNull bool
	// Length is the length of CHAR, VARCHAR, BINARY and VARBINARY; the
	// precision of DECIMAL, TIME, TIMESTAMP and TIMESTAMP_LTZ.
	Length int
	// Scale is the scale of DECIMAL.
	Scale int
	// Elem is the element type of ARRAY and the value type of MAP.
	Elem *Type
	// Key is the key type of MAP.
	Key *Type
	// Fields are the fields of ROW.
	Fields []Field
	// Multiset marks a MAP<T, INT NOT NULL> that is Flink's MULTISET<T>
	// (COLLECT's result): its values are the counts of its keys, and it
	// prints as MULTISET<T>; everything else takes it as the map.
	Multiset bool
}

// Field is a named field of a ROW type or a column of a schema.
type Field struct {
	Name string
	Type Type
}

// Common types.
var (
	TypeBoolean      = Type{Kind: KindBoolean}
	TypeInt          = Type{Kind: KindInt}
	TypeBigInt       = Type{Kind: KindBigInt}
	TypeDouble       = Type{Kind: KindDouble}
	TypeString       = Type{Kind: KindVarChar, Length: MaxLength}
	TypeBytes        = Type{Kind: KindVarBinary, Length: MaxLength}
	TypeDescriptor   = Type{Kind: KindDescriptor}
	TypeTimestamp3   = Type{Kind: KindTimestamp, Length: 3}
	TypeTimestampLTZ = Type{Kind: KindTimestampLTZ, Length: 3}
)

// NewRowType returns a ROW type with the given fields.
func NewRowType(fields ...Field) Type { return Type{Kind: KindRow, Fields: fields} }

// ArrayOf returns ARRAY<elem>.
func ArrayOf(elem Type) Type { return Type{Kind: KindArray, Elem: &elem} }

// MapOf returns MAP<key, value>.
func MapOf(key, value Type) Type { return Type{Kind: KindMap, Key: &key, Elem: &value} }

// MultisetOf returns MULTISET<elem>, a map of the elements to their counts.
func MultisetOf(elem Type) Type {
	count := TypeInt.AsNotNull()
	return Type{Kind: KindMap, Key: &elem, Elem: &count, Multiset: true}
}

// Nullable returns t without NOT NULL.
func (t Type) Nullable() Type { t.NotNull = false; return t }

// AsNotNull returns t with NOT NULL.
func (t Type) AsNotNull() Type { t.NotNull = true; return t }

// IsString reports whether t is CHAR or VARCHAR.
func (t Type) IsString() bool { return t.Kind == KindChar || t.Kind == KindVarChar }

// IsInteger reports whether t is TINYINT, SMALLINT, INT or BIGINT.
func (t Type) IsInteger() bool {
	switch t.Kind {
	case KindTinyInt, KindSmallInt, KindInt, KindBigInt:
		return true
	}
	return false
}

// IsNumeric reports whether t is an exact or approximate number.
func (t Type) IsNumeric() bool {
	return t.IsInteger() || t.Kind == KindFloat || t.Kind == KindDouble || t.Kind == KindDecimal
}

// IsTime reports whether t is TIMESTAMP or TIMESTAMP_LTZ.
func (t Type) IsTime() bool { return t.Kind == KindTimestamp || t.Kind == KindTimestampLTZ }

// FieldIndex returns the index of the ROW field named name, or -1.
func (t Type) FieldIndex(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Equal reports whether t and u are the same type, nullability included.
func (t Type) Equal(u Type) bool { return t.String() == u.String() }

// SameRoot reports whether t and u are the same type ignoring nullability
// and, for strings, length.
func (t Type) SameRoot(u Type) bool {
	if t.IsString() && u.IsString() {
		return true
	}
	return t.Nullable().String() == u.Nullable().String()
}

// String renders t as Flink's LogicalType.asSummaryString does, e.g.
// VARCHAR(5) NOT NULL, STRING, ROW<`name` STRING, `score` INT>.
func (t Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t Type) write(b *strings.Builder) {
	switch t.Kind {
	case KindNull:
		b.WriteString("NULL")
		return // NULL has no NOT NULL form
	case KindBoolean:
		b.WriteString("BOOLEAN")
	case KindTinyInt:
		b.WriteString("TINYINT")
	case KindSmallInt:
		b.WriteString("SMALLINT")
	case KindInt:
		b.WriteString("INT")
	case KindBigInt:
		b.WriteString("BIGINT")
	case KindFloat:
		b.WriteString("FLOAT")
	case KindDouble:
		b.WriteString("DOUBLE")
	case KindDecimal:
		b.WriteString("DECIMAL(" + strconv.Itoa(t.Length) + ", " + strconv.Itoa(t.Scale) + ")")
	case KindChar:
		b.WriteString("CHAR(" + strconv.Itoa(t.Length) + ")")
	case KindVarChar:
		if t.Length == MaxLength {
			b.WriteString("STRING")
		} else {
			b.WriteString("VARCHAR(" + strconv.Itoa(t.Length) + ")")
		}
	case KindBinary:
		b.WriteString("BINARY(" + strconv.Itoa(t.Length) + ")")
	case KindVarBinary:
		if t.Length == MaxLength {
			b.WriteString("BYTES")
		} else {
			b.WriteString("VARBINARY(" + strconv.Itoa(t.Length) + ")")
		}
	case KindDate:
		b.WriteString("DATE")
	case KindTime:
		b.WriteString("TIME(" + strconv.Itoa(t.Length) + ")")
	case KindTimestamp:
		b.WriteString("TIMESTAMP(" + strconv.Itoa(t.Length) + ")")
	case KindTimestampLTZ:
		b.WriteString("TIMESTAMP_LTZ(" + strconv.Itoa(t.Length) + ")")
	case KindIntervalDayTime:
		b.WriteString("INTERVAL DAY TO SECOND")
	case KindIntervalYearMonth:
		b.WriteString("INTERVAL YEAR TO MONTH")
	case KindArray:
		b.WriteString("ARRAY<")
		t.Elem.write(b)
		b.WriteString(">")
	case KindMap:
		if t.Multiset {
			b.WriteString("MULTISET<")
			t.Key.write(b)
			b.WriteString(">")
			break
		}
		b.WriteString("MAP<")
		t.Key.write(b)
		b.WriteString(", ")
		t.Elem.write(b)
		b.WriteString(">")
	case KindRow:
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + f.Name + "` ")
			f.Type.write(b)
		}
		b.WriteString(">")
	case KindDescriptor:
		b.WriteString("DESCRIPTOR")
	default:
		b.WriteString("UNKNOWN")
	}
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
}
