package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Expr is a compiled scalar expression over the fields of one row.
type Expr interface {
	Eval(row []any) (any, error)
	Type() types.Type
	// IsConstant reports whether the expression reads no column.
	IsConstant() bool
}

type Constant struct {
	v any
	t types.Type
}

func (c *Constant) Eval([]any) (any, error) { return c.v, nil }
func (c *Constant) Type() types.Type        { return c.t }
func (c *Constant) IsConstant() bool        { return true }

type Column struct {
	Index int
	T     types.Type
}

func (c *Column) Eval(row []any) (any, error) { return row[c.Index], nil }
func (c *Column) Type() types.Type            { return c.T }
func (c *Column) IsConstant() bool            { return false }

// funcExpr is any other expression: a Go closure over its operands.
type funcExpr struct {
	f     func(row []any) (any, error)
	t     types.Type
	konst bool
	// same, when set, is an operand whose value f returns as it is
	// (IntegerCastOperand).
	same Expr
}

// IntegerCastOperand returns x when e is CAST(x AS BIGINT) (or TRY_CAST)
// of an integer x, whose value is x's as it is: an operator may read x
// instead, as SUM(CAST(delay AS BIGINT)) reads the column delay.
func IntegerCastOperand(e Expr) (Expr, bool) {
	if f, ok := e.(*funcExpr); ok && f.same != nil {
		return f.same, true
	}
	return nil, false
}

func (f *funcExpr) Eval(row []any) (any, error) { return f.f(row) }
func (f *funcExpr) Type() types.Type            { return f.t }
func (f *funcExpr) IsConstant() bool            { return f.konst }

func allConstant(es ...Expr) bool {
	for _, e := range es {
		if !e.IsConstant() {
			return false
		}
	}
	return true
}

// Compile compiles e against sc (sc may be nil for constant expressions).
func Compile(e *sqlmini.Expr, sc *Scope) (Expr, error) {
	return compileLogical(e.Pos, "OR", e.Left, e.Right, sc, compileAnd)
}

// compileLogical compiles left op right[0] op right[1] ..., each operand
// by operand; a single operand is itself.
func compileLogical[T any](pos sqlmini.Pos, op string, left T, right []T, sc *Scope, operand func(T, *Scope) (Expr, error)) (Expr, error) {
	first, err := operand(left, sc)
	if err != nil || len(right) == 0 {
		return first, err
	}
	ops := []Expr{first}
	for _, r := range right {
		x, err := operand(r, sc)
		if err != nil {
			return nil, err
		}
		ops = append(ops, x)
	}
	return logical(pos, op, ops)
}

