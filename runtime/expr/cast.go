package expr

import (
	"fmt"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// CastValue converts a value to type to, as CAST does. NULL stays NULL.
// Each family of target types has a function of its own; a value none of
// them takes is a cast error.
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
		return castToString(v), nil
	case types.KindBinary, types.KindVarBinary:
		return castToBinary(v, to)
	case types.KindTimestamp, types.KindTimestampLTZ, types.KindDate, types.KindTime:
		return castToTemporal(v, to)
	case types.KindIntervalDayTime, types.KindIntervalYearMonth, types.KindDescriptor:
		return castToSame(v, to)
	case types.KindArray:
		return castToArray(v, to)
	case types.KindMap:
		return castToMap(v, to)
	case types.KindRow:
		return castToRow(v, to)
	}
	return nil, castError(v, to)
}

// castToBool takes a BOOLEAN, 'TRUE' or 'FALSE' in any case and spacing,
// and an integer (0 is FALSE).
func castToBool(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToUpper(strings.TrimSpace(x)) {
		case "TRUE":
			return true, nil
		case "FALSE":
			return false, nil
		}
	case int64:
		return x != 0, nil
	}
	return nil, castError(v, to)
}

// castToInteger converts to TINYINT, SMALLINT, INT or BIGINT and checks
// the type's range.
func castToInteger(v any, to types.Type) (any, error) {
	n, err := toInt64(v, to)
	if err != nil {
		return nil, err
	}
	lo, hi := format.IntegerRange(to.Kind)
	if n < lo || n > hi {
		if f, ok := v.(float64); ok {
			return nil, fmt.Errorf("value %s is out of range for %s", types.FormatValue(f, types.Type{Kind: types.KindDouble}), to.Nullable())
		}
		return nil, fmt.Errorf("value %d is out of range for %s", n, to.Nullable())
	}
	return n, nil
}

// toInt64 converts a number (toward zero), a string of an integer or a
// BOOLEAN to an int64, for castToInteger.
func toInt64(v any, to types.Type) (int64, error) {
	switch x := v.(type) {
	case int64:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("cannot cast %v to %s", x, to.Nullable())
		}
		// Go's conversion of a float outside int64's range is undefined
		// (it gives -9223372036854775808 on amd64): check first. Flink
		// wraps around instead, by Java's narrowing through long
		// (CastFunctionITCase: CAST(9234567891.12345 AS INT) is
		// 644633299, and FLINK-24420 "Check out of range instead of
		// overflow" is open); ptfsh reports a value out of range as an
		// error, as it does for BIGINT and DECIMAL sources.
		if x >= 1<<63 || x < -(1<<63) {
			return 0, fmt.Errorf("value %s is out of range for %s", types.FormatValue(x, types.Type{Kind: types.KindDouble}), to.Nullable())
		}
		return int64(x), nil // toward zero, as Java's (long) cast
	case types.Decimal:
		q := new(big.Int).Quo(x.Unscaled, new(big.Int).Exp(bigTen, big.NewInt(int64(x.Scale)), nil))
		if !q.IsInt64() {
			return 0, fmt.Errorf("value %s is out of range for %s", types.FormatValue(x, types.Type{Kind: types.KindDecimal}), to)
		}
		return q.Int64(), nil
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cannot cast '%s' to %s", x, to)
		}
		return i, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, castError(v, to)
}

