package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// CastValue converts a value to type to, as CAST does (one function per
// family of target types below). NULL stays NULL.
func CastValue(v any, to types.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch to.Kind {
	case types.KindNull:
		return nil, nil
	case types.KindBoolean:
		return castToBool(v, to)
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return castToInteger(v, to)
	case types.KindFloat, types.KindDouble:
		return castToFloat(v, to)
	case types.KindDecimal:
		return castToDecimal(v, to)
	case types.KindChar, types.KindVarChar:
		return castToString(v, to)
	case types.KindBinary, types.KindVarBinary:
		return castToBinary(v, to)
	case types.KindTimestamp, types.KindTimestampLTZ, types.KindDate, types.KindTime:
		return castToTemporal(v, to)
	case types.KindIntervalDayTime:
		return castToDayTimeInterval(v, to)
	case types.KindIntervalYearMonth:
		return castToYearMonthInterval(v, to)
	case types.KindArray:
		return castToArray(v, to)
	case types.KindMap:
		return castToMap(v, to)
	case types.KindRow:
		return castToRow(v, to)
	case types.KindDescriptor:
		return castToDescriptor(v, to)
	}
	return nil, castError(v, to)
}

func castToBool(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		// Flink's BinaryStringDataUtil.toBoolean.
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "t", "yes", "y", "1":
			return true, nil
		case "false", "f", "no", "n", "0":
			return false, nil
		}
	case int64:
		return x != 0, nil
	}
	return nil, castError(v, to)
}

func castToInteger(v any, to types.Type) (any, error) {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("cannot cast %v to %s", x, to.Nullable())
		}
		// Go's conversion of a float outside int64's range is undefined
		// (it gives -9223372036854775808 on amd64): check first. Flink
		// wraps around instead, by Java's narrowing through long
		// (CastFunctionITCase: CAST(9234567891.12345 AS INT) is
		// 644633299, and FLINK-24420 "Check out of range instead of
		// overflow" is open); ptfsh reports a value out of range as an
		// error, as it does for BIGINT and DECIMAL sources.
		if x >= 1<<63 || x < -(1<<63) {
			return nil, fmt.Errorf("value %s is out of range for %s", types.FormatValue(x, types.Type{Kind: types.KindDouble}), to.Nullable())
		}
		n = int64(x) // toward zero, as Java's (long) cast
	case types.Decimal:
		q := new(big.Int).Quo(x.Unscaled, new(big.Int).Exp(bigTen, big.NewInt(int64(x.Scale)), nil))
		if !q.IsInt64() {
			return nil, fmt.Errorf("value %s is out of range for %s", types.FormatValue(x, types.Type{Kind: types.KindDecimal}), to)
		}
		n = q.Int64()
	case string:
		i, err := parseJavaIntegral(strings.TrimSpace(x))
		if err != nil {
			return nil, fmt.Errorf("cannot cast '%s' to %s", x, to)
		}
		n = i
	case bool:
		if x {
			n = 1
		}
	default:
		return nil, castError(v, to)
	}
	lo, hi := to.Kind.IntegerRange()
	if n < lo || n > hi {
		if f, ok := v.(float64); ok {
			return nil, fmt.Errorf("value %s is out of range for %s", types.FormatValue(f, types.Type{Kind: types.KindDouble}), to.Nullable())
		}
		return nil, fmt.Errorf("value %d is out of range for %s", n, to.Nullable())
	}
	if _, ok := v.(int64); ok {
		return v, nil // the same number: no new box for it
	}
	return n, nil
}

// parseJavaIntegral reads a string cast to an integer type as Flink's
// BinaryStringDataUtil.toLong does: an optional sign, digits, and an
// optional fraction of digits, which is cut off (CAST('12.5' AS INT) is
// 12, CAST('.5' AS INT) is 0); anything else, or a number beyond BIGINT,
// is an error.
func parseJavaIntegral(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("the text is empty")
	}
	i, neg := 0, s[0] == '-'
	if neg || s[0] == '+' {
		i++
		if len(s) == 1 {
			return 0, fmt.Errorf("a sign without digits")
		}
	}
	var n uint64
	for ; i < len(s) && s[i] != '.'; i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a digit", c)
		}
		n = n*10 + uint64(c-'0')
		if n > 1<<63 {
			return 0, fmt.Errorf("the number is out of BIGINT's range")
		}
	}
	for i++; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a digit", c)
		}
	}
	if neg {
		return -int64(n), nil // n = 1<<63 gives math.MinInt64
	}
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("the number is out of BIGINT's range")
	}
	return int64(n), nil
}