// logical compiles OR (the first TRUE wins) or AND (the first FALSE wins)
// with SQL's three-valued logic: NULL when no operand decides and one is NULL.
func logical(pos sqlmini.Pos, op string, ops []Expr) (Expr, error) {
	if err := requireBoolean(pos, op, ops); err != nil {
		return nil, err
	}
	decides := op == "OR" // the value that settles the result
	t := types.TypeBoolean
	t.NotNull = true
	for _, o := range ops {
		t.NotNull = t.NotNull && o.Type().NotNull
	}
	return &funcExpr{t: t, konst: allConstant(ops...), f: func(row []any) (any, error) {
		sawNull := false
		for _, o := range ops {
			v, err := o.Eval(row)
			if err != nil {
				return nil, err
			}
			if v == nil {
				sawNull = true
			} else if v.(bool) == decides {
				return decides, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return !decides, nil
	}}, nil
}

func compileAnd(e *sqlmini.AndExpr, sc *Scope) (Expr, error) {
	return compileLogical(e.Pos, "AND", e.Left, e.Right, sc, compileNot)
}

func requireBoolean(pos sqlmini.Pos, op string, ops []Expr) error {
	for _, o := range ops {
		if k := o.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return sqlmini.Errorf(pos, "%s needs BOOLEAN operands, not %s", op, o.Type())
		}
	}
	return nil
}

func compileNot(e *sqlmini.NotExpr, sc *Scope) (Expr, error) {
	if e.Not == nil {
		return compilePredicate(e.Pred, sc)
	}
	x, err := compileNot(e.Not, sc)
	if err != nil {
		return nil, err
	}
	if err := requireBoolean(e.Pos, "NOT", []Expr{x}); err != nil {
		return nil, err
	}
	return &funcExpr{t: types.Type{Kind: types.KindBoolean, NotNull: x.Type().NotNull}, konst: x.IsConstant(), f: func(row []any) (any, error) {
		v, err := x.Eval(row)
		if v == nil || err != nil {
			return nil, err
		}
		return !v.(bool), nil
	}}, nil
}

func compilePredicate(p *sqlmini.Predicate, sc *Scope) (Expr, error) {
	left, err := compileAdditive(p.Left, sc)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Op != "":
		right, err := compileAdditive(p.Right, sc)
		if err != nil {
			return nil, err
		}
		return compileCompare(p.Pos, p.Op, left, right)
	case p.Between != nil:
		return compileBetween(p, left, sc)
	case p.Like != nil:
		return compileLike(p, left, sc)
	case strings.EqualFold(p.Truth, "JSON"):
		return compileIsJSON(p, left) // functions_json.go
	case p.Truth != "":
		return compileTruth(p, left)
	case p.In != nil:
		var list []Expr
		for _, a := range p.In {
			x, err := compileAdditive(a, sc)
			if err != nil {
				return nil, err
			}
			if !Comparable(left.Type(), x.Type()) {
				return nil, sqlmini.Errorf(a.Pos, "cannot compare %s with %s in IN list", left.Type(), x.Type())
			}
			list = append(list, x)
		}
		notIn := p.Negated
		t := types.TypeBoolean
		t.NotNull = left.Type().NotNull
		for _, x := range list {
			t.NotNull = t.NotNull && x.Type().NotNull
		}
		return &funcExpr{t: t, konst: left.IsConstant() && allConstant(list...), f: func(row []any) (any, error) {
			v, err := left.Eval(row)
			if v == nil || err != nil {
				return nil, err
			}
			sawNull := false
			for _, x := range list {
				w, err := x.Eval(row)
				if err != nil {
					return nil, err
				}
				if w == nil {
					sawNull = true
					continue
				}
				if CompareValues(v, w) == 0 {
					return !notIn, nil
				}
			}
			if sawNull {
				return nil, nil
			}
			return notIn, nil
		}}, nil
	case p.DistinctFrom != nil:
		right, err := compileAdditive(p.DistinctFrom, sc)
		if err != nil {
			return nil, err
		}
		return distinctFrom(p.Pos, left, right, p.NotDistinct)
	case p.InQuery != nil:
		return nil, sqlmini.Errorf(p.Pos, "IN (SELECT ...) is only supported as a condition of WHERE, alone or joined to the others by AND")
	case p.IsNull || p.NotNull:
		want := p.IsNull
		return &funcExpr{t: types.TypeBoolean.AsNotNull(), konst: left.IsConstant(), f: func(row []any) (any, error) {
			v, err := left.Eval(row)
			if err != nil {
				return nil, err
			}
			return (v == nil) == want, nil
		}}, nil
	}
	return left, nil
}

func decimalOf(i int64) *big.Rat { return new(big.Rat).SetInt64(i) }

func compileAdditive(a *sqlmini.Additive, sc *Scope) (Expr, error) {
	left, err := CompileMultiplicative(a.Left, sc)
	if err != nil {
		return nil, err
	}
	for _, op := range a.Right {
		right, err := CompileMultiplicative(op.Right, sc)
		if err != nil {
			return nil, err
		}
		if op.Op == "||" {
			left, err = concatExpr(op.Pos, left, right)
		} else {
			left, err = arithExpr(op.Pos, op.Op, left, right)
		}
		if err != nil {
			return nil, err
		}
	}
	return left, nil
}

func CompileMultiplicative(m *sqlmini.Multiplicative, sc *Scope) (Expr, error) {
	left, err := compileUnary(m.Left, sc)
	if err != nil {
		return nil, err
	}
	for _, op := range m.Right {
		right, err := compileUnary(op.Right, sc)
		if err != nil {
			return nil, err
		}
		if left, err = arithExpr(op.Pos, op.Op, left, right); err != nil {
			return nil, err
		}
	}
	return left, nil
}

