package exec_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// runNode opens n and returns its rows (kind and fields) and the
// watermarks it passed on (as "wm N").
func runNode(t *testing.T, n exec.Node) []string {
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
		case exec.EvRow:
			out = append(out, fmt.Sprint(ev.Row.Kind.ShortString(), ev.Row.Fields))
		case exec.EvWatermark:
			out = append(out, fmt.Sprint("wm ", ev.Wm))
		}
	}
}

func rowEv(kind types.RowKind, fields ...any) exec.Event {
	return exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: kind, Fields: fields}}
}

func TestFinalNode(t *testing.T) {
	big := types.Type{Kind: types.KindBigInt}
	sch := types.Schema{Columns: []types.Column{{Name: "k", Type: types.TypeString}, {Name: "v", Type: big}}}
	for _, tc := range []struct {
		name string
		in   []exec.Event
		want []string
	}{{
		name: "updates",
		in: []exec.Event{rowEv(types.Insert, "a", int64(1)), rowEv(types.Insert, "b", int64(1)),
			rowEv(types.UpdateBefore, "a", int64(1)), rowEv(types.UpdateAfter, "a", int64(2)),
			{Kind: exec.EvWatermark, Wm: 5}, rowEv(types.Delete, "b", int64(1))},
		want: []string{"+I[a 2]"},
	}, {
		name: "equal rows: one retraction takes one",
		in: []exec.Event{rowEv(types.Insert, "a", int64(1)), rowEv(types.Insert, "a", int64(1)),
			rowEv(types.Insert, "c", nil), rowEv(types.Delete, "a", int64(1))},
		want: []string{"+I[a 1]", "+I[c <nil>]"},
	}, {
		name: "a retraction of no row",
		in:   []exec.Event{rowEv(types.Delete, "x", int64(1)), rowEv(types.Insert, "b", int64(3))},
		want: []string{"+I[b 3]"},
	}, {
		name: "no rows",
		want: nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := runNode(t, &exec.FinalNode{In: &exec.ValuesNode{Sch: sch, Events: tc.in}})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchScanNode(t *testing.T) {
	sch := types.Schema{Columns: []types.Column{{Name: "v", Type: types.Type{Kind: types.KindBigInt}}}}
	in := []exec.Event{rowEv(types.Insert, int64(1)), {Kind: exec.EvWatermark, Wm: 10}, rowEv(types.Insert, int64(2)),
		{Kind: exec.EvWatermark, Wm: exec.MaxWatermark}}
	got := runNode(t, &exec.BatchScanNode{In: &exec.ValuesNode{Sch: sch, Events: in}})
	want := []string{"+I[1]", "+I[2]", fmt.Sprint("wm ", exec.MaxWatermark)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