func castToFloat(v any, to types.Type) (any, error) {
	f, err := castToFloat64(v, to)
	if err == nil && to.Kind == types.KindFloat {
		// A FLOAT holds a float32, as Java's float: CAST(0.1 AS FLOAT) read
		// as a DOUBLE (or by a function) is 0.10000000149011612 in Flink.
		if x, ok := f.(float64); ok {
			f = float64(float32(x))
		}
	}
	return f, err
}

func castToFloat64(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case types.Decimal:
		return toFloat(x), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return nil, fmt.Errorf("cannot cast '%s' to %s", x, to)
		}
		return f, nil
	}
	return nil, castError(v, to)
}

func castToDecimal(v any, to types.Type) (any, error) {
	var r *big.Rat
	switch x := v.(type) {
	case int64:
		r = new(big.Rat).SetInt64(x)
	case float64:
		r = new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil, fmt.Errorf("cannot cast %v to %s", x, to)
		}
	case types.Decimal:
		r = x.Rat()
	case string:
		var ok bool
		if r, ok = new(big.Rat).SetString(strings.TrimSpace(x)); !ok {
			return nil, fmt.Errorf("cannot cast '%s' to %s", x, to)
		}
	default:
		return nil, castError(v, to)
	}
	return RatToDecimal(r, to)
}

func castToString(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	default:
		return types.FormatValue(v, types.Type{}), nil
	}
}

func castToBinary(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return nil, castError(v, to)
}

func castToTemporal(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case string:
		return textparse.Value(x, to, textparse.Options{})
	case types.Instant, types.LocalDateTime:
		// The session time zone is UTC: both read the same fields.
		days, nano, _ := civil(x)
		switch to.Kind {
		case types.KindTimestamp, types.KindTimestampLTZ:
			return castCivil(v, to, days, truncNanos(nano, to.Length))
		case types.KindDate:
			return castCivil(v, to, days, 0)
		case types.KindTime:
			return types.TimeOfDay(truncNanos(nano, to.Length)), nil
		}
	case int64:
		if to.Kind == types.KindTimestampLTZ {
			// Epoch milliseconds (Flink refuses the cast and has
			// TO_TIMESTAMP_LTZ(n, 3)): NULL-free, so out of Flink's range
			// of timestamps is an error rather than a time far off.
			if x < minEpochMillis || x > maxEpochMillis {
				return nil, fmt.Errorf("cannot cast %d to %s: epoch milliseconds out of the range of a timestamp (years 0000 to 9999)", x, to.Nullable())
			}
			return types.Instant{Millis: x}, nil
		}
	case types.Date:
		if to.Kind == types.KindDate {
			return x, nil
		}
		if to.Kind != types.KindTime {
			return castCivil(v, to, int64(x), 0)
		}
	case types.TimeOfDay:
		if to.Kind == types.KindTime {
			return x, nil
		}
	}
	return nil, castError(v, to)
}

// castCivil is fromCivil for a CAST of v.
func castCivil(v any, to types.Type, days, nanoOfDay int64) (any, error) {
	r, err := fromCivil(to.Kind, days, nanoOfDay)
	if err != nil {
		return nil, fmt.Errorf("cannot cast %s to %s: %w", types.FormatValue(v, timeType(v)), to.Nullable(), err)
	}
	return r, nil
}

func castToDayTimeInterval(v any, to types.Type) (any, error) {
	if x, ok := v.(types.Duration); ok {
		return x, nil
	}
	return nil, castError(v, to)
}

func castToYearMonthInterval(v any, to types.Type) (any, error) {
	if x, ok := v.(types.Period); ok {
		return x, nil
	}
	return nil, castError(v, to)
}