func compileUnary(u *sqlmini.Unary, sc *Scope) (Expr, error) {
	x, err := compilePrimary(u.Primary, sc)
	if err != nil {
		return nil, err
	}
	for _, s := range u.Subscripts {
		i, err := Compile(s, sc)
		if err != nil {
			return nil, err
		}
		if x, err = subscript(x, i, s.Pos); err != nil {
			return nil, err
		}
	}
	if u.Plus {
		// +x is x, for the types -x takes.
		if t := x.Type(); !t.IsNumeric() && t.Kind != types.KindNull && t.Kind != types.KindIntervalDayTime && t.Kind != types.KindIntervalYearMonth {
			return nil, sqlmini.Errorf(u.Pos, "Cannot apply '+' to arguments of type '+<%s>'. Supported form(s): '+<NUMERIC>' '+<DATETIME_INTERVAL>'", t.Nullable())
		}
		return x, nil
	}
	if !u.Minus {
		return x, nil
	}
	if c, ok := x.(*Constant); ok {
		switch v := c.v.(type) {
		case int64:
			return &Constant{v: -v, t: c.t}, nil
		case float64:
			return &Constant{v: -v, t: c.t}, nil
		case types.Decimal:
			return &Constant{v: types.Decimal{Unscaled: new(big.Int).Neg(v.Unscaled), Scale: v.Scale}, t: c.t}, nil
		case types.Duration:
			return &Constant{v: -v, t: c.t}, nil
		case types.Period:
			return &Constant{v: -v, t: c.t}, nil
		}
	}
	if t := x.Type(); !t.IsNumeric() && t.Kind != types.KindNull {
		return nil, sqlmini.Errorf(u.Pos, "cannot negate %s", t)
	}
	t := x.Type()
	if t.Kind == types.KindNull {
		t = types.TypeInt
	}
	pos := u.Pos
	return &funcExpr{t: t, konst: x.IsConstant(), f: func(row []any) (any, error) {
		v, err := x.Eval(row)
		if v == nil || err != nil {
			return nil, err
		}
		switch n := v.(type) {
		case int64:
			return wrapInteger(-n, t.Kind), nil
		case float64:
			return -n, nil
		case types.Decimal:
			return types.Decimal{Unscaled: new(big.Int).Neg(n.Unscaled), Scale: n.Scale}, nil
		}
		return nil, sqlmini.Errorf(pos, "cannot negate %v", v)
	}}, nil
}

// arithExpr compiles + - * / % over numbers, and time ± interval.
func arithExpr(pos sqlmini.Pos, op string, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	if lt.IsTime() && rt.Kind == types.KindIntervalDayTime && (op == "+" || op == "-") {
		sign := int64(1)
		if op == "-" {
			sign = -1
		}
		return &funcExpr{t: lt, konst: allConstant(l, r), f: func(row []any) (any, error) {
			a, err := l.Eval(row)
			if a == nil || err != nil {
				return nil, err
			}
			b, err := r.Eval(row)
			if b == nil || err != nil {
				return nil, err
			}
			d := sign * int64(b.(types.Duration))
			var ms int64
			switch t := a.(type) {
			case types.Instant:
				ms = t.Millis
			case types.LocalDateTime:
				ms = t.Millis
			default:
				return nil, fmt.Errorf("%s: not a time value", pos)
			}
			if sum := ms + d; (d > 0 && sum < ms) || (d < 0 && sum > ms) {
				return nil, sqlmini.Errorf(pos, "%s %s %s: %v", types.FormatValue(a, lt), op, types.FormatValue(b, rt), timeRangeError{lt.Kind})
			}
			switch t := a.(type) {
			case types.Instant:
				t.Millis += d
				return t, nil
			case types.LocalDateTime:
				t.Millis += d
				return t, nil
			}
			return nil, fmt.Errorf("%s: not a time value", pos)
		}}, nil
	}
	if (lt.Kind == types.KindDate || lt.IsTime()) && (rt.Kind == types.KindIntervalDayTime || rt.Kind == types.KindIntervalYearMonth) && (op == "+" || op == "-") {
		return dateIntervalExpr(pos, op, l, r)
	}
	if (rt.Kind == types.KindDate || rt.IsTime()) && (lt.Kind == types.KindIntervalDayTime || lt.Kind == types.KindIntervalYearMonth) && op == "+" {
		return dateIntervalExpr(pos, op, r, l)
	}
	if !lt.IsNumeric() && lt.Kind != types.KindNull || !rt.IsNumeric() && rt.Kind != types.KindNull {
		return nil, sqlmini.Errorf(pos, "cannot apply %s to %s and %s", op, lt, rt)
	}
	t := ArithType(op, lt, rt)
	return &funcExpr{t: t, konst: allConstant(l, r), f: func(row []any) (any, error) {
		a, err := l.Eval(row)
		if a == nil || err != nil {
			return nil, err
		}
		b, err := r.Eval(row)
		if b == nil || err != nil {
			return nil, err
		}
		return arith(pos, op, a, b, t)
	}}, nil
}

