package sqlop

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

func TestWindowRank(t *testing.T) {
	ts := types.Type{Kind: types.KindTimestampLTZ, Length: 3}
	big := types.Type{Kind: types.KindBigInt}
	sch := types.Schema{Columns: []types.Column{{Name: "ws", Type: ts}, {Name: "we", Type: ts}, {Name: "k", Type: big}, {Name: "v", Type: big}, {Name: "t", Type: ts, TimeAttr: true}}}
	// r is a row of window [s, s+10) of key k, value v, time at.
	r := func(s, k, v, at int64) exec.Event {
		return row(types.Insert, types.Instant{Millis: s}, types.Instant{Millis: s + 10}, k, v, types.Instant{Millis: at})
	}
	in := []exec.Event{
		r(0, 1, 3, 1), r(0, 2, 7, 1), r(0, 1, 5, 2), r(0, 1, 5, 3), r(0, 1, 1, 4), r(10, 1, 4, 12),
		wm(9),
		r(0, 1, 9, 5), // late: its window has fired
		r(10, 1, 8, 11), r(10, 1, 2, 11),
	}
	vDesc := []OrderKey{{Expr: &expr.Column{Index: 3, T: big}, Desc: true, Text: "v DESC"}}
	byKey := []expr.Expr{&expr.Column{Index: 2, T: big}}
	tests := []struct {
		name string
		node WindowRankNode
		want []string
	}{
		{"top 2 of each window, ties in arrival order", WindowRankNode{Keys: vDesc, RankStart: 1, RankEnd: 2}, []string{
			"+I[0, 10, 2, 7, 1, 1]", "+I[0, 10, 1, 5, 2, 2]", "wm=9",
			"+I[10, 20, 1, 8, 11, 1]", "+I[10, 20, 1, 4, 12, 2]",
		}},
		{"ranks 2 to 3 per key, keys in arrival order", WindowRankNode{Keys: vDesc, Partition: byKey, RankStart: 2, RankEnd: 3}, []string{
			"+I[0, 10, 1, 5, 3, 2]", "+I[0, 10, 1, 3, 1, 3]", "wm=9",
			"+I[10, 20, 1, 4, 12, 2]", "+I[10, 20, 1, 2, 11, 3]",
		}},
		{"keep the first row: earliest, first of equals", WindowRankNode{Dedup: KeepFirst, Time: 4, Partition: byKey, RankStart: 1, RankEnd: 1}, []string{
			"+I[0, 10, 1, 3, 1, 1]", "+I[0, 10, 2, 7, 1, 1]", "wm=9",
			"+I[10, 20, 1, 8, 11, 1]",
		}},
		{"keep the last row: latest, last of equals", WindowRankNode{Dedup: KeepLast, Time: 4, RankStart: 1, RankEnd: 1}, []string{
			"+I[0, 10, 1, 1, 4, 1]", "wm=9",
			"+I[10, 20, 1, 4, 12, 1]",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := tt.node
			n.In = &listNode{sch: sch, mode: types.InsertOnly, events: in}
			n.Start, n.End = 0, 1
			n.Sch = types.Schema{Columns: append(append([]types.Column(nil), sch.Columns...), types.Column{Name: "w0$o0", Type: big})}
			if diff := cmp.Diff(tt.want, drain(t, &n)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWindowRank_keepLastTakesEqualTimes(t *testing.T) {
	ts := types.Type{Kind: types.KindTimestampLTZ, Length: 3}
	big := types.Type{Kind: types.KindBigInt}
	sch := types.Schema{Columns: []types.Column{{Name: "ws", Type: ts}, {Name: "we", Type: ts}, {Name: "v", Type: big}, {Name: "t", Type: ts, TimeAttr: true}}}
	r := func(v, at int64) exec.Event {
		return row(types.Insert, types.Instant{Millis: 0}, types.Instant{Millis: 10}, v, types.Instant{Millis: at})
	}
	n := &WindowRankNode{In: &listNode{sch: sch, mode: types.InsertOnly, events: []exec.Event{r(1, 3), r(2, 3), r(3, 2)}},
		Start: 0, End: 1, Dedup: KeepLast, Time: 3, RankStart: 1, RankEnd: 1}
	if diff := cmp.Diff([]string{"+I[0, 10, 2, 3, 1]"}, drain(t, n)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
