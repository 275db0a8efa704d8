package sqlop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// listNode is a node whose events are given.
type listNode struct {
	sch    types.Schema
	mode   types.ChangelogMode
	events []exec.Event
}

func (n *listNode) Schema() types.Schema           { return n.sch }
func (n *listNode) Changelog() types.ChangelogMode { return n.mode }
func (n *listNode) Children() []exec.Node          { return nil }
func (n *listNode) Explain() string                { return "List" }
func (n *listNode) Open(*exec.Execution) (exec.Stream, error) {
	return (&exec.ValuesNode{Sch: n.sch, Events: n.events}).Open(&exec.Execution{})
}

func row(k types.RowKind, fields ...any) exec.Event {
	return exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: k, Fields: fields}}
}

func wm(t int64) exec.Event { return exec.Event{Kind: exec.EvWatermark, Wm: t} }

// drain runs a stream to its end and prints its events as Flink's rows
// (and watermarks as wm=t).
func drain(t *testing.T, n exec.Node) []string {
	t.Helper()
	ex := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
	st, err := n.Open(ex)
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
		case exec.EvWatermark:
			if ev.Wm != exec.MaxWatermark {
				out = append(out, fmt.Sprintf("wm=%d", ev.Wm))
			}
		case exec.EvRow:
			var f []string
			for _, v := range ev.Row.Fields {
				switch x := v.(type) {
				case nil:
					f = append(f, "null")
				case types.Instant:
					f = append(f, fmt.Sprint(x.Millis))
				default:
					f = append(f, fmt.Sprint(v))
				}
			}
			out = append(out, ev.Row.Kind.ShortString()+"["+strings.Join(f, ", ")+"]")
		}
	}
}

var (
	kv    = types.Schema{Columns: []types.Column{{Name: "k", Type: types.Type{Kind: types.KindBigInt}}, {Name: "v", Type: types.Type{Kind: types.KindBigInt}}}}
	key0  = []expr.Expr{&expr.Column{Index: 0, T: types.Type{Kind: types.KindBigInt}}}
	joins = func(l, r *listNode, kind JoinKind) *JoinNode {
		return &JoinNode{Left: l, Right: r, Kind: kind, LeftKeys: key0, RightKeys: key0,
			Sch: types.Schema{Columns: append(append([]types.Column(nil), kv.Columns...), kv.Columns...)}}
	}
)