// dateIntervalExpr is a DATE, TIMESTAMP or TIMESTAMP_LTZ plus or minus an
// interval: months are added as TIMESTAMPADD adds them (the day clamped
// to the month's last); a DATE plus a day-time interval is the DATE of
// the result.
func dateIntervalExpr(pos sqlmini.Pos, op string, d, iv Expr) (Expr, error) {
	t := d.Type()
	t.NotNull = t.NotNull && iv.Type().NotNull
	sign := int64(1)
	if op == "-" {
		sign = -1
	}
	k := t.Kind
	return &funcExpr{t: t, konst: allConstant(d, iv), f: func(row []any) (any, error) {
		a, err := d.Eval(row)
		if a == nil || err != nil {
			return nil, err
		}
		b, err := iv.Eval(row)
		if b == nil || err != nil {
			return nil, err
		}
		days, nano, _ := civil(a)
		switch x := b.(type) {
		case types.Period:
			days = addMonths(days, sign*int64(x))
		case types.Duration:
			if x == math.MinInt64 {
				return nil, sqlmini.Errorf(pos, "%s %s %s: %v", types.FormatValue(a, t), op, types.FormatValue(b, iv.Type()), timeRangeError{k})
			}
			days, nano = addDuration(days, nano, sign*int64(x))
		default:
			return nil, sqlmini.Errorf(pos, "not an interval: %v", b)
		}
		if k == types.KindDate {
			// The DATE of the result.
			q, _ := floorDiv(nano, nanosPerDay)
			days, nano = days+q, 0
		}
		r, err := fromCivil(k, days, nano)
		if err != nil {
			return nil, sqlmini.Errorf(pos, "%s %s %s: %v", types.FormatValue(a, t), op, types.FormatValue(b, iv.Type()), err)
		}
		return r, nil
	}}, nil
}

// decimalOfType is the DECIMAL an exact numeric type converts to without
// loss: TINYINT is DECIMAL(3, 0), SMALLINT (5, 0), INT (10, 0), BIGINT
// (19, 0).
func decimalOfType(t types.Type) types.Type {
	switch t.Kind {
	case types.KindTinyInt:
		return types.Type{Kind: types.KindDecimal, Length: 3}
	case types.KindSmallInt:
		return types.Type{Kind: types.KindDecimal, Length: 5}
	case types.KindInt:
		return types.Type{Kind: types.KindDecimal, Length: 10}
	case types.KindBigInt:
		return types.Type{Kind: types.KindDecimal, Length: 19}
	}
	return t
}

// adjustDecimal keeps a derived DECIMAL within precision 38 as Flink's
// LogicalTypeMerging.adjustPrecisionScale does: integer digits first,
// at least min(scale, 6) fraction digits.
func adjustDecimal(p, s int) types.Type {
	if p > 38 {
		intDigits := p - s
		s = max(38-intDigits, min(s, 6))
		p = 38
	}
	return types.Type{Kind: types.KindDecimal, Length: p, Scale: s}
}

