// Package keycodec encodes partition keys with the order-preserving
// encoding of internal/orderedcode, so that keys sort like their values and a key's
// bytes identify it: the one key format of state, timers, sort buffers and
// the table printer.
package keycodec

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Pick picks the PARTITION BY values of a row.
func Pick(r types.Row, cols []int) []any {
	if len(cols) == 0 {
		return nil
	}
	k := make([]any, len(cols))
	for i, c := range cols {
		k[i] = r.Fields[c]
	}
	return k
}

// Empty is the encoding of the empty key (a call without PARTITION BY
// whose function keeps state, OPTIONAL_PARTITION_BY): the store refuses
// empty keys, and Flink keeps such state under one key too. 0x01 starts no
// element of the store's encoding, so it is no other key.
var Empty = []byte{0x01}

// Encode encodes key values with the store's order-preserving encoding,
// so that keys sort like their values and a key's bytes identify it.
func Encode(key []any) []byte {
	if len(key) == 0 {
		return []byte{Empty[0]}
	}
	var b []byte
	for _, v := range key {
		b = AppendValue(b, v)
	}
	return b
}

// AppendPick appends the encoding of the PARTITION BY values of a row to
// dst: Encode(Pick(r, cols)) without making the key.
func AppendPick(dst []byte, r types.Row, cols []int) []byte {
	if len(cols) == 0 {
		return append(dst, Empty[0])
	}
	for _, c := range cols {
		dst = AppendValue(dst, r.Fields[c])
	}
	return dst
}

// AppendInt64 appends the encoding of an int64 (AppendValue's, without
// boxing the value).
func AppendInt64(b []byte, v int64) []byte { return orderedcode.AppendInt64(b, v) }

func AppendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return orderedcode.AppendNull(b)
	case bool:
		return orderedcode.AppendBool(b, x)
	case int64:
		return orderedcode.AppendInt64(b, x)
	case float64:
		return orderedcode.AppendFloat64(b, x)
	case string:
		return orderedcode.AppendString(b, x)
	case []byte:
		return orderedcode.AppendBytes(b, x)
	case types.Decimal:
		f, _ := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil)).Float64()
		b = orderedcode.AppendFloat64(b, f)
		return orderedcode.AppendString(b, x.Unscaled.String()+"e-"+strconv.Itoa(x.Scale))
	case types.Date:
		return orderedcode.AppendInt64(b, int64(x))
	case types.TimeOfDay:
		return orderedcode.AppendInt64(b, int64(x))
	case types.Instant:
		return orderedcode.AppendInt64(orderedcode.AppendInt64(b, x.Millis), int64(x.NanoOfMilli))
	case types.LocalDateTime:
		return orderedcode.AppendInt64(orderedcode.AppendInt64(b, x.Millis), int64(x.NanoOfMilli))
	case types.Duration:
		return orderedcode.AppendInt64(b, int64(x))
	case types.Period:
		return orderedcode.AppendInt64(b, int64(x))
	}
	// Composite keys (rows, arrays, maps) by their printed form.
	return orderedcode.AppendString(b, types.FormatValue(v, types.Type{}))
}

// Decode reverses encodeKey for key columns of the given types.
func Decode(enc []byte, kinds []types.Type) ([]any, error) {
	d := orderedcode.NewDecoder(enc)
	out := make([]any, len(kinds))
	for i, t := range kinds {
		if d.Peek() == orderedcode.KindNull {
			d.Null()
			continue
		}
		var err error
		switch t.Kind {
		case types.KindBoolean:
			out[i], err = d.Bool()
		case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
			out[i], err = d.Int64()
		case types.KindFloat, types.KindDouble:
			out[i], err = d.Float64()
		case types.KindChar, types.KindVarChar:
			out[i], err = d.String()
		case types.KindBinary, types.KindVarBinary:
			out[i], err = d.Bytes()
		case types.KindDate:
			var n int64
			n, err = d.Int64()
			out[i] = types.Date(n)
		case types.KindTime:
			var n int64
			n, err = d.Int64()
			out[i] = types.TimeOfDay(n)
		case types.KindTimestamp, types.KindTimestampLTZ:
			var ms, ns int64
			if ms, err = d.Int64(); err == nil {
				ns, err = d.Int64()
			}
			if t.Kind == types.KindTimestamp {
				out[i] = types.LocalDateTime{Millis: ms, NanoOfMilli: int32(ns)}
			} else {
				out[i] = types.Instant{Millis: ms, NanoOfMilli: int32(ns)}
			}
		case types.KindIntervalDayTime:
			var n int64
			n, err = d.Int64()
			out[i] = types.Duration(n)
		case types.KindIntervalYearMonth:
			var n int64
			n, err = d.Int64()
			out[i] = types.Period(n)
		case types.KindDecimal:
			if _, err = d.Float64(); err == nil {
				var s string
				if s, err = d.String(); err == nil {
					out[i], err = parseDecimalKey(s)
				}
			}
		default:
			out[i], err = d.String()
		}
		if err != nil {
			return nil, fmt.Errorf("corrupt partition key: %w", err)
		}
	}
	return out, nil
}

func parseDecimalKey(s string) (types.Decimal, error) {
	mant, exp, ok := strings.Cut(s, "e-")
	u, ok2 := new(big.Int).SetString(mant, 10)
	scale, err := strconv.Atoi(exp)
	if !ok || !ok2 || err != nil {
		return types.Decimal{}, fmt.Errorf("bad decimal %q", s)
	}
	return types.Decimal{Unscaled: u, Scale: scale}, nil
}