func castToArray(v any, to types.Type) (any, error) {
	if x, ok := v.([]any); ok {
		out := make([]any, len(x))
		for i, e := range x {
			c, err := CastValue(e, *to.Elem)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return nil, castError(v, to)
}

func castToMap(v any, to types.Type) (any, error) {
	if x, ok := v.(*types.Map); ok {
		out := &types.Map{Keys: make([]any, len(x.Keys)), Values: make([]any, len(x.Values))}
		for i := range x.Keys {
			var err error
			if out.Keys[i], err = CastValue(x.Keys[i], *to.Key); err != nil {
				return nil, err
			}
			if out.Values[i], err = CastValue(x.Values[i], *to.Elem); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, castError(v, to)
}

func castToRow(v any, to types.Type) (any, error) {
	if x, ok := v.(types.Row); ok && len(x.Fields) == len(to.Fields) {
		out := types.Row{Kind: x.Kind, Fields: make([]any, len(x.Fields))}
		for i, f := range x.Fields {
			c, err := CastValue(f, to.Fields[i].Type)
			if err != nil {
				return nil, err
			}
			out.Fields[i] = c
		}
		return out, nil
	}
	return nil, castError(v, to)
}

func castToDescriptor(v any, to types.Type) (any, error) {
	if x, ok := v.(types.Descriptor); ok {
		return x, nil
	}
	return nil, castError(v, to)
}

// truncNanos cuts a nanosecond count to precision p (digits of a second).
func truncNanos(nano int64, p int) int64 {
	if p < 0 || p >= 9 {
		return nano
	}
	m := int64(1)
	for i := p; i < 9; i++ {
		m *= 10
	}
	return nano - (nano%m+m)%m
}

// compileCast is CAST(x AS type) and TRY_CAST. A string target takes the
// text Flink's CAST gives (TRUE, 2025-03-27 12:00:00.123), by the
// source's type; TRY_CAST is NULL where CAST is an error.
func compileCast(c *sqlmini.Cast, sc *Scope) (Expr, error) {
	x, err := Compile(c.Expr, sc)
	if err != nil {
		return nil, err
	}
	to, err := ptf.TypeFromAST(c.Type)
	if err != nil {
		return nil, err
	}
	from := x.Type()
	if (from.IsTime() || from.Kind == types.KindDate || from.Kind == types.KindTime) && to.IsNumeric() {
		return nil, sqlmini.Errorf(c.Pos, "The cast from %s type to NUMERIC type is not allowed. It's recommended to use UNIX_TIMESTAMP(CAST(timestamp_col AS STRING)) instead.", strings.Fields(from.Nullable().String())[0])
	}
	if !to.NotNull && from.NotNull {
		to.NotNull = from.Kind != types.KindNull
	}
	if c.Try {
		to.NotNull = false
	}
	pos, try := c.Pos, c.Try
	text := to.IsString() && from.Kind != types.KindNull
	konstFloat := x.IsConstant() && to.Kind == types.KindFloat
	// In a session time zone other than UTC a TIMESTAMP_LTZ casts by its
	// wall-clock time there, and a value cast to one is read there.
	loc := sc.zone()
	fromLTZ := from.Kind == types.KindTimestampLTZ && to.Kind != types.KindTimestampLTZ && !types.IsUTC(loc)
	toLTZ := to.Kind == types.KindTimestampLTZ && (from.Kind == types.KindTimestamp || from.Kind == types.KindDate || from.IsString()) && !types.IsUTC(loc)
	if fromLTZ {
		from = types.Type{Kind: types.KindTimestamp, Length: from.Length, NotNull: from.NotNull}
	}
	// An integer cast to BIGINT is the same number (castToInteger), as
	// SUM(CAST(delay AS BIGINT)) casts one per row.
	toLong := to.Kind == types.KindBigInt
	var same Expr
	if toLong && from.IsInteger() {
		same = x
	}
	return &funcExpr{t: to, konst: x.IsConstant(), same: same, f: func(row []any) (any, error) {
		v, err := x.Eval(row)
		if err != nil || v == nil {
			return nil, err
		}
		if _, isInt := v.(int64); isInt && toLong {
			return v, nil
		}
		if in, ok := v.(types.Instant); ok && fromLTZ {
			v = types.InstantToLocal(in, loc)
		}
		var out any
		switch _, isString := v.(string); {
		case text && !isString:
			return fitLength(string(types.AppendTableValue(nil, v, from)), to), nil
		case konstFloat:
			// Flink's planner folds a constant CAST to FLOAT exactly (its
			// literal keeps 0.1, not the float 0.10000000149011612).
			out, err = castToFloat64(v, to)
		default:
			out, err = CastValue(v, to)
		}
		if err != nil {
			if try {
				return nil, nil
			}
			return nil, sqlmini.Errorf(pos, "%w", err)
		}
		if s, ok := out.(string); ok && text {
			return fitLength(s, to), nil
		}
		if in, ok := out.(types.Instant); ok && toLTZ {
			return types.LocalToInstant(types.LocalDateTime(in), loc), nil
		}
		return out, nil
	}}, nil
}

// fitLength makes a string that an explicit CAST gives fit its type, as
// Flink's CAST does (CharVarCharTrimPadCastRule): CHAR(n) cuts it to n
// characters or pads it with spaces to n, VARCHAR(n) cuts it to n. Only
// an explicit CAST does this; Flink pads or cuts no implicit cast.
func fitLength(s string, to types.Type) string {
	if to.Length <= 0 || to.Length >= types.MaxLength || len(s) < to.Length && to.Kind != types.KindChar {
		return s
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n > to.Length:
		i := 0
		for k := 0; k < to.Length; k++ {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
		}
		return s[:i]
	case n < to.Length && to.Kind == types.KindChar:
		return s + strings.Repeat(" ", to.Length-n)
	}
	return s
}

func castError(v any, to types.Type) error {
	return fmt.Errorf("cannot cast %s to %s", types.EscapeControls(types.FormatValue(v, types.Type{})), to.Nullable())
}

// RatToDecimal rounds r HALF_UP to the scale of t and checks the precision.
func RatToDecimal(r *big.Rat, t types.Type) (any, error) {
	scale := new(big.Int).Exp(bigTen, big.NewInt(int64(t.Scale)), nil)
	num := new(big.Int).Mul(r.Num(), scale)
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	// HALF_UP: away from zero when the remainder is at least half.
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(r.Denom()) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if len(new(big.Int).Abs(q).String()) > t.Length && q.Sign() != 0 {
		return nil, fmt.Errorf("value %s does not fit %s", r.FloatString(t.Scale), t.Nullable())
	}
	return types.Decimal{Unscaled: q, Scale: t.Scale}, nil
}

// CanImplicitCast reports whether a value of type from may be passed where
// to is declared without a CAST: the same root, a widening number, CHAR to
// VARCHAR, NULL to anything nullable.
func CanImplicitCast(from, to types.Type) bool {
	if from.Kind == types.KindNull {
		return !to.NotNull
	}
	if to.NotNull && !from.NotNull {
		return false
	}
	switch {
	case from.IsString() && to.IsString():
		return true
	case isBinary(from) && isBinary(to): // Flink's binary string family
		return true
	case from.IsInteger() && to.IsInteger():
		return from.Kind <= to.Kind
	case from.IsInteger() && (to.Kind == types.KindFloat || to.Kind == types.KindDouble || to.Kind == types.KindDecimal):
		return true
	case from.Kind == types.KindFloat && to.Kind == types.KindDouble:
		return true
	case from.Kind == types.KindDecimal && (to.Kind == types.KindDecimal || to.Kind == types.KindDouble):
		return true
	case from.IsTime() && to.Kind == from.Kind:
		return from.Length <= to.Length
	case from.Kind == types.KindArray && to.Kind == types.KindArray:
		return CanImplicitCast(*from.Elem, to.Elem.Nullable())
	case from.Kind == types.KindMap && to.Kind == types.KindMap:
		return CanImplicitCast(*from.Key, to.Key.Nullable()) && CanImplicitCast(*from.Elem, to.Elem.Nullable())
	case from.Kind == types.KindRow && to.Kind == types.KindRow:
		if len(from.Fields) != len(to.Fields) {
			return false
		}
		for i := range from.Fields {
			if !CanImplicitCast(from.Fields[i].Type, to.Fields[i].Type.Nullable()) {
				return false
			}
		}
		return true
	}
	return from.Kind == to.Kind
}

func isBinary(t types.Type) bool { return t.Kind == types.KindBinary || t.Kind == types.KindVarBinary }

func CastTo(x Expr, t types.Type) Expr {
	if x.Type().Equal(t) {
		return x
	}
	return &funcExpr{t: t, f: func(row []any) (any, error) {
		v, err := x.Eval(row)
		if err != nil {
			return nil, err
		}
		return CastValue(v, t)
	}}
}
