package exec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// The elements of list state and the values (and keys) of map state are
// stored with a compact, self-describing encoding of runtime values
// (value.go): one tag byte, then the payload. Being self-describing, it
// needs no declared type to be read back, so SHOW STATE can print what a
// store holds without the function that wrote it.
//
//	tag  value           payload
//	 0   NULL            none
//	 1   false           none
//	 2   true            none
//	 3   int64           zig-zag varint
//	 4   float64         8 bytes, little-endian IEEE 754 bits
//	 5   Decimal         varint scale, sign byte (0 or 1), uvarint length, big-endian magnitude
//	 6   string          uvarint length, UTF-8 bytes
//	 7   []byte          uvarint length, bytes
//	 8   Date            varint days
//	 9   TimeOfDay       varint nanoseconds
//	10   LocalDateTime   varint millis, varint nano-of-milli
//	11   Instant         varint millis, varint nano-of-milli
//	12   Duration        varint millis
//	13   Period          varint months
//	14   []any (ARRAY)   uvarint count, elements
//	15   *Map            uvarint count, key and value of each entry in order
//	16   Row             kind byte, uvarint count, fields
//	17   Descriptor      uvarint count, each name as uvarint length + bytes
//
// The encoding is not order-preserving: map keys are ordered by the
// store's key encoding (encodeKey), not by this one.
const (
	VtNull byte = iota
	vtFalse
	vtTrue
	vtInt
	vtFloat
	vtDecimal
	vtString
	vtBytes
	vtDate
	vtTime
	vtTimestamp
	vtInstant
	vtDuration
	vtPeriod
	VtArray
	vtMap
	vtRow
	vtDescriptor
)

// MaxValueDepth bounds the nesting of a decoded value, so that a damaged
// record cannot exhaust the stack.
const MaxValueDepth = 256

var ErrValueTruncated = errors.New("truncated value")

// AppendValue appends the encoding of v to b. It fails for a Go type that
// is not a runtime value.
func AppendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, VtNull), nil
	case bool:
		if x {
			return append(b, vtTrue), nil
		}
		return append(b, vtFalse), nil
	case int64:
		return binary.AppendVarint(append(b, vtInt), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, vtFloat), math.Float64bits(x)), nil
	case types.Decimal:
		b = binary.AppendVarint(append(b, vtDecimal), int64(x.Scale))
		var mag []byte
		sign := byte(0)
		if x.Unscaled != nil {
			mag = x.Unscaled.Bytes()
			if x.Unscaled.Sign() < 0 {
				sign = 1
			}
		}
		b = binary.AppendUvarint(append(b, sign), uint64(len(mag)))
		return append(b, mag...), nil
	case string:
		return append(binary.AppendUvarint(append(b, vtString), uint64(len(x))), x...), nil
	case []byte:
		return append(binary.AppendUvarint(append(b, vtBytes), uint64(len(x))), x...), nil
	case types.Date:
		return binary.AppendVarint(append(b, vtDate), int64(x)), nil
	case types.TimeOfDay:
		return binary.AppendVarint(append(b, vtTime), int64(x)), nil
	case types.LocalDateTime:
		return binary.AppendVarint(binary.AppendVarint(append(b, vtTimestamp), x.Millis), int64(x.NanoOfMilli)), nil
	case types.Instant:
		return binary.AppendVarint(binary.AppendVarint(append(b, vtInstant), x.Millis), int64(x.NanoOfMilli)), nil
	case types.Duration:
		return binary.AppendVarint(append(b, vtDuration), int64(x)), nil
	case types.Period:
		return binary.AppendVarint(append(b, vtPeriod), int64(x)), nil
	case []any:
		b = binary.AppendUvarint(append(b, VtArray), uint64(len(x)))
		for _, el := range x {
			var err error
			if b, err = AppendValue(b, el); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *types.Map:
		if x == nil {
			return append(b, VtNull), nil
		}
		b = binary.AppendUvarint(append(b, vtMap), uint64(len(x.Keys)))
		for i, k := range x.Keys {
			var val any
			if i < len(x.Values) {
				val = x.Values[i]
			}
			var err error
			if b, err = AppendValue(b, k); err != nil {
				return nil, err
			}
			if b, err = AppendValue(b, val); err != nil {
				return nil, err
			}
		}
		return b, nil
	case types.Row:
		b = binary.AppendUvarint(append(b, vtRow, byte(x.Kind)), uint64(len(x.Fields)))
		for _, f := range x.Fields {
			var err error
			if b, err = AppendValue(b, f); err != nil {
				return nil, err
			}
		}
		return b, nil
	case types.Descriptor:
		b = binary.AppendUvarint(append(b, vtDescriptor), uint64(len(x)))
		for _, n := range x {
			b = append(binary.AppendUvarint(b, uint64(len(n))), n...)
		}
		return b, nil
	}
	return nil, fmt.Errorf("cannot store a %T in list or map state", v)
}

// ReadValue decodes one value from the front of b and returns the rest.
func ReadValue(b []byte) (any, []byte, error) {
	return readValueDepth(b, 0)
}

