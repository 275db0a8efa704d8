package sqlop

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestMemAcc_value_sameAsAccumulator adds the same random values (NULLs,
// rows a FILTER leaves out, wrapping integers, NaN) to a memAcc and to the
// call's Accumulator, and wants the same result after each value.
func TestMemAcc_value_sameAsAccumulator(t *testing.T) {
	ints := []types.Kind{types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt}
	var calls []*AggCall
	for _, fn := range []string{"COUNT", "SUM", "AVG", "MIN", "MAX"} {
		for _, k := range append(ints, types.KindFloat, types.KindDouble, types.KindVarChar) {
			if k == types.KindVarChar && (fn == "SUM" || fn == "AVG") {
				continue
			}
			for _, filtered := range []bool{false, true} {
				calls = append(calls, &AggCall{Fn: fn, ArgType: types.Type{Kind: k}, Typ: types.Type{Kind: k}, Filtered: filtered})
			}
		}
	}
	calls = append(calls, &AggCall{Fn: "COUNT", Star: true, Typ: types.Type{Kind: types.KindBigInt}},
		&AggCall{Fn: "MAX", Distinct: true, ArgType: types.Type{Kind: types.KindBigInt}, Typ: types.Type{Kind: types.KindBigInt}},
		&AggCall{Fn: "STDDEV_POP", ArgType: types.Type{Kind: types.KindDouble}, Typ: types.Type{Kind: types.KindDouble}})
	rnd := rand.New(rand.NewSource(1))
	for _, c := range calls {
		name := fmt.Sprintf("%s(%v)filtered=%v", c.Fn, c.ArgType, c.Filtered)
		for round := range 20 {
			mc := newMemCall(c)
			var a memAcc
			if mc.kind == memOther {
				a.acc = NewAccumulator(c)
			}
			want := NewAccumulator(c)
			for i := range 50 {
				v := randomValue(rnd, c.ArgType.Kind, c.Filtered)
				a.add(&mc, v)
				want.Add(v)
				if got, w := a.value(&mc), want.Value(); !sameResult(got, w) {
					t.Fatalf("%s, round %d, value %d (%#v): got %#v, want %#v", name, round, i, v, got, w)
				}
			}
		}
	}
}

// randomValue is a value of kind k as rows hold it: int64 for integers
// (often near the type's bounds), float64 for FLOAT and DOUBLE; NULL now
// and then, and Skip when the call has a FILTER.
func randomValue(rnd *rand.Rand, k types.Kind, filtered bool) any {
	switch r := rnd.Intn(10); {
	case r == 0:
		return nil
	case r == 1 && filtered:
		return Skip
	}
	switch k {
	case types.KindFloat, types.KindDouble:
		switch rnd.Intn(8) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*rnd.Intn(2))
		}
		return rnd.NormFloat64() * 1e6
	case types.KindVarChar:
		return string(rune('a' + rnd.Intn(5)))
	}
	if rnd.Intn(2) == 0 {
		return int64(rnd.Intn(200) - 100)
	}
	return rnd.Int63() - math.MaxInt64/2
}

func sameResult(a, b any) bool {
	if x, ok := a.(float64); ok {
		if y, ok := b.(float64); ok && math.IsNaN(x) && math.IsNaN(y) {
			return true
		}
	}
	return a == b
}
