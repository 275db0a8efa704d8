package sqlop

import (
	"encoding/binary"
	"math"
	"math/big"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The aggregates beyond COUNT, SUM, AVG, MIN and MAX, as Flink 2.3 computes
// them: the variance family (STDDEV_POP, STDDEV_SAMP, VAR_POP, VAR_SAMP,
// STDDEV and VARIANCE), LISTAGG, ARRAY_AGG, COLLECT and PERCENTILE; and
// FILTER (WHERE ...) for the aggregates that take NULLs (ARRAY_AGG).

// Skip is the argument of an aggregate call for a row its FILTER (WHERE
// cond) leaves out (FilteredArg): the accumulator does not see the row.
var Skip any = skip{}

type skip struct{}

// FilteredArg is the argument of a call with FILTER (WHERE Cond): Arg where
// Cond is TRUE, else Skip.
type FilteredArg struct{ Cond, Arg expr.Expr }

func (f *FilteredArg) Eval(row []any) (any, error) {
	v, err := f.Cond.Eval(row)
	if err != nil || v != true {
		return Skip, err
	}
	return f.Arg.Eval(row)
}
func (f *FilteredArg) Type() types.Type { return f.Arg.Type().Nullable() }
func (f *FilteredArg) IsConstant() bool { return false }

// skipAcc hands its inner accumulator the values that are not Skip.
type skipAcc struct{ inner Accumulator }

func (a *skipAcc) Add(v any) {
	if v != Skip {
		a.inner.Add(v)
	}
}

func (a *skipAcc) Retract(v any) {
	if v != Skip {
		a.inner.Retract(v)
	}
}

func (a *skipAcc) Value() any                           { return a.inner.Value() }
func (a *skipAcc) AppendState(b []byte) ([]byte, error) { return a.inner.AppendState(b) }
func (a *skipAcc) ReadState(b []byte) ([]byte, error)   { return a.inner.ReadState(b) }

// newMoreAccumulator returns the accumulator of the calls NewAccumulator
// leaves to this file, or nil.
func newMoreAccumulator(c *AggCall) Accumulator {
	switch c.Fn {
	case "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE":
		return newVariance(c)
	case "LISTAGG":
		return &listAggAcc{sep: c.Sep}
	case "ARRAY_AGG":
		return &arrayAggAcc{}
	case "JSON_ARRAYAGG":
		return &jsonArrayAggAcc{null: c.NullOnNull} // aggregate_json.go
	case "JSON_OBJECTAGG":
		return &jsonObjectAggAcc{null: c.NullOnNull}
	case "COLLECT":
		return &collectAcc{}
	case "PERCENTILE":
		return &percentileAcc{ps: c.Percents, array: c.Typ.Kind == types.KindArray}
	}
	return nil
}

// varianceAcc is the variance family as Flink reduces it (Calcite's
// AggregateReduceFunctionsRule): from SUM(x * x), SUM(x) and COUNT(x),
// (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x) (or COUNT(x) - 1,
// NULL for one value), the square root for STDDEV, cast to x's type. Each
// step is computed in the type Flink computes it in: an integer x in its
// Java type, wrapping around (the sums and the square), the quotients in
// BIGINT, truncated; FLOAT's sums and square in float32, the rest in
// float64; DOUBLE in float64; DECIMAL exactly,
// rounded once to the result's scale.
type varianceAcc struct {
	kind     types.Kind
	typ      types.Type
	sample   bool // SAMP: divided by COUNT(x) - 1
	sqrt     bool // STDDEV
	n        int64
	sum, sq  int64    // integers, wrapped to kind
	fsum, fs float64  // FLOAT (rounded to float32 at each step) and DOUBLE
	dsum, ds *big.Rat // DECIMAL
}

func newVariance(c *AggCall) *varianceAcc {
	fn := c.Fn
	return &varianceAcc{kind: c.ArgType.Kind, typ: c.Typ, sample: strings.HasSuffix(fn, "SAMP") || fn == "STDDEV" || fn == "VARIANCE",
		sqrt: strings.HasPrefix(fn, "STDDEV"), dsum: new(big.Rat), ds: new(big.Rat)}
}

func (a *varianceAcc) Add(v any)     { a.step(v, 1) }
func (a *varianceAcc) Retract(v any) { a.step(v, -1) }

func (a *varianceAcc) step(v any, sign int64) {
	if v == nil {
		return
	}
	a.n += sign
	switch x := v.(type) {
	case int64:
		a.sum = wrapInt(a.sum+sign*x, a.kind)
		a.sq = wrapInt(a.sq+sign*wrapInt(x*x, a.kind), a.kind)
	case float64:
		if a.kind == types.KindFloat {
			f := float32(x)
			a.fsum = float64(float32(a.fsum) + float32(sign)*f)
			a.fs = float64(float32(a.fs) + float32(sign)*f*f)
			return
		}
		a.fsum += float64(sign) * x
		a.fs += float64(sign) * x * x
	case types.Decimal:
		r := x.Rat()
		sq := new(big.Rat).Mul(r, r)
		if sign < 0 {
			r.Neg(r)
			sq.Neg(sq)
		}
		a.dsum.Add(a.dsum, r)
		a.ds.Add(a.ds, sq)
	}
}

func (a *varianceAcc) Value() any {
	den := a.n
	if a.sample {
		den--
	}
	if a.n <= 0 || den <= 0 {
		return nil
	}
	switch a.kind {
	case types.KindDecimal:
		mean := new(big.Rat).Quo(new(big.Rat).Mul(a.dsum, a.dsum), new(big.Rat).SetInt64(a.n))
		v := new(big.Rat).Quo(new(big.Rat).Sub(a.ds, mean), new(big.Rat).SetInt64(den))
		if a.sqrt {
			f, _ := v.Float64()
			v = new(big.Rat)
			if s := math.Sqrt(f); !math.IsNaN(s) && !math.IsInf(s, 0) {
				v.SetFloat64(s)
			}
		}
		d, err := expr.RatToDecimal(v, a.typ)
		if err != nil {
			return nil
		}
		return d
	case types.KindFloat, types.KindDouble:
		// FLOAT sums are float32; the rest is DOUBLE, as Flink's division
		// of a FLOAT by COUNT's BIGINT is.
		sum := a.fsum
		if a.kind == types.KindFloat {
			sum = float64(float32(sum) * float32(sum))
		} else {
			sum *= sum
		}
		v := (a.fs - sum/float64(a.n)) / float64(den)
		if a.sqrt {
			v = math.Sqrt(v)
		}
		if a.kind == types.KindFloat {
			return float64(float32(v))
		}
		return v
	}
	sumSq := wrapInt(a.sum*a.sum, a.kind)
	v := (a.sq - sumSq/a.n) / den
	if a.sqrt {
		// POWER(v, 0.5) cast back to the integer type, as Java casts.
		s := math.Sqrt(float64(v))
		if math.IsNaN(s) {
			return int64(0)
		}
		return wrapInt(int64(s), a.kind)
	}
	return wrapInt(v, a.kind)
}

// listAggAcc is LISTAGG(x [, sep]): the values that are not NULL, in the
// order they came, joined by sep (','); a retraction takes out the first
// equal value, as Flink's ListAggWithRetractAggFunction does.
type listAggAcc struct {
	sep  string
	vals []string
}

func (a *listAggAcc) Add(v any) {
	if s, ok := v.(string); ok {
		a.vals = append(a.vals, s)
	}
}

func (a *listAggAcc) Retract(v any) {
	s, ok := v.(string)
	if !ok {
		return
	}
	for i, x := range a.vals {
		if x == s {
			a.vals = append(a.vals[:i], a.vals[i+1:]...)
			return
		}
	}
}

func (a *listAggAcc) Value() any {
	if len(a.vals) == 0 {
		return nil
	}
	return strings.Join(a.vals, a.sep)
}

// arrayAggAcc is ARRAY_AGG(x): the values in the order they came, NULLs
// too (Flink's ARRAY_AGG respects NULLs); a retraction takes out the first
// equal value. With no value it is NULL.
type arrayAggAcc struct{ vals []any }

func (a *arrayAggAcc) Add(v any) { a.vals = append(a.vals, v) }

func (a *arrayAggAcc) Retract(v any) {
	for i, x := range a.vals {
		if x == nil && v == nil || x != nil && v != nil && expr.CompareValues(x, v) == 0 {
			a.vals = append(a.vals[:i], a.vals[i+1:]...)
			return
		}
	}
}

func (a *arrayAggAcc) Value() any {
	if len(a.vals) == 0 {
		return nil
	}
	return append([]any(nil), a.vals...)
}

// collectAcc is COLLECT(x): the multiset of the values that are not NULL,
// a map of each to its count, in the order of the values (as a Java
// HashMap of small numbers and short strings iterates).
type collectAcc struct{ set multiset }

func (a *collectAcc) Add(v any) {
	if v != nil {
		a.set.Add(v)
	}
}

func (a *collectAcc) Retract(v any) {
	if v != nil {
		a.set.remove(v)
	}
}

func (a *collectAcc) Value() any {
	m := &types.Map{}
	for i, v := range a.set.vals {
		m.Keys = append(m.Keys, v)
		m.Values = append(m.Values, a.set.n[i])
	}
	return m
}

// percentileAcc is PERCENTILE(x, p [, frequency]): the value at p (0 to 1)
// of the sorted values that are not NULL, each counted frequency times,
// interpolated linearly between the two around position p * (count - 1),
// as Flink's PercentileAggFunction does; a DOUBLE, or an ARRAY<DOUBLE> for
// an array of ps. Its argument is ROW(x, frequency) with a frequency.
type percentileAcc struct {
	ps    []float64
	array bool
	set   multiset
}

// valueAndCount splits the argument: x, and how many times it counts.
func valueAndCount(v any) (any, int64) {
	if r, ok := v.(types.Row); ok && len(r.Fields) == 2 {
		f, _ := r.Fields[1].(int64)
		return r.Fields[0], f
	}
	return v, 1
}

func (a *percentileAcc) Add(v any)     { a.step(v, 1) }
func (a *percentileAcc) Retract(v any) { a.step(v, -1) }

func (a *percentileAcc) step(v any, sign int64) {
	x, n := valueAndCount(v)
	if x == nil || n <= 0 {
		return
	}
	for range n {
		if sign > 0 {
			a.set.Add(x)
		} else {
			a.set.remove(x)
		}
	}
}

func (a *percentileAcc) Value() any {
	var total int64
	for _, c := range a.set.n {
		total += c
	}
	if total == 0 {
		return nil
	}
	at := func(i int64) float64 { // the i-th value, 0-based, of the sorted values
		for j, c := range a.set.n {
			if i < c {
				return toFloat(a.set.vals[j])
			}
			i -= c
		}
		return toFloat(a.set.vals[len(a.set.vals)-1])
	}
	out := make([]any, len(a.ps))
	for k, p := range a.ps {
		pos := p * float64(total-1)
		lo := int64(math.Floor(pos))
		hi := int64(math.Ceil(pos))
		lv, hv := at(lo), at(hi)
		out[k] = lv + (pos-float64(lo))*(hv-lv)
	}
	if a.array {
		return out
	}
	return out[0]
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

// ---- state ----

func (a *varianceAcc) AppendState(b []byte) ([]byte, error) {
	b = appendVarint(b, a.n)
	b = appendVarint(b, a.sum)
	b = appendVarint(b, a.sq)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.fsum))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.fs))
	for _, r := range []*big.Rat{a.dsum, a.ds} {
		t := r.RatString()
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	return b, nil
}