func readValueDepth(b []byte, depth int) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, ErrValueTruncated
	}
	if depth > MaxValueDepth {
		return nil, nil, errors.New("value nested too deeply")
	}
	tag, b := b[0], b[1:]
	varint := func() (int64, error) {
		v, n := binary.Varint(b)
		if n <= 0 {
			return 0, ErrValueTruncated
		}
		b = b[n:]
		return v, nil
	}
	count := func() (int, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > uint64(len(b)-n) { // every element takes a byte at least
			return 0, ErrValueTruncated
		}
		b = b[n:]
		return int(v), nil
	}
	bytesOf := func() ([]byte, error) {
		n, err := count()
		if err != nil {
			return nil, err
		}
		out := b[:n:n]
		b = b[n:]
		return out, nil
	}
	switch tag {
	case VtNull:
		return nil, b, nil
	case vtFalse:
		return false, b, nil
	case vtTrue:
		return true, b, nil
	case vtInt:
		v, err := varint()
		return v, b, err
	case vtFloat:
		if len(b) < 8 {
			return nil, nil, ErrValueTruncated
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:], nil
	case vtDecimal:
		scale, err := varint()
		if err != nil {
			return nil, nil, err
		}
		if len(b) == 0 {
			return nil, nil, ErrValueTruncated
		}
		sign := b[0]
		b = b[1:]
		mag, err := bytesOf()
		if err != nil {
			return nil, nil, err
		}
		u := new(big.Int).SetBytes(mag)
		if sign == 1 {
			u.Neg(u)
		}
		return types.Decimal{Unscaled: u, Scale: int(scale)}, b, nil
	case vtString:
		s, err := bytesOf()
		return string(s), b, err
	case vtBytes:
		s, err := bytesOf()
		if err != nil {
			return nil, nil, err
		}
		return append([]byte{}, s...), b, nil
	case vtDate, vtTime, vtDuration, vtPeriod:
		v, err := varint()
		if err != nil {
			return nil, nil, err
		}
		switch tag {
		case vtDate:
			return types.Date(v), b, nil
		case vtTime:
			return types.TimeOfDay(v), b, nil
		case vtDuration:
			return types.Duration(v), b, nil
		}
		return types.Period(v), b, nil
	case vtTimestamp, vtInstant:
		ms, err := varint()
		if err != nil {
			return nil, nil, err
		}
		ns, err := varint()
		if err != nil {
			return nil, nil, err
		}
		if tag == vtTimestamp {
			return types.LocalDateTime{Millis: ms, NanoOfMilli: int32(ns)}, b, nil
		}
		return types.Instant{Millis: ms, NanoOfMilli: int32(ns)}, b, nil
	case VtArray:
		n, err := count()
		if err != nil {
			return nil, nil, err
		}
		out := make([]any, n)
		for i := range out {
			if out[i], b, err = readValueDepth(b, depth+1); err != nil {
				return nil, nil, err
			}
		}
		return out, b, nil
	case vtMap:
		n, err := count()
		if err != nil {
			return nil, nil, err
		}
		m := &types.Map{Keys: make([]any, n), Values: make([]any, n)}
		for i := 0; i < n; i++ {
			if m.Keys[i], b, err = readValueDepth(b, depth+1); err != nil {
				return nil, nil, err
			}
			if m.Values[i], b, err = readValueDepth(b, depth+1); err != nil {
				return nil, nil, err
			}
		}
		return m, b, nil
	case vtRow:
		if len(b) == 0 {
			return nil, nil, ErrValueTruncated
		}
		kind := types.RowKind(b[0])
		b = b[1:]
		n, err := count()
		if err != nil {
			return nil, nil, err
		}
		r := types.Row{Kind: kind, Fields: make([]any, n)}
		for i := range r.Fields {
			if r.Fields[i], b, err = readValueDepth(b, depth+1); err != nil {
				return nil, nil, err
			}
		}
		return r, b, nil
	case vtDescriptor:
		n, err := count()
		if err != nil {
			return nil, nil, err
		}
		d := make(types.Descriptor, n)
		for i := range d {
			s, err := bytesOf()
			if err != nil {
				return nil, nil, err
			}
			d[i] = string(s)
		}
		return d, b, nil
	}
	return nil, nil, fmt.Errorf("unknown value tag %d", tag)
}

// CheckValueKind reports whether v, a non-NULL value, has the Go type of
// SQL type t (value.go); a zero t accepts anything. Only the outer value
// is checked: element types of arrays, maps and rows are not.
func CheckValueKind(v any, t types.Type) error {
	ok := true
	switch t.Kind {
	case types.KindNull:
		return nil
	case types.KindBoolean:
		_, ok = v.(bool)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		_, ok = v.(int64)
	case types.KindFloat, types.KindDouble:
		_, ok = v.(float64)
	case types.KindDecimal:
		_, ok = v.(types.Decimal)
	case types.KindChar, types.KindVarChar:
		_, ok = v.(string)
	case types.KindBinary, types.KindVarBinary:
		_, ok = v.([]byte)
	case types.KindDate:
		_, ok = v.(types.Date)
	case types.KindTime:
		_, ok = v.(types.TimeOfDay)
	case types.KindTimestamp:
		_, ok = v.(types.LocalDateTime)
	case types.KindTimestampLTZ:
		_, ok = v.(types.Instant)
	case types.KindIntervalDayTime:
		_, ok = v.(types.Duration)
	case types.KindIntervalYearMonth:
		_, ok = v.(types.Period)
	case types.KindArray:
		_, ok = v.([]any)
	case types.KindMap:
		_, ok = v.(*types.Map)
	case types.KindRow:
		_, ok = v.(types.Row)
	case types.KindDescriptor:
		_, ok = v.(types.Descriptor)
	}
	if !ok {
		return fmt.Errorf("a %T is not a value of type %s", v, t)
	}
	return nil
}