// castToFloat converts a number or a string to FLOAT or DOUBLE.
func castToFloat(v any, to types.Type) (any, error) {
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

// castToDecimal converts a number or a string to DECIMAL(p, s), rounding
// HALF_UP to the scale.
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

// castToString prints any value as CHAR or VARCHAR.
func castToString(v any) any {
	if x, ok := v.(string); ok {
		return x
	}
	return types.FormatValue(v, types.Type{})
}

// castToBinary takes bytes, and a string as its UTF-8 bytes.
func castToBinary(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return nil, castError(v, to)
}

// castToTemporal converts to TIMESTAMP, TIMESTAMP_LTZ, DATE or TIME: a
// string parsed as the type, one timestamp kind to the other (the same
// epoch milliseconds), an integer of epoch milliseconds to TIMESTAMP_LTZ,
// and a value of the type itself.
func castToTemporal(v any, to types.Type) (any, error) {
	switch x := v.(type) {
	case string:
		return format.ParseValue(x, to, format.ParseOptions{})
	case types.Instant:
		if to.Kind == types.KindTimestamp {
			return types.LocalDateTime(x), nil
		}
		if to.Kind == types.KindTimestampLTZ {
			return x, nil
		}
	case types.LocalDateTime:
		if to.Kind == types.KindTimestampLTZ {
			return types.Instant(x), nil
		}
		if to.Kind == types.KindTimestamp {
			return x, nil
		}
	case int64:
		if to.Kind == types.KindTimestampLTZ {
			return types.Instant{Millis: x}, nil
		}
	case types.Date:
		if to.Kind == types.KindDate {
			return x, nil
		}
	case types.TimeOfDay:
		if to.Kind == types.KindTime {
			return x, nil
		}
	}
	return nil, castError(v, to)
}

// castToSame takes only a value of the type itself: an interval of its
// kind or a DESCRIPTOR.
func castToSame(v any, to types.Type) (any, error) {
	ok := false
	switch v.(type) {
	case types.Duration:
		ok = to.Kind == types.KindIntervalDayTime
	case types.Period:
		ok = to.Kind == types.KindIntervalYearMonth
	case types.Descriptor:
		ok = to.Kind == types.KindDescriptor
	}
	if !ok {
		return nil, castError(v, to)
	}
	return v, nil
}

// castToArray casts each element of an ARRAY.
func castToArray(v any, to types.Type) (any, error) {
	x, ok := v.([]any)
	if !ok {
		return nil, castError(v, to)
	}
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

// castToMap casts each key and value of a MAP.
func castToMap(v any, to types.Type) (any, error) {
	x, ok := v.(*types.Map)
	if !ok {
		return nil, castError(v, to)
	}
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

// castToRow casts each field of a ROW with as many fields, by position.
func castToRow(v any, to types.Type) (any, error) {
	x, ok := v.(types.Row)
	if !ok || len(x.Fields) != len(to.Fields) {
		return nil, castError(v, to)
	}
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

func castError(v any, to types.Type) error {
	return fmt.Errorf("cannot cast %s to %s", types.FormatValue(v, types.Type{}), to.Nullable())
}

// ratToDecimal rounds r HALF_UP to the scale of t and checks the precision.
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

// canImplicitCast reports whether a value of type from may be passed where
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

// scalar functions known to expressions.
func compileFunc(f *sqlmini.FuncCall, sc *Scope) (Expr, error) {
	name := strings.ToUpper(string(f.Name.Value))
	switch name {
	case "COUNT", "SUM", "MIN", "MAX", "AVG":
		return nil, sqlmini.Errorf(f.Pos, "aggregate function %s is only allowed in a SELECT with GROUP BY", name)
	}
	args, err := compileList(f.Args, sc)
	if err != nil {
		return nil, err
	}
	want := func(n int) error {
		if len(args) != n {
			return sqlmini.Errorf(f.Pos, "%s takes %d argument(s), got %d", name, n, len(args))
		}
		return nil
	}
	str1 := func(fn func(string) any, t types.Type) (Expr, error) {
		if err := want(1); err != nil {
			return nil, err
		}
		a := args[0]
		if !a.Type().IsString() && a.Type().Kind != types.KindNull {
			return nil, sqlmini.Errorf(f.Pos, "%s needs a string, not %s", name, a.Type())
		}
		t.NotNull = a.Type().NotNull
		return &funcExpr{t: t, konst: a.IsConstant(), f: func(row []any) (any, error) {
			v, err := a.Eval(row)
			if v == nil || err != nil {
				return nil, err
			}
			return fn(v.(string)), nil
		}}, nil
	}
	switch name {
	case "UPPER":
		return str1(func(s string) any { return strings.ToUpper(s) }, types.TypeString)
	case "LOWER":
		return str1(func(s string) any { return strings.ToLower(s) }, types.TypeString)
	case "TRIM":
		return str1(func(s string) any { return strings.TrimSpace(s) }, types.TypeString)
	case "CHAR_LENGTH", "CHARACTER_LENGTH":
		return str1(func(s string) any { return int64(len([]rune(s))) }, types.TypeInt)
	case "COALESCE":
		if len(args) == 0 {
			return nil, sqlmini.Errorf(f.Pos, "COALESCE needs at least one argument")
		}
		t := commonType(args)
		return &funcExpr{t: t, konst: allConstant(args...), f: func(row []any) (any, error) {
			for _, a := range args {
				v, err := a.Eval(row)
				if err != nil {
					return nil, err
				}
				if v != nil {
					return CastValue(v, t)
				}
			}
			return nil, nil
		}}, nil
	case "ABS":
		if err := want(1); err != nil {
			return nil, err
		}
		a := args[0]
		return &funcExpr{t: a.Type(), konst: a.IsConstant(), f: func(row []any) (any, error) {
			v, err := a.Eval(row)
			switch x := v.(type) {
			case int64:
				if x < 0 {
					return -x, err
				}
			case float64:
				return math.Abs(x), err
			case types.Decimal:
				return types.Decimal{Unscaled: new(big.Int).Abs(x.Unscaled), Scale: x.Scale}, err
			}
			return v, err
		}}, nil
	case "TO_TIMESTAMP_LTZ":
		if len(args) < 1 || len(args) > 2 {
			return nil, sqlmini.Errorf(f.Pos, "TO_TIMESTAMP_LTZ takes (epoch, precision)")
		}
		a := args[0]
		p := 3
		if len(args) == 2 {
			pv, err := args[1].Eval(nil)
			if err != nil || !args[1].IsConstant() {
				return nil, sqlmini.Errorf(f.Pos, "TO_TIMESTAMP_LTZ precision must be a constant 0 or 3")
			}
			p = int(pv.(int64))
		}
		t := types.Type{Kind: types.KindTimestampLTZ, Length: 3, NotNull: a.Type().NotNull}
		return &funcExpr{t: t, konst: a.IsConstant(), f: func(row []any) (any, error) {
			v, err := a.Eval(row)
			if v == nil || err != nil {
				return nil, err
			}
			n, ok := v.(int64)
			if !ok {
				return nil, fmt.Errorf("TO_TIMESTAMP_LTZ needs a number")
			}
			if p == 0 {
				n *= 1000
			}
			return types.Instant{Millis: n}, nil
		}}, nil
	}
	return nil, sqlmini.Errorf(f.Pos, "unknown function %s", f.Name.Value)
}

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
