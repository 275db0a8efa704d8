package sqlop

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestAccumulator_stateRoundTrip checks that every accumulator reads back
// the state it wrote: the same value, and the same value after more rows
// come and go, including a retraction of a row added before the
// checkpoint.
func TestAccumulator_stateRoundTrip(t *testing.T) {
	dec := func(u int64) types.Decimal { return types.Decimal{Unscaled: big.NewInt(u), Scale: 2} }
	decT := types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}
	intT := types.Type{Kind: types.KindInt}
	dblT := types.Type{Kind: types.KindDouble}
	cases := []struct {
		call   AggCall
		before []any // added before the checkpoint
		after  []any // added after it
		out    any   // retracted after it
	}{
		{AggCall{Fn: "COUNT", Star: true, Typ: types.Type{Kind: types.KindBigInt}}, []any{nil, int64(1)}, []any{int64(2)}, int64(1)},
		{AggCall{Fn: "COUNT", ArgType: intT, Typ: types.Type{Kind: types.KindBigInt}}, []any{nil, int64(1)}, []any{int64(2)}, int64(1)},
		{AggCall{Fn: "SUM", ArgType: intT, Typ: intT}, []any{int64(5), int64(7)}, []any{int64(1)}, int64(5)},
		{AggCall{Fn: "SUM", ArgType: dblT, Typ: dblT}, []any{1.5, 2.25}, []any{0.25}, 1.5},
		{AggCall{Fn: "SUM", ArgType: decT, Typ: decT}, []any{dec(150), dec(225)}, []any{dec(1)}, dec(150)},
		{AggCall{Fn: "AVG", ArgType: intT, Typ: intT}, []any{int64(5), int64(8)}, []any{int64(2)}, int64(8)},
		{AggCall{Fn: "AVG", ArgType: decT, Typ: decT}, []any{dec(100), dec(201)}, []any{dec(3)}, dec(100)},
		{AggCall{Fn: "MIN", ArgType: intT, Typ: intT}, []any{int64(5), int64(3), int64(3)}, []any{int64(4)}, int64(3)},
		{AggCall{Fn: "MAX", ArgType: types.TypeString, Typ: types.TypeString}, []any{"b", "c", "a"}, []any{"bb"}, "c"},
		{AggCall{Fn: "COUNT", Distinct: true, ArgType: intT, Typ: types.Type{Kind: types.KindBigInt}}, []any{int64(1), int64(1), int64(2)}, []any{int64(3)}, int64(1)},
		{AggCall{Fn: "SUM", Distinct: true, ArgType: intT, Typ: intT}, []any{int64(1), int64(1), int64(2)}, []any{int64(3)}, int64(2)},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s(distinct=%v,star=%v,%s)", c.call.Fn, c.call.Distinct, c.call.Star, c.call.ArgType)
		t.Run(name, func(t *testing.T) {
			live := NewAccumulator(&c.call)
			for _, v := range c.before {
				live.Add(v)
			}
			b, err := live.AppendState([]byte("x"))
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, "tail"...)
			restored := NewAccumulator(&c.call)
			rest, err := restored.ReadState(b[1:])
			if err != nil {
				t.Fatal(err)
			}
			if string(rest) != "tail" {
				t.Errorf("ReadState left %q; want the bytes after the state", rest)
			}
			for _, a := range []Accumulator{live, restored} {
				for _, v := range c.after {
					a.Add(v)
				}
				a.Retract(c.out)
			}
			if got, want := fmt.Sprint(restored.Value()), fmt.Sprint(live.Value()); got != want {
				t.Errorf("restored value %s; want %s", got, want)
			}
			state := b[1 : len(b)-len("tail")]
			if _, err := NewAccumulator(&c.call).ReadState(state[:len(state)-1]); err == nil {
				t.Errorf("a state cut short by one byte read without an error")
			}
		})
	}
}