func (a *varianceAcc) ReadState(b []byte) ([]byte, error) {
	var err error
	for _, p := range []*int64{&a.n, &a.sum, &a.sq} {
		if *p, b, err = readVarint(b); err != nil {
			return nil, err
		}
	}
	for _, p := range []*float64{&a.fsum, &a.fs} {
		if len(b) < 8 {
			return nil, errAccTruncated
		}
		*p, b = math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
	}
	for _, r := range []*big.Rat{a.dsum, a.ds} {
		n, w := binary.Uvarint(b)
		if w <= 0 || uint64(len(b)-w) < n {
			return nil, errAccTruncated
		}
		if _, ok := r.SetString(string(b[w : w+int(n)])); !ok {
			return nil, errAccTruncated
		}
		b = b[w+int(n):]
	}
	return b, nil
}

func (a *listAggAcc) AppendState(b []byte) ([]byte, error) {
	vs := make([]any, len(a.vals))
	for i, s := range a.vals {
		vs[i] = s
	}
	return appendValues(b, vs)
}

func (a *listAggAcc) ReadState(b []byte) ([]byte, error) {
	vs, rest, err := readValues(b)
	if err != nil {
		return nil, err
	}
	a.vals = a.vals[:0]
	for _, v := range vs {
		s, _ := v.(string)
		a.vals = append(a.vals, s)
	}
	return rest, nil
}

func (a *arrayAggAcc) AppendState(b []byte) ([]byte, error) { return appendValues(b, a.vals) }
func (a *arrayAggAcc) ReadState(b []byte) (rest []byte, err error) {
	a.vals, rest, err = readValues(b)
	return rest, err
}

func (a *collectAcc) AppendState(b []byte) ([]byte, error) { return a.set.appendState(b) }
func (a *collectAcc) ReadState(b []byte) ([]byte, error)   { return a.set.readState(b) }

func (a *percentileAcc) AppendState(b []byte) ([]byte, error) { return a.set.appendState(b) }
func (a *percentileAcc) ReadState(b []byte) ([]byte, error)   { return a.set.readState(b) }
