package types

import "math/big"

// Values in rows are Go values whose dynamic type follows the column's SQL
// type. nil is NULL for every type.
//
//	BOOLEAN                         bool
//	TINYINT, SMALLINT, INT, BIGINT  int64
//	FLOAT, DOUBLE                   float64
//	DECIMAL(p, s)                   Decimal
//	CHAR, VARCHAR, STRING           string
//	BINARY, VARBINARY, BYTES        []byte
//	DATE                            Date
//	TIME                            TimeOfDay
//	TIMESTAMP(p)                    LocalDateTime
//	TIMESTAMP_LTZ(p)                Instant
//	INTERVAL DAY TO SECOND          Duration
//	INTERVAL YEAR TO MONTH          Period
//	ARRAY<T>                        []any
//	MAP<K, V>                       *Map
//	ROW<...>                        Row
//	DESCRIPTOR                      Descriptor
//
// Values are immutable once they are in a Row that has been emitted: an
// operator that needs to change a row copies it.

// Decimal is an exact decimal number: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// Date is a day count since 1970-01-01.
type Date int32

// TimeOfDay is a time of day in nanoseconds since midnight.
type TimeOfDay int64

// LocalDateTime is a TIMESTAMP value: a date and time without time zone,
// stored as milliseconds since 1970-01-01T00:00 plus the nanoseconds within
// that millisecond.
type LocalDateTime struct {
	Millis      int64
	NanoOfMilli int32
}

// Instant is a TIMESTAMP_LTZ value: a point on the time line, stored as epoch
// milliseconds plus the nanoseconds within that millisecond.
type Instant struct {
	Millis      int64
	NanoOfMilli int32
}

// Duration is an INTERVAL DAY TO SECOND value in milliseconds.
type Duration int64

// Period is an INTERVAL YEAR TO MONTH value in months.
type Period int32

// Descriptor is a DESCRIPTOR value: a list of column names.
type Descriptor []string

// Map is a MAP value. It keeps its entries in insertion order, which is the
// order in which they print.
type Map struct {
	Keys   []any
	Values []any
}

// Len returns the number of entries.
func (m *Map) Len() int { return len(m.Keys) }

// TimeMillis returns the epoch milliseconds of a TIMESTAMP or TIMESTAMP_LTZ
// value, and false for anything else (NULL included).
func TimeMillis(v any) (int64, bool) {
	switch t := v.(type) {
	case Instant:
		return t.Millis, true
	case LocalDateTime:
		return t.Millis, true
	}
	return 0, false
}

func (d Decimal) Rat() *big.Rat {
	r := new(big.Rat).SetInt(d.Unscaled)
	if d.Scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)))
	}
	return r
}
