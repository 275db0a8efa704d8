package runtime

import (
	"math/big"

	"github.com/ptfsh/ptfsh/state"
)

// partitionKey picks the PARTITION BY values of a row.
func partitionKey(r Row, cols []int) []any {
	if len(cols) == 0 {
		return nil
	}
	k := make([]any, len(cols))
	for i, c := range cols {
		k[i] = r.Fields[c]
	}
	return k
}

// encodeKey encodes key values with the store's order-preserving encoding,
// so that keys sort like their values and a key's bytes identify it.
func encodeKey(key []any) []byte {
	var b []byte
	for _, v := range key {
		b = appendKeyValue(b, v)
	}
	return b
}

func appendKeyValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return state.AppendNull(b)
	case bool:
		return state.AppendBool(b, x)
	case int64:
		return state.AppendInt64(b, x)
	case float64:
		return state.AppendFloat64(b, x)
	case string:
		return state.AppendString(b, x)
	case []byte:
		return state.AppendBytes(b, x)
	case Decimal:
		f, _ := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(bigTen, big.NewInt(int64(x.Scale)), nil)).Float64()
		b = state.AppendFloat64(b, f)
		return state.AppendString(b, x.Unscaled.String()+"e-"+itoa(x.Scale))
	case Date:
		return state.AppendInt64(b, int64(x))
	case TimeOfDay:
		return state.AppendInt64(b, int64(x))
	case Instant:
		return state.AppendInt64(state.AppendInt64(b, x.Millis), int64(x.NanoOfMilli))
	case LocalDateTime:
		return state.AppendInt64(state.AppendInt64(b, x.Millis), int64(x.NanoOfMilli))
	case Duration:
		return state.AppendInt64(b, int64(x))
	case Period:
		return state.AppendInt64(b, int64(x))
	}
	// Composite keys (rows, arrays, maps) by their printed form.
	return state.AppendString(b, FormatValue(v, Type{}))
}
