package session

import (
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// aggStep is one change fed to an accumulator: a value added or retracted.
type aggStep struct {
	v       any
	retract bool
}

func aggAdd(v any) aggStep     { return aggStep{v: v} }
func aggRetract(v any) aggStep { return aggStep{v: v, retract: true} }

func aggDec(unscaled int64, scale int) types.Decimal {
	return types.Decimal{Unscaled: big.NewInt(unscaled), Scale: scale}
}

func TestAccumulator_value(t *testing.T) {
	intT, tiny := types.TypeInt.AsNotNull(), types.Type{Kind: types.KindTinyInt}
	dec2 := types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}
	tests := []struct {
		name  string
		call  sqlop.AggCall
		steps []aggStep
		want  []any // the value after each aggStep
	}{
		{"count star counts rows, NULLs too", sqlop.AggCall{Fn: "COUNT", Star: true},
			[]aggStep{aggAdd(nil), aggAdd(int64(1)), aggRetract(nil)}, []any{int64(1), int64(2), int64(1)}},
		{"count skips NULL", sqlop.AggCall{Fn: "COUNT", ArgType: intT},
			[]aggStep{aggAdd(nil), aggAdd(int64(1)), aggRetract(int64(1))}, []any{int64(0), int64(1), int64(0)}},
		{"sum is NULL without values", sqlop.AggCall{Fn: "SUM", ArgType: intT, Typ: intT},
			[]aggStep{aggAdd(nil), aggAdd(int64(3)), aggAdd(int64(4)), aggRetract(int64(3)), aggRetract(int64(4))}, []any{nil, int64(3), int64(7), int64(4), nil}},
		{"sum of TINYINT wraps as Java does", sqlop.AggCall{Fn: "SUM", ArgType: tiny, Typ: tiny},
			[]aggStep{aggAdd(int64(100)), aggAdd(int64(100))}, []any{int64(100), int64(-56)}},
		{"sum of DECIMAL is exact", sqlop.AggCall{Fn: "SUM", ArgType: dec2, Typ: types.Type{Kind: types.KindDecimal, Length: 38, Scale: 2}},
			[]aggStep{aggAdd(aggDec(110, 2)), aggAdd(aggDec(220, 2)), aggRetract(aggDec(110, 2))}, []any{aggDec(110, 2), aggDec(330, 2), aggDec(220, 2)}},
		{"avg of INT truncates toward zero in INT", sqlop.AggCall{Fn: "AVG", ArgType: intT, Typ: intT},
			[]aggStep{aggAdd(int64(1)), aggAdd(int64(2)), aggAdd(int64(-9))}, []any{int64(1), int64(1), int64(-2)}},
		{"avg of TINYINT sums without wrapping", sqlop.AggCall{Fn: "AVG", ArgType: tiny, Typ: tiny},
			[]aggStep{aggAdd(int64(100)), aggAdd(int64(100))}, []any{int64(100), int64(100)}},
		{"avg of DECIMAL rounds half up to scale 6", sqlop.AggCall{Fn: "AVG", ArgType: dec2, Typ: types.Type{Kind: types.KindDecimal, Length: 38, Scale: 6}},
			[]aggStep{aggAdd(aggDec(100, 2)), aggAdd(aggDec(0, 2)), aggAdd(aggDec(0, 2))}, []any{aggDec(1000000, 6), aggDec(500000, 6), aggDec(333333, 6)}},
		{"avg of DOUBLE", sqlop.AggCall{Fn: "AVG", ArgType: types.TypeDouble, Typ: types.TypeDouble},
			[]aggStep{aggAdd(1.0), aggAdd(2.0), aggRetract(1.0)}, []any{1.0, 1.5, 2.0}},
		{"min takes back a retracted minimum", sqlop.AggCall{Fn: "MIN", ArgType: types.TypeString},
			[]aggStep{aggAdd("b"), aggAdd("a"), aggAdd("a"), aggRetract("a"), aggRetract("a"), aggRetract("b")}, []any{"b", "a", "a", "a", "b", nil}},
		{"max ignores a retraction never added", sqlop.AggCall{Fn: "MAX", ArgType: intT},
			[]aggStep{aggAdd(int64(5)), aggRetract(int64(9)), aggAdd(int64(7)), aggRetract(int64(7))}, []any{int64(5), int64(5), int64(7), int64(5)}},
		{"count distinct", sqlop.AggCall{Fn: "COUNT", ArgType: types.TypeString, Distinct: true},
			[]aggStep{aggAdd("a"), aggAdd("a"), aggAdd("b"), aggRetract("a"), aggRetract("a")}, []any{int64(1), int64(1), int64(2), int64(2), int64(1)}},
		{"sum distinct", sqlop.AggCall{Fn: "SUM", ArgType: intT, Typ: intT, Distinct: true},
			[]aggStep{aggAdd(int64(2)), aggAdd(int64(2)), aggAdd(int64(3))}, []any{int64(2), int64(2), int64(5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.call.Typ.Kind == types.KindNull {
				tt.call.Typ = tt.call.ArgType
			}
			acc := sqlop.NewAccumulator(&tt.call)
			var got []any
			for _, s := range tt.steps {
				if s.retract {
					acc.Retract(s.v)
				} else {
					acc.Add(s.v)
				}
				got = append(got, acc.Value())
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b types.Decimal) bool { return a.Scale == b.Scale && a.Unscaled.Cmp(b.Unscaled) == 0 })); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAggregateType(t *testing.T) {
	dec := types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2, NotNull: true}
	tests := []struct {
		fn   string
		arg  types.Type
		want string
	}{
		{"COUNT", types.TypeString, "BIGINT NOT NULL"},
		{"SUM", types.TypeInt.AsNotNull(), "INT NOT NULL"},
		{"SUM", dec, "DECIMAL(38, 2) NOT NULL"},
		{"AVG", types.TypeInt, "INT"},
		{"AVG", dec, "DECIMAL(38, 6) NOT NULL"},
		{"AVG", types.Type{Kind: types.KindDecimal, Length: 20, Scale: 10}, "DECIMAL(38, 10)"},
		{"MIN", types.TypeTimestampLTZ, "TIMESTAMP_LTZ(3)"},
		{"SUM", types.TypeString, "Cannot apply 'SUM' to arguments of type 'SUM(<STRING>)'. Supported form(s): 'SUM(<NUMERIC>)'"},
		{"MAX", types.ArrayOf(types.TypeInt), "Cannot apply 'MAX' to arguments of type 'MAX(<ARRAY<INT>>)'. Supported form(s): 'MAX(<COMPARABLE_TYPE>)'"},
	}
	for _, tt := range tests {
		typ, err := plan.AggregateType(tt.fn, tt.arg)
		got := typ.String()
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s(%s) = %s, want %s", tt.fn, tt.arg, got, tt.want)
		}
	}
}
