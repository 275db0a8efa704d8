package format_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// show and the types below are the test helpers of the readers' tests
// (runtime/textparse has the same for its own).

// show renders a row value with its Go type, so that tables of expected
// values stay short and exact: int64(5), "text", 2025-03-27T12:00:00.000.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("%q", x)
	case int64, float64, bool:
		return fmt.Sprintf("%T(%v)", x, x)
	case types.Decimal:
		return fmt.Sprintf("%sE-%d", x.Unscaled, x.Scale)
	case []byte:
		return fmt.Sprintf("bytes(%q)", x)
	case types.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case types.TimeOfDay:
		return time.Unix(0, int64(x)).UTC().Format("15:04:05.000000000")
	case types.LocalDateTime:
		return showTime(x.Millis, x.NanoOfMilli, "")
	case types.Instant:
		return showTime(x.Millis, x.NanoOfMilli, "Z")
	case types.Duration:
		return fmt.Sprintf("%dms", int64(x))
	case types.Period:
		return fmt.Sprintf("%dmonths", int32(x))
	case types.Descriptor:
		return fmt.Sprintf("descriptor%q", []string(x))
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *types.Map:
		parts := make([]string, x.Len())
		for i := range x.Keys {
			parts[i] = show(x.Keys[i]) + "=" + show(x.Values[i])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case types.Row:
		return showRow(x)
	}
	return fmt.Sprintf("?%T(%v)", v, v)
}

func showTime(ms int64, nano int32, zone string) string {
	t := time.UnixMilli(ms).UTC().Add(time.Duration(nano))
	s := t.Format("2006-01-02T15:04:05.000")
	if nano != 0 {
		s = t.Format("2006-01-02T15:04:05.000000000")
	}
	return s + zone
}

func showRow(r types.Row) string {
	parts := make([]string, len(r.Fields))
	for i, f := range r.Fields {
		parts[i] = show(f)
	}
	return r.Kind.ShortString() + "(" + strings.Join(parts, ", ") + ")"
}

var (
	tTinyInt  = types.Type{Kind: types.KindTinyInt}
	tSmallInt = types.Type{Kind: types.KindSmallInt}
	tFloat    = types.Type{Kind: types.KindFloat}
	tDate     = types.Type{Kind: types.KindDate}
	tTS6      = types.Type{Kind: types.KindTimestamp, Length: 6}
	tTS0      = types.Type{Kind: types.KindTimestamp, Length: 0}
	tLTZ3     = types.TypeTimestampLTZ
	tTS3      = types.TypeTimestamp3
)

func tDecimal(p, s int) types.Type {
	return types.Type{Kind: types.KindDecimal, Length: p, Scale: s}
}
