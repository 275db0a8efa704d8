package sqlop

import (
	"math/big"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Accumulator is the running state of one aggregate call in one group, as
// Flink's AggregateFunction with retraction: add takes a value of a row
// that arrives (+I, +U), retract one of a row that leaves (-U, -D). NULL
// values are ignored by every aggregate but COUNT(*), which is given the
// row count instead (see countStar).
type Accumulator interface {
	Add(v any)
	Retract(v any)
	// Value is the aggregate's current result, typed as its call.
	Value() any
	// AppendState appends the accumulator's state to b, as checkpoints
	// keep it (acc_state.go).
	AppendState(b []byte) ([]byte, error)
	// ReadState sets the state of a fresh accumulator of the same call
	// from what AppendState wrote at the start of b, and returns the rest
	// of b.
	ReadState(b []byte) ([]byte, error)
}

// NewAccumulator returns a fresh accumulator for call c.
func NewAccumulator(c *AggCall) Accumulator {
	var a Accumulator
	switch c.Fn {
	case "COUNT":
		if c.Star {
			a = &countStar{}
		} else {
			a = &countAcc{}
		}
	case "SUM":
		a = newSum(c.ArgType, c.Typ)
	case "AVG":
		a = newAvg(c.ArgType, c.Typ)
	case "MIN":
		a = &extremeAcc{max: false}
	case "MAX":
		a = &extremeAcc{max: true}
	default:
		a = newMoreAccumulator(c) // aggregate_more.go
	}
	if c.Distinct && !c.Star {
		a = &distinctAcc{inner: a}
	}
	if c.Filtered {
		a = &skipAcc{inner: a}
	}
	return a
}

// countStar is COUNT(*): the number of rows.
type countStar struct{ n int64 }

func (a *countStar) Add(any)     { a.n++ }
func (a *countStar) Retract(any) { a.n-- }
func (a *countStar) Value() any  { return a.n }

// countAcc is COUNT(x): the number of non-NULL values.
type countAcc struct{ n int64 }

func (a *countAcc) Add(v any) {
	if v != nil {
		a.n++
	}
}

func (a *countAcc) Retract(v any) {
	if v != nil {
		a.n--
	}
}

func (a *countAcc) Value() any { return a.n }

// sumAcc is SUM over numbers: NULL while no non-NULL value is in the
// group (Flink's SumWithRetractAggFunction counts them). Integers add with
// the wrap-around of their Java type, FLOAT in float32, DECIMAL exactly.
type sumAcc struct {
	typ  types.Type // the result type
	n    int64
	i    int64
	f    float64
	d    *big.Rat
	kind types.Kind // the argument's kind
}

func newSum(arg, result types.Type) *sumAcc {
	return &sumAcc{typ: result, kind: arg.Kind, d: new(big.Rat)}
}

func (a *sumAcc) Add(v any)     { a.Step(v, 1) }
func (a *sumAcc) Retract(v any) { a.Step(v, -1) }

func (a *sumAcc) Step(v any, sign int64) {
	if v == nil {
		return
	}
	a.n += sign
	switch x := v.(type) {
	case int64:
		a.i = wrapInt(a.i+sign*x, a.kind)
	case float64:
		a.f += float64(sign) * x
		if a.kind == types.KindFloat {
			a.f = float64(float32(a.f))
		}
	case types.Decimal:
		r := x.Rat()
		if sign < 0 {
			r.Neg(r)
		}
		a.d.Add(a.d, r)
	}
}

func (a *sumAcc) Value() any {
	if a.n <= 0 {
		return nil
	}
	switch {
	case a.kind == types.KindDecimal:
		d, err := expr.RatToDecimal(a.d, a.typ)
		if err != nil {
			return nil // an overflowing DECIMAL sum is NULL, as in Flink
		}
		return d
	case a.kind == types.KindFloat || a.kind == types.KindDouble:
		return a.f
	}
	return a.i
}

// wrapInt makes v overflow as a Java value of kind k does.
func wrapInt(v int64, k types.Kind) int64 {
	switch k {
	case types.KindTinyInt:
		return int64(int8(v))
	case types.KindSmallInt:
		return int64(int16(v))
	case types.KindInt:
		return int64(int32(v))
	}
	return v
}

// avgAcc is AVG: the sum divided by the count of non-NULL values, in the
// argument's type as Flink computes it (integer division truncating toward
// zero; DECIMAL rounded HALF_UP to the result's scale).
type avgAcc struct {
	sum  *sumAcc
	kind types.Kind // the argument's kind
	typ  types.Type // the result type
}

func newAvg(arg, result types.Type) *avgAcc {
	sum := newSum(arg, result)
	if arg.IsInteger() {
		sum.kind = types.KindBigInt // summed in a long, without wrapping
	}
	return &avgAcc{sum: sum, kind: arg.Kind, typ: result}
}

func (a *avgAcc) Add(v any)     { a.sum.Add(v) }
func (a *avgAcc) Retract(v any) { a.sum.Retract(v) }

func (a *avgAcc) Value() any {
	s := a.sum
	if s.n <= 0 {
		return nil
	}
	switch a.kind {
	case types.KindDecimal:
		d, err := expr.RatToDecimal(new(big.Rat).Quo(s.d, new(big.Rat).SetInt64(s.n)), a.typ)
		if err != nil {
			return nil
		}
		return d
	case types.KindFloat:
		return float64(float32(s.f / float64(s.n)))
	case types.KindDouble:
		return s.f / float64(s.n)
	}
	// Flink sums integers in a long and casts the quotient back.
	return wrapInt(s.i/s.n, a.kind)
}

// multiset holds values with their multiplicities, sorted: what MIN, MAX
// and DISTINCT need to take a value back out of a group.
type multiset struct {
	vals []any
	n    []int64
}

// find returns the index of v or where it would go.
func (m *multiset) find(v any) (int, bool) {
	i := sort.Search(len(m.vals), func(i int) bool { return expr.CompareValues(m.vals[i], v) >= 0 })
	return i, i < len(m.vals) && expr.CompareValues(m.vals[i], v) == 0
}

// Add adds v once and reports whether it is new.
func (m *multiset) Add(v any) bool {
	i, ok := m.find(v)
	if ok {
		m.n[i]++
		return false
	}
	m.vals = append(m.vals, nil)
	copy(m.vals[i+1:], m.vals[i:])
	m.vals[i] = v
	m.n = append(m.n, 0)
	copy(m.n[i+1:], m.n[i:])
	m.n[i] = 1
	return true
}

// remove takes v out once and reports whether it is gone altogether. A
// value that is not there is ignored (a retraction of a row never seen).
func (m *multiset) remove(v any) bool {
	i, ok := m.find(v)
	if !ok {
		return false
	}
	if m.n[i]--; m.n[i] > 0 {
		return false
	}
	m.vals = append(m.vals[:i], m.vals[i+1:]...)
	m.n = append(m.n[:i], m.n[i+1:]...)
	return true
}

// extremeAcc is MIN or MAX, with retraction (Flink's
// MinWithRetractAggFunction keeps the same map of values to counts).
type extremeAcc struct {
	max bool
	set multiset
}

func (a *extremeAcc) Add(v any) {
	if v != nil {
		a.set.Add(v)
	}
}

func (a *extremeAcc) Retract(v any) {
	if v != nil {
		a.set.remove(v)
	}
}

func (a *extremeAcc) Value() any {
	if len(a.set.vals) == 0 {
		return nil
	}
	if a.max {
		return a.set.vals[len(a.set.vals)-1]
	}
	return a.set.vals[0]
}

// distinctAcc feeds its inner accumulator each distinct value once: when
// it first enters the group and when its last copy leaves.
type distinctAcc struct {
	inner Accumulator
	set   multiset
}

func (a *distinctAcc) Add(v any) {
	if v != nil && a.set.Add(v) {
		a.inner.Add(v)
	}
}

func (a *distinctAcc) Retract(v any) {
	if v != nil && a.set.remove(v) {
		a.inner.Retract(v)
	}
}

func (a *distinctAcc) Value() any { return a.inner.Value() }

// AggCall is one aggregate call of a SELECT: COUNT, SUM, MIN, MAX, AVG
// or one of aggregate_more.go's.
type AggCall struct {
	Fn       string // upper case
	Star     bool   // COUNT(*)
	Distinct bool
	Arg      expr.Expr // over the input row; nil for COUNT(*)
	ArgType  types.Type
	Typ      types.Type // the result type
	Text     string     // as EXPLAIN prints it: COUNT(*), SUM(score)
	// Filtered marks a call with FILTER (WHERE ...): Arg is a
	// FilteredArg, Skip for the rows the call leaves out.
	Filtered bool
	// Sep is LISTAGG's separator.
	Sep string
	// Percents are PERCENTILE's percentages (one, or an ARRAY's).
	Percents []float64
	// NullOnNull is JSON_ARRAYAGG's and JSON_OBJECTAGG's NULL ON NULL:
	// NULL values count, as null.
	NullOnNull bool
}
