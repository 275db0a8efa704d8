package expr

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Comparisons: =, <>, <, <=, >, >=, IS [NOT] DISTINCT FROM, and the
// order of two values that sorting and the aggregates (MIN, MAX) use.

// distinctFrom compiles a IS [NOT] DISTINCT FROM b: never NULL, two NULLs
// are not distinct, a NULL and a value are.
func distinctFrom(pos sqlmini.Pos, left, right Expr, not bool) (Expr, error) {
	if !Comparable(left.Type(), right.Type()) {
		return nil, sqlmini.Errorf(pos, "cannot compare %s with %s", left.Type(), right.Type())
	}
	return &funcExpr{t: types.TypeBoolean.AsNotNull(), konst: allConstant(left, right), f: func(row []any) (any, error) {
		a, err := left.Eval(row)
		if err != nil {
			return nil, err
		}
		b, err := right.Eval(row)
		if err != nil {
			return nil, err
		}
		same := a == nil && b == nil || a != nil && b != nil && CompareValues(a, b) == 0
		return same == not, nil
	}}, nil
}

// Comparable reports whether values of t and u can be compared.
func Comparable(t, u types.Type) bool {
	if t.Kind == types.KindNull || u.Kind == types.KindNull {
		return true
	}
	switch {
	case t.IsNumeric() && u.IsNumeric(), t.IsString() && u.IsString(), t.IsTime() && u.IsTime():
		return true
	}
	return t.Kind == u.Kind
}

func compileCompare(pos sqlmini.Pos, op string, left, right Expr) (Expr, error) {
	if !Comparable(left.Type(), right.Type()) {
		return nil, sqlmini.Errorf(pos, "cannot compare %s with %s", left.Type(), right.Type())
	}
	var test func(c int) bool
	switch op {
	case "=":
		test = func(c int) bool { return c == 0 }
	case "<>", "!=":
		test = func(c int) bool { return c != 0 }
	case "<":
		test = func(c int) bool { return c < 0 }
	case "<=":
		test = func(c int) bool { return c <= 0 }
	case ">":
		test = func(c int) bool { return c > 0 }
	case ">=":
		test = func(c int) bool { return c >= 0 }
	}
	t := types.TypeBoolean
	t.NotNull = left.Type().NotNull && right.Type().NotNull
	if f := compareIntColumn(left, right, test); f != nil {
		return &funcExpr{t: t, f: f}, nil
	}
	return &funcExpr{t: t, konst: allConstant(left, right), f: func(row []any) (any, error) {
		a, err := left.Eval(row)
		if a == nil || err != nil {
			return nil, err
		}
		b, err := right.Eval(row)
		if b == nil || err != nil {
			return nil, err
		}
		return test(CompareValues(a, b)), nil
	}}, nil
}

// compareIntColumn returns the comparison of an integer column with an
// integer constant (delay > 15) that reads the column's int64 and compares
// it with the constant's, without evaluating either as an expression; nil
// for any other comparison.
func compareIntColumn(left, right Expr, test func(c int) bool) func(row []any) (any, error) {
	col, ok := left.(*Column)
	if !ok || !left.Type().IsInteger() || !right.Type().IsInteger() || !right.IsConstant() {
		return nil
	}
	kv, err := right.Eval(nil)
	k, isInt := kv.(int64)
	if err != nil || !isInt {
		return nil // NULL, or an error the row's evaluation gives
	}
	// The outcomes, as test gives them for each order.
	lt, eq, gt := test(-1), test(0), test(1)
	i := col.Index
	return func(row []any) (any, error) {
		a, ok := row[i].(int64)
		switch {
		case !ok && row[i] == nil:
			return nil, nil
		case !ok: // not an integer column's value: compared as any other
			return test(CompareValues(row[i], kv)), nil
		case a < k:
			return lt, nil
		case a > k:
			return gt, nil
		}
		return eq, nil
	}
}

// CompareValues orders two non-null values of comparable types.
func CompareValues(a, b any) int {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmpOrdered(x, y)
		case float64:
			return cmpOrdered(float64(x), y)
		case types.Decimal:
			return decimalOf(x).Cmp(y.Rat())
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return cmpOrdered(x, float64(y))
		case float64:
			return cmpOrdered(x, y)
		case types.Decimal:
			f, _ := y.Rat().Float64()
			return cmpOrdered(x, f)
		}
	case types.Decimal:
		switch y := b.(type) {
		case int64:
			return x.Rat().Cmp(decimalOf(y))
		case float64:
			f, _ := x.Rat().Float64()
			return cmpOrdered(f, y)
		case types.Decimal:
			return x.Rat().Cmp(y.Rat())
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	case types.Instant, types.LocalDateTime:
		xm, _ := types.TimeMillis(x)
		ym, ok := types.TimeMillis(b)
		if ok {
			if c := cmpOrdered(xm, ym); c != 0 {
				return c
			}
			return cmpOrdered(nanoOf(x), nanoOf(b))
		}
	case types.Date:
		if y, ok := b.(types.Date); ok {
			return cmpOrdered(x, y)
		}
	case types.TimeOfDay:
		if y, ok := b.(types.TimeOfDay); ok {
			return cmpOrdered(x, y)
		}
	case types.Duration:
		if y, ok := b.(types.Duration); ok {
			return cmpOrdered(x, y)
		}
	case types.Period:
		if y, ok := b.(types.Period); ok {
			return cmpOrdered(x, y)
		}
	}
	// Values of other types compare by their printed form: stable, if crude.
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

func nanoOf(v any) int32 {
	switch t := v.(type) {
	case types.Instant:
		return t.NanoOfMilli
	case types.LocalDateTime:
		return t.NanoOfMilli
	}
	return 0
}

func cmpOrdered[T int64 | float64 | int32 | types.Date | types.TimeOfDay | types.Duration | types.Period](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