// ArithType is the type of a op b, Flink's: integers give the wider
// integer type (and wrap around on overflow, as Java's do); a FLOAT or
// DOUBLE gives DOUBLE (FLOAT with FLOAT stays FLOAT); with a DECIMAL the
// precision and scale follow LogicalTypeMerging (+ -: max scale and one
// more integer digit; *: the sums plus one; /: scale max(6, s1 + p2 + 1);
// %: max scale, fewer integer digits). The result is NOT NULL when both
// operands are.
func ArithType(op string, a, b types.Type) types.Type {
	notNull := a.NotNull && b.NotNull
	var t types.Type
	switch {
	case a.Kind == types.KindNull && b.Kind == types.KindNull:
		t = types.TypeInt
	case a.Kind == types.KindNull:
		t = b
	case b.Kind == types.KindNull:
		t = a
	case a.Kind == types.KindFloat && (b.Kind == types.KindFloat || b.IsInteger()),
		b.Kind == types.KindFloat && a.IsInteger():
		t = types.Type{Kind: types.KindFloat} // FLOAT + INT is a FLOAT in Flink
	case a.Kind == types.KindFloat || a.Kind == types.KindDouble || b.Kind == types.KindFloat || b.Kind == types.KindDouble:
		t = types.TypeDouble
	case a.IsInteger() && b.IsInteger():
		t = types.Type{Kind: max(a.Kind, b.Kind)}
	default:
		x, y := decimalOfType(a), decimalOfType(b)
		p1, s1, p2, s2 := x.Length, x.Scale, y.Length, y.Scale
		switch op {
		case "+", "-":
			s := max(s1, s2)
			t = adjustDecimal(max(p1-s1, p2-s2)+s+1, s)
		case "*":
			t = adjustDecimal(p1+p2+1, s1+s2)
		case "/":
			intDigits := p1 - s1 + s2
			s := max(6, s1+p2+1)
			t = adjustDecimal(intDigits+s, s)
		default: // %
			s := max(s1, s2)
			t = adjustDecimal(min(p1-s1, p2-s2)+s, s)
		}
	}
	t = types.Type{Kind: t.Kind, Length: t.Length, Scale: t.Scale}
	t.NotNull = notNull
	return t
}

// wrapInteger narrows n to the width of an integer kind, as Java's
// arithmetic on int, short and byte does.
func wrapInteger(n int64, k types.Kind) int64 {
	switch k {
	case types.KindTinyInt:
		return int64(int8(n))
	case types.KindSmallInt:
		return int64(int16(n))
	case types.KindInt:
		return int64(int32(n))
	}
	return n
}

// widerNumeric is the type values of a and b meet in (VALUES columns,
// CASE results): the wider integer, DECIMAL wide enough for both, or DOUBLE.
func widerNumeric(a, b types.Type) types.Type {
	switch {
	case a.IsInteger() && b.IsInteger():
		return types.Type{Kind: max(a.Kind, b.Kind)}
	case a.Kind == types.KindFloat && b.Kind == types.KindFloat:
		return types.Type{Kind: types.KindFloat}
	case a.Kind == types.KindFloat || a.Kind == types.KindDouble || b.Kind == types.KindFloat || b.Kind == types.KindDouble:
		return types.TypeDouble
	}
	x, y := decimalOfType(a), decimalOfType(b)
	intDigits := max(x.Length-x.Scale, y.Length-y.Scale)
	scale := max(x.Scale, y.Scale)
	return types.Type{Kind: types.KindDecimal, Length: min(intDigits+scale, 38), Scale: scale}
}

func isZero(v any) bool {
	switch x := v.(type) {
	case int64:
		return x == 0
	case float64:
		return x == 0
	case types.Decimal:
		return x.Unscaled.Sign() == 0
	}
	return false
}

func arith(pos sqlmini.Pos, op string, a, b any, t types.Type) (any, error) {
	if (op == "/" || op == "%") && isZero(b) {
		return nil, sqlmini.Errorf(pos, "division by zero")
	}
	switch {
	case t.IsInteger():
		x, y := a.(int64), b.(int64)
		var n int64
		switch op {
		case "+":
			n = x + y
		case "-":
			n = x - y
		case "*":
			n = x * y
		case "/":
			if y == -1 {
				n = -x // MinInt64 / -1 wraps, as in Java
			} else {
				n = x / y
			}
		case "%":
			if y == -1 {
				n = 0
			} else {
				n = x % y
			}
		}
		return wrapInteger(n, t.Kind), nil
	case t.Kind == types.KindDecimal:
		x, y := ratOf(a), ratOf(b)
		r := new(big.Rat)
		switch op {
		case "+":
			r.Add(x, y)
		case "-":
			r.Sub(x, y)
		case "*":
			r.Mul(x, y)
		case "/":
			r.Quo(x, y)
		case "%":
			q := new(big.Rat).Quo(x, y)
			n := new(big.Int).Quo(q.Num(), q.Denom()) // toward zero
			r.Sub(x, new(big.Rat).Mul(new(big.Rat).SetInt(n), y))
		}
		v, err := RatToDecimal(r, t)
		if err != nil {
			return nil, sqlmini.Errorf(pos, "%w", err)
		}
		return v, nil
	}
	x, y := toFloat(a), toFloat(b)
	var f float64
	switch op {
	case "+":
		f = x + y
	case "-":
		f = x - y
	case "*":
		f = x * y
	case "/":
		f = x / y
	case "%":
		f = math.Mod(x, y)
	default:
		return nil, sqlmini.Errorf(pos, "unknown operator %s", op)
	}
	if t.Kind == types.KindFloat {
		return float64(float32(f)), nil // Java's float arithmetic
	}
	return f, nil
}