// TestJoinNode_updates: a -U keeps its input's turn for its +U, so that the
// other side sees no half-done update; an inner join passes -U/+U on, a
// left join turns them into -D/+I of the joined rows and pads the row
// whose match went away.
func TestJoinNode_updates(t *testing.T) {
	left := &listNode{sch: kv, mode: types.InsertOnly, events: []exec.Event{
		row(types.Insert, int64(1), int64(10)), row(types.Insert, int64(1), int64(11)), row(types.Insert, int64(1), int64(12))}}
	right := &listNode{sch: kv, mode: types.RetractAll, events: []exec.Event{
		row(types.Insert, int64(1), int64(1)), row(types.UpdateBefore, int64(1), int64(1)), row(types.UpdateAfter, int64(1), int64(2)),
	}}
	// Turns: 10, +I 1, 11, -U 1 and +U 2 together, 12.
	tests := []struct {
		name string
		l, r *listNode
		kind JoinKind
		want []string
	}{
		{"inner", left, right, InnerJoin, []string{
			"+I[1, 10, 1, 1]", "+I[1, 11, 1, 1]", "-U[1, 10, 1, 1]", "-U[1, 11, 1, 1]", "+U[1, 10, 1, 2]", "+U[1, 11, 1, 2]",
			"+I[1, 12, 1, 2]"}},
		{"updating side outer", right, left, LeftJoin, []string{
			"+I[1, 1, null, null]", "-D[1, 1, null, null]", "+I[1, 1, 1, 10]",
			"-D[1, 1, 1, 10]", "+I[1, 2, 1, 10]", "+I[1, 2, 1, 11]", "+I[1, 2, 1, 12]"}},
		{"other side outer", left, right, LeftJoin, []string{
			"+I[1, 10, null, null]", "-D[1, 10, null, null]", "+I[1, 10, 1, 1]", "+I[1, 11, 1, 1]",
			"-U[1, 10, 1, 1]", "+I[1, 10, null, null]", "-U[1, 11, 1, 1]", "+I[1, 11, null, null]",
			"-D[1, 10, null, null]", "+I[1, 10, 1, 2]", "-D[1, 11, null, null]", "+I[1, 11, 1, 2]",
			"+I[1, 12, 1, 2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := drain(t, joins(tt.l, tt.r, tt.kind))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestTwoInputs_watermark: the operator's watermark is the smaller of its
// inputs', handed on only when it advances; a watermark keeps its input's
// turn, a row passes it on; an input's end is its maximum watermark.
func TestTwoInputs_watermark(t *testing.T) {
	l := &listNode{sch: kv, mode: types.InsertOnly, events: []exec.Event{wm(5), row(types.Insert, int64(1), int64(1)), wm(9), row(types.Insert, int64(1), int64(2)), wm(12)}}
	r := &listNode{sch: kv, mode: types.InsertOnly, events: []exec.Event{wm(7), row(types.Insert, int64(2), int64(1)), wm(8), row(types.Insert, int64(2), int64(2)), wm(20)}}
	got := drain(t, joins(l, r, InnerJoin))
	want := []string{"wm=5", "wm=7", "wm=8", "wm=20"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestIntervalJoinNode_expiry: a left row waits until the watermark passes
// its time + -Lower, then goes out padded (LEFT JOIN) unless it met a row;
// the output watermark is held back by the larger bound.
func TestIntervalJoinNode_expiry(t *testing.T) {
	l := &listNode{sch: kv, mode: types.InsertOnly, events: []exec.Event{
		row(types.Insert, int64(1), types.Instant{Millis: 100}), row(types.Insert, int64(2), types.Instant{Millis: 110}), wm(100)}}
	r := &listNode{sch: kv, mode: types.InsertOnly, events: []exec.Event{
		row(types.Insert, int64(1), types.Instant{Millis: 105}), wm(100), wm(200)}}
	n := &IntervalJoinNode{Left: l, Right: r, Kind: LeftJoin, LeftKeys: key0, RightKeys: key0, LeftTime: 1, RightTime: 1, Lower: -10, Upper: 0}
	got := drain(t, n)
	want := []string{"+I[1, 100, 1, 105]", "wm=90", "+I[2, 110, null, null]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestJoinNode_otherEnded: in a statement whose inputs end on a scratch
// store, a row that comes after the other input ended is joined but not
// kept; the joined rows are those of a statement that keeps every row.
func TestJoinNode_otherEnded(t *testing.T) {
	// Turns: left 10, right 1, left 11, the right's end, left 12, -D 11.
	left := &listNode{sch: kv, mode: types.RetractAll, events: []exec.Event{
		row(types.Insert, int64(1), int64(10)), row(types.Insert, int64(1), int64(11)),
		row(types.Insert, int64(1), int64(12)), row(types.Delete, int64(1), int64(11))}}
	right := &listNode{sch: kv, mode: types.InsertOnly, events: []exec.Event{row(types.Insert, int64(1), int64(1))}}
	run := func(kind JoinKind, scratch bool) (out []string, kept []any) {
		opts := exec.DefaultOptions()
		opts.Scratch = scratch
		ex := exec.NewExecution(context.Background(), state.NewMem(), opts)
		st, err := joins(left, right, kind).Open(ex)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for {
			ev, err := st.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == exec.EvEnd {
				break
			}
			if ev.Kind == exec.EvRow {
				out = append(out, fmt.Sprint(ev.Row.Kind, ev.Row.Fields))
			}
		}
		b, _, err := st.(*joinStream).sides[0].Get([]byte(keycodec.Encode([]any{int64(1)})))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b.recs {
			kept = append(kept, r.fields[1])
		}
		return out, kept
	}
	for _, kind := range []JoinKind{InnerJoin, LeftJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			wantOut, wantKept := run(kind, false)
			if diff := cmp.Diff([]any{int64(10), int64(12)}, wantKept); diff != "" {
				t.Errorf("kept by a statement that goes on (-want +got):\n%s", diff)
			}
			out, kept := run(kind, true)
			if diff := cmp.Diff(wantOut, out); diff != "" {
				t.Errorf("joined rows (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]any{int64(10)}, kept); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
		})
	}
}
