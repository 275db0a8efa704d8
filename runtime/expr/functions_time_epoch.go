package expr

import (
	"math"
	"math/big"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Epochs and instants: TO_TIMESTAMP_LTZ of a number or a string, and
// UNIX_TIMESTAMP, within the range of instants Flink takes.

func compileToTimestampLTZ(c *call) (Expr, error) {
	if err := c.plainArity(1, 2); err != nil {
		return nil, err
	}
	t := types.TypeTimestampLTZ
	if a := c.args[0].Type(); a.IsString() {
		if len(c.args) == 1 {
			// TO_TIMESTAMP_LTZ(s): s read as yyyy-MM-dd HH:mm:ss[.fff]
			// (or a date alone) in UTC; text that is none is an error, as
			// in Flink 2.3.
			return strict(t, true, c.args, func(v []any) (any, error) {
				text := v[0].(string)
				ts, ok := parseTimestampText(text, "yyyy-MM-dd HH:mm:ss")
				if !ok || strings.ContainsRune(text, 'T') {
					return nil, c.errorf("cannot parse '%s' as a timestamp: the text is yyyy-MM-dd HH:mm:ss[.fff] (or give the pattern, TO_TIMESTAMP_LTZ(s, pattern))", v[0])
				}
				return types.Instant{Millis: ts.Millis}, nil // TIMESTAMP_LTZ(3)
			}), nil
		}
		if err := c.arity(2, 2); err != nil {
			return nil, err
		}
		if err := c.wantString(1); err != nil {
			return nil, err
		}
		return strict(t, true, c.args, func(v []any) (any, error) {
			ts, ok := parseTimestampText(v[0].(string), v[1].(string))
			if !ok {
				return nil, nil
			}
			return types.Instant{Millis: ts.Millis}, nil
		}), nil
	}
	if err := c.wantNumeric(0); err != nil {
		return nil, err
	}
	p := int64(3)
	if len(c.args) == 2 {
		v, err := c.args[1].Eval(nil)
		n, isInt := v.(int64)
		if !c.args[1].IsConstant() || err != nil || !isInt || n < 0 || n > 9 {
			return nil, c.errorf("the precision must be a constant from 0 to 9 (0: epoch seconds, 3: epoch milliseconds)")
		}
		p = n
	}
	t.Length = int(max(p, 3))
	return strict(t, true, c.args[:1], func(v []any) (any, error) {
		switch x := v[0].(type) {
		case int64:
			return epochToInstant(x, p), nil
		case types.Decimal:
			// Whole units, rounded down, as Flink 2.3 takes them; one
			// past 64 bits is NULL (Flink keeps its low 64 bits).
			if x.Scale < 0 {
				return nil, nil
			}
			n := new(big.Int).Div(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
			if !n.IsInt64() {
				return nil, nil
			}
			return epochToInstant(n.Int64(), p), nil
		}
		return floatEpochToInstant(toFloat(v[0]), p), nil
	}), nil
}

// The range of TO_TIMESTAMP_LTZ, as Flink's DateTimeUtils gives it
// (MIN_EPOCH_SECONDS, MAX_EPOCH_SECONDS): 0000-01-01T00:00:00Z to
// 9999-12-31T23:59:59.999999999Z. An epoch outside it is NULL, never a
// time that wrapped around.
const (
	minEpochSeconds = -62167219200
	maxEpochSeconds = 253402300799
	minEpochMillis  = minEpochSeconds * 1000
	maxEpochMillis  = maxEpochSeconds*1000 + 999
)

// pow10 holds 10^0 to 10^9.
var pow10 = [10]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// epochToInstant is Flink's epochToTimestampData: v counts units of
// 10^-p seconds; NULL when its second is out of range. The instant keeps
// what its type's precision, max(p, 3), holds.
func epochToInstant(v, p int64) any {
	secs, rem := floorDiv(v, pow10[p])
	if secs < minEpochSeconds || secs > maxEpochSeconds {
		return nil
	}
	nanos := rem * pow10[9-p]
	return types.Instant{Millis: secs*1000 + nanos/1e6, NanoOfMilli: int32(nanos % 1e6)}
}

// floatEpochToInstant is Flink's toTimestampData(double, p): NULL when
// v / 10^p seconds is out of range (an infinity too), and NaN is the
// epoch (Java's (long) NaN is 0). Flink then counts nanoseconds in a
// long, which past 2262-04-11 (or before 1677-09-21) stops at the long's
// limit and gives that instant for every later one; ptfsh gives the
// instant itself.
func floatEpochToInstant(v float64, p int64) any {
	if math.IsNaN(v) {
		return types.Instant{}
	}
	secs := v / float64(pow10[p])
	if secs < minEpochSeconds || secs > maxEpochSeconds {
		return nil
	}
	ms := math.Floor(v * math.Pow10(3-int(p)))
	var nano int32
	if p > 3 {
		frac := v*math.Pow10(9-int(p)) - ms*1e6
		nano = int32(min(max(math.Floor(frac), 0), 999999))
	}
	return types.Instant{Millis: int64(ms), NanoOfMilli: nano}
}

func compileUnixTimestamp(c *call) (Expr, error) {
	if err := c.plainArity(0, 2); err != nil {
		return nil, err
	}
	if len(c.args) == 0 {
		now := c.sc.now()
		return &funcExpr{t: types.TypeBigInt.AsNotNull(), f: func([]any) (any, error) {
			s, _ := floorDiv(now(), 1000)
			return s, nil
		}}, nil
	}
	for i := range c.args {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	loc := c.sc.zone()
	return strict(types.TypeBigInt, false, c.args, func(v []any) (any, error) {
		pattern := "yyyy-MM-dd HH:mm:ss"
		if len(v) == 2 {
			pattern = v[1].(string)
		}
		ts, ok := parseTimestampText(v[0].(string), pattern)
		if !ok {
			return int64(math.MinInt64), nil // Flink's answer for a string that does not parse
		}
		// The text is a wall-clock time of the session time zone.
		s, _ := floorDiv(types.LocalToInstant(ts, loc).Millis, 1000)
		return s, nil
	}), nil
}