func ratOf(v any) *big.Rat {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x)
	case types.Decimal:
		return x.Rat()
	case float64:
		r, _ := new(big.Rat).SetString(fmt.Sprint(x))
		if r == nil {
			return new(big.Rat)
		}
		return r
	}
	return new(big.Rat)
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case types.Decimal:
		f, _ := x.Rat().Float64()
		return f
	}
	return math.NaN()
}

func concatExpr(pos sqlmini.Pos, l, r Expr) (Expr, error) {
	for _, x := range []Expr{l, r} {
		if !x.Type().IsString() && x.Type().Kind != types.KindNull {
			return nil, sqlmini.Errorf(pos, "|| needs strings, not %s", x.Type())
		}
	}
	// Flink's type: CHAR(n) || CHAR(m) is CHAR(n + m), else VARCHAR of
	// the summed lengths.
	t := types.TypeString
	lt, rt := l.Type(), r.Type()
	if lt.IsString() && rt.IsString() && int64(lt.Length)+int64(rt.Length) < types.MaxLength {
		t = types.Type{Kind: types.KindVarChar, Length: lt.Length + rt.Length}
		if lt.Kind == types.KindChar && rt.Kind == types.KindChar {
			t.Kind = types.KindChar
		}
	}
	t.NotNull = lt.NotNull && rt.NotNull
	return &funcExpr{t: t, konst: allConstant(l, r), f: func(row []any) (any, error) {
		a, err := l.Eval(row)
		if a == nil || err != nil {
			return nil, err
		}
		b, err := r.Eval(row)
		if b == nil || err != nil {
			return nil, err
		}
		return a.(string) + b.(string), nil
	}}, nil
}

// literalNumber types a numeric literal as Flink does: INT, BIGINT,
// DECIMAL(p, s) for a literal with a point, DOUBLE with an exponent.
func literalNumber(pos sqlmini.Pos, s string) (Expr, error) {
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, sqlmini.Errorf(pos, "invalid number %s", s)
		}
		return &Constant{v: f, t: types.TypeDouble.AsNotNull()}, nil
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		digits := strings.TrimLeft(s[:i]+s[i+1:], "0")
		scale := len(s) - i - 1
		unscaled, ok := new(big.Int).SetString(s[:i]+s[i+1:], 10)
		if !ok {
			return nil, sqlmini.Errorf(pos, "invalid number %s", s)
		}
		prec := max(len(digits), scale+1) // Flink types 0.1 as DECIMAL(2, 1)
		return &Constant{v: types.Decimal{Unscaled: unscaled, Scale: scale}, t: types.Type{Kind: types.KindDecimal, Length: prec, Scale: scale, NotNull: true}}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Beyond BIGINT: a DECIMAL, as in Flink.
		unscaled, ok := new(big.Int).SetString(s, 10)
		if !ok || len(s) > 38 {
			return nil, sqlmini.Errorf(pos, "number %s is out of range", s)
		}
		return &Constant{v: types.Decimal{Unscaled: unscaled}, t: types.Type{Kind: types.KindDecimal, Length: len(s), NotNull: true}}, nil
	}
	if n >= math.MinInt32 && n <= math.MaxInt32 {
		return &Constant{v: n, t: types.TypeInt.AsNotNull()}, nil
	}
	return &Constant{v: n, t: types.TypeBigInt.AsNotNull()}, nil
}
