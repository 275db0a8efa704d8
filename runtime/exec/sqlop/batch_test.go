package sqlop_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

var (
	bigint = types.Type{Kind: types.KindBigInt}
	kv     = types.Schema{Columns: []types.Column{{Name: "k", Type: types.TypeString}, {Name: "v", Type: bigint}}}
	colK   = &expr.Column{Index: 0, T: types.TypeString}
	colV   = &expr.Column{Index: 1, T: bigint}
)

func row(kind types.RowKind, k any, v any) exec.Event {
	return exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: kind, Fields: []any{k, v}}}
}

// drain runs n to its end and returns its rows and watermarks, in order.
func drain(t *testing.T, n exec.Node) []string {
	t.Helper()
	st, err := n.Open(exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []string
	for {
		ev, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case exec.EvEnd:
			return out
		case exec.EvRow:
			out = append(out, fmt.Sprint(ev.Row.Kind.ShortString(), ev.Row.Fields))
		case exec.EvWatermark:
			out = append(out, "wm")
		}
	}
}

// TestAggregateNode_final: the hash aggregation of batch mode gives each
// group once, before the watermark of the end, sorted by the group
// values; a retraction takes from its group, and an emptied group gives
// nothing; a global aggregation over no rows gives one row.
func TestAggregateNode_final(t *testing.T) {
	calls := []*sqlop.AggCall{{Fn: "COUNT", Star: true, Typ: bigint.AsNotNull()}, {Fn: "SUM", Arg: colV, ArgType: bigint, Typ: bigint}}
	grouped := func(evs []exec.Event) exec.Node {
		return &sqlop.AggregateNode{In: &exec.ValuesNode{Sch: kv, Events: evs}, Groups: []expr.Expr{colK}, Calls: calls, Final: true,
			Outs: []expr.Expr{colK, &expr.Column{Index: 1, T: bigint}, &expr.Column{Index: 2, T: bigint}}, Mode: types.InsertOnly}
	}
	for _, tc := range []struct {
		name string
		n    exec.Node
		want []string
	}{{
		name: "groups sorted, before the end's watermark",
		n: grouped([]exec.Event{row(types.Insert, "b", int64(1)), row(types.Insert, "a", int64(2)), row(types.Insert, "b", int64(3)),
			{Kind: exec.EvWatermark, Wm: 7}, row(types.Insert, nil, int64(4)), {Kind: exec.EvWatermark, Wm: exec.MaxWatermark}}),
		want: []string{"wm", "+I[<nil> 1 4]", "+I[a 1 2]", "+I[b 2 4]", "wm"},
	}, {
		name: "retractions",
		n: grouped([]exec.Event{row(types.Insert, "a", int64(2)), row(types.Insert, "c", int64(5)), row(types.Delete, "a", int64(2)),
			row(types.UpdateBefore, "c", int64(5)), row(types.UpdateAfter, "c", int64(6))}),
		want: []string{"+I[c 1 6]"},
	}, {
		name: "no rows, no groups",
		n:    grouped(nil),
		want: nil,
	}, {
		name: "a global aggregation over no rows",
		n: &sqlop.AggregateNode{In: &exec.ValuesNode{Sch: kv}, Calls: calls, Final: true,
			Outs: []expr.Expr{&expr.Column{Index: 0, T: bigint}, &expr.Column{Index: 1, T: bigint}}, Mode: types.InsertOnly},
		want: []string{"+I[0 <nil>]"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, drain(t, tc.n)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortNode: a full sort is stable; with a limit and an offset it
// keeps those places, also when it prunes while it reads (more rows than
// twice the places and 1024).
func TestSortNode(t *testing.T) {
	var evs []exec.Event
	for i := range 3000 {
		evs = append(evs, row(types.Insert, fmt.Sprint("r", i), int64(i%7)))
	}
	desc := []sqlop.OrderKey{{Expr: colV, Desc: true}}
	got := drain(t, &sqlop.SortNode{In: &exec.ValuesNode{Sch: kv, Events: evs}, Keys: desc, Limit: true, N: 3, Offset: 1})
	want := []string{"+I[r13 6]", "+I[r20 6]", "+I[r27 6]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limit (-want +got):\n%s", diff)
	}
	got = drain(t, &sqlop.SortNode{In: &exec.ValuesNode{Sch: kv, Events: evs[:9]}, Keys: desc})
	want = []string{"+I[r6 6]", "+I[r5 5]", "+I[r4 4]", "+I[r3 3]", "+I[r2 2]", "+I[r1 1]", "+I[r8 1]", "+I[r0 0]", "+I[r7 0]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("full sort (-want +got):\n%s", diff)
	}
}

// TestJoinNode_hash: the batch hash join gives each probe row's matches
// in the build rows' order, pads an outer side's rows without a match,
// and matches no NULL key.
func TestJoinNode_hash(t *testing.T) {
	left := []exec.Event{row(types.Insert, "a", int64(1)), row(types.Insert, "b", int64(2)), row(types.Insert, nil, int64(3))}
	right := []exec.Event{row(types.Insert, "a", int64(10)), row(types.Insert, "c", int64(30)), row(types.Insert, "a", int64(11)), row(types.Insert, nil, int64(40))}
	rk := &expr.Column{Index: 0, T: types.TypeString}
	for _, tc := range []struct {
		kind sqlop.JoinKind
		want []string
	}{
		{sqlop.InnerJoin, []string{"+I[a 1 a 10]", "+I[a 1 a 11]"}},
		{sqlop.LeftJoin, []string{"+I[a 1 a 10]", "+I[a 1 a 11]", "+I[b 2 <nil> <nil>]", "+I[<nil> 3 <nil> <nil>]"}},
		{sqlop.RightJoin, []string{"+I[a 1 a 10]", "+I[<nil> <nil> c 30]", "+I[a 1 a 11]", "+I[<nil> <nil> <nil> 40]"}},
		{sqlop.FullJoin, []string{"+I[a 1 a 10]", "+I[a 1 a 11]", "+I[b 2 <nil> <nil>]", "+I[<nil> 3 <nil> <nil>]", "+I[<nil> <nil> c 30]", "+I[<nil> <nil> <nil> 40]"}},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			n := &sqlop.JoinNode{Left: &exec.ValuesNode{Sch: kv, Events: left}, Right: &exec.ValuesNode{Sch: kv, Events: right}, Kind: tc.kind,
				LeftKeys: []expr.Expr{colK}, RightKeys: []expr.Expr{rk}, Hash: true}
			if diff := cmp.Diff(tc.want, drain(t, n)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
