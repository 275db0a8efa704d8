package sqlop

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/cep"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// resumeNode is a list of events whose read position goes into
// checkpoints, as a file source's does: a run that opens it on a store
// holding a checkpoint goes on after the position recorded there.
type resumeNode struct {
	name   string
	sch    types.Schema
	mode   types.ChangelogMode
	events []exec.Event
}

func (n *resumeNode) Schema() types.Schema           { return n.sch }
func (n *resumeNode) Changelog() types.ChangelogMode { return n.mode }
func (n *resumeNode) Children() []exec.Node          { return nil }
func (n *resumeNode) Explain() string                { return "Resume(" + n.name + ")" }

const resumeNS = "test-sources"

func (n *resumeNode) Open(ex *exec.Execution) (exec.Stream, error) {
	s := &resumeStream{n: n, ex: ex}
	err := ex.Store.View(func(tx state.Tx) error {
		b, err := tx.Get(resumeNS, []byte(n.name))
		if b != nil {
			s.pos = int(binary.BigEndian.Uint64(b))
		}
		return err
	})
	ex.Sources = append(ex.Sources, s)
	return s, err
}

type resumeStream struct {
	n   *resumeNode
	ex  *exec.Execution
	pos int
}

func (s *resumeStream) Next() (exec.Event, error) {
	if s.pos >= len(s.n.events) {
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	ev := s.n.events[s.pos]
	s.pos++
	if ev.Kind == exec.EvRow {
		s.ex.RowsIn++
	}
	return ev, nil
}

func (s *resumeStream) Close() error { return nil }

func (s *resumeStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	if finished {
		return tx.Delete(resumeNS, []byte(s.n.name))
	}
	return tx.Put(resumeNS, []byte(s.n.name), binary.BigEndian.AppendUint64(nil, uint64(s.pos)))
}

// checkpointAll takes a checkpoint of ex, as the session's checkpointer
// does: operators, then sources.
func checkpointAll(t *testing.T, ex *exec.Execution, finished, final bool) {
	t.Helper()
	err := ex.Store.Update(func(tx state.Tx) error {
		for _, op := range ex.Stateful {
			if err := op.Checkpoint(tx, finished, final); err != nil {
				return err
			}
		}
		for _, src := range ex.Sources {
			if err := src.Checkpoint(tx, finished, final); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eventText prints an event of an operator's output.
func eventText(ev exec.Event) string {
	if ev.Kind == exec.EvWatermark {
		return fmt.Sprintf("wm=%d", ev.Wm)
	}
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
	return ev.Row.Kind.ShortString() + "[" + strings.Join(f, ", ") + "]"
}

// resumeRun runs a plan on store: it hands on events until stop of them
// (-1: to the end), taking a checkpoint whenever every operator is
// quiescent and every events have passed since the last one. It returns
// the output up to the last checkpoint and, when it ran to its end, all of
// it.
func resumeRun(t *testing.T, store state.Store, opts exec.Options, n exec.Node, every, stop int) (upToCheckpoint, all []string, ended bool) {
	t.Helper()
	ex := exec.NewExecution(context.Background(), store, opts)
	st, err := n.Open(ex)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	since := 0
	for i := 0; stop < 0 || i < stop; i++ {
		ev, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == exec.EvEnd {
			checkpointAll(t, ex, opts.EndOfInput, true)
			return all, all, true
		}
		if ev.Kind == exec.EvRow || ev.Kind == exec.EvWatermark {
			all = append(all, eventText(ev))
		}
		since++
		if since >= every && ex.Quiescent() {
			checkpointAll(t, ex, false, false)
			upToCheckpoint, since = append([]string(nil), all...), 0
		}
	}
	return upToCheckpoint, all, false
}

// checkResume runs the plan that build makes without a break, then, for
// many moments, runs it until that moment (taking checkpoints), drops the
// run as a crash would, and runs it again on the same store: what the
// first run emitted up to its last checkpoint and what the second emits
// must be what the run without a break emitted.
func checkResume(t *testing.T, build func() exec.Node) {
	t.Helper()
	opts := exec.DefaultOptions()
	_, want, _ := resumeRun(t, state.NewMem(), opts, build(), 1<<30, -1)
	if len(want) == 0 {
		t.Fatal("the plan emits nothing")
	}
	// With a cache of two entries most of the state lives in the store.
	small := opts
	small.CacheSize = 2
	if _, got, _ := resumeRun(t, state.NewMem(), small, build(), 5, -1); !cmp.Equal(want, got) {
		t.Fatalf("with a cache of 2 entries the output differs (-want +got):\n%s", cmp.Diff(want, got))
	}
	for _, c := range []struct {
		opts  exec.Options
		every int
	}{{opts, 1}, {opts, 3}, {opts, 7}, {small, 1}, {small, 4}} {
		opts, every := c.opts, c.every
		for stop := 1; stop < len(want)+5; stop += 1 + stop/8 {
			store := state.NewMem()
			before, all, ended := resumeRun(t, store, opts, build(), every, stop)
			got := all
			if !ended {
				_, after, _ := resumeRun(t, store, opts, build(), every, -1)
				got = append(before, after...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("cache %d, checkpoints every %d events, killed after %d: the output differs from a run without a break (-want +got):\n%s", opts.CacheSize, every, stop, diff)
			}
		}
	}
}

// resumeEvents makes n rows of a key of keys, a value and a time that
// moves forward with some rows late, a watermark (time - 3) after every
// few rows, and, when updates, retractions of earlier rows.
func resumeEvents(seed uint64, n, keys int, updates bool) []exec.Event {
	r := rand.New(rand.NewPCG(seed, 7))
	var evs []exec.Event
	var live [][]any
	ts := int64(100)
	for i := range n {
		ts += int64(r.IntN(3))
		t := ts - int64(r.IntN(4))
		if updates && len(live) > 0 && r.IntN(4) == 0 {
			j := r.IntN(len(live))
			old := live[j]
			live = append(live[:j], live[j+1:]...)
			if r.IntN(2) == 0 {
				evs = append(evs, row(types.Delete, old...))
				continue
			}
			nw := []any{old[0], int64(i), old[2]}
			evs = append(evs, row(types.UpdateBefore, old...), row(types.UpdateAfter, nw...))
			live = append(live, nw)
			continue
		}
		f := []any{int64(r.IntN(keys)), int64(i), types.Instant{Millis: t}}
		if r.IntN(17) == 0 {
			f[0] = nil
		}
		evs = append(evs, row(types.Insert, f...))
		live = append(live, f)
		if r.IntN(3) == 0 {
			evs = append(evs, wm(ts-3))
		}
	}
	return evs
}

// kvt is the schema of resumeEvents' rows.
var kvt = types.Schema{Columns: []types.Column{
	{Name: "k", Type: types.Type{Kind: types.KindBigInt}},
	{Name: "v", Type: types.Type{Kind: types.KindBigInt}},
	{Name: "ts", Type: types.Type{Kind: types.KindTimestampLTZ}},
}}

func kvtJoinSchema() types.Schema {
	return types.Schema{Columns: append(append([]types.Column(nil), kvt.Columns...), kvt.Columns...)}
}

func TestJoinNode_resume(t *testing.T) {
	for _, kind := range []JoinKind{InnerJoin, LeftJoin, FullJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			checkResume(t, func() exec.Node {
				l := &resumeNode{name: "l", sch: kvt, mode: types.RetractAll, events: resumeEvents(1, 60, 4, true)}
				r := &resumeNode{name: "r", sch: kvt, mode: types.RetractAll, events: resumeEvents(2, 50, 4, true)}
				return &JoinNode{Left: l, Right: r, Kind: kind, LeftKeys: key0, RightKeys: key0, Sch: kvtJoinSchema()}
			})
		})
	}
}

// vBelow is the condition left.v < right.v + 20 over a left row of kvt
// followed by a right row of kvt.
type vBelow struct{}

func (vBelow) Eval(row []any) (any, error) {
	l, r := row[1], row[4]
	if l == nil || r == nil {
		return nil, nil
	}
	return l.(int64) < r.(int64)+20, nil
}
func (vBelow) Type() types.Type { return types.Type{Kind: types.KindBoolean} }
func (vBelow) IsConstant() bool { return false }

func TestSemiJoinNode_resume(t *testing.T) {
	for _, c := range []struct {
		name     string
		anti     bool
		nullSafe bool
		cond     expr.Expr
	}{{"semi", false, false, nil}, {"anti", true, false, nil}, {"semi cond", false, false, vBelow{}}, {"anti null-safe cond", true, true, vBelow{}}} {
		t.Run(c.name, func(t *testing.T) {
			checkResume(t, func() exec.Node {
				l := &resumeNode{name: "l", sch: kvt, mode: types.RetractAll, events: resumeEvents(7, 60, 4, true)}
				r := &resumeNode{name: "r", sch: kvt, mode: types.RetractAll, events: resumeEvents(8, 50, 4, true)}
				return &SemiJoinNode{Left: l, Right: r, Anti: c.anti, NullSafe: c.nullSafe, LeftKeys: key0, RightKeys: key0, Cond: c.cond}
			})
		})
	}
}

func TestIntervalJoinNode_resume(t *testing.T) {
	for _, kind := range []JoinKind{InnerJoin, LeftJoin, FullJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			checkResume(t, func() exec.Node {
				l := &resumeNode{name: "l", sch: kvt, mode: types.InsertOnly, events: resumeEvents(3, 80, 4, false)}
				r := &resumeNode{name: "r", sch: kvt, mode: types.InsertOnly, events: resumeEvents(4, 70, 4, false)}
				return &IntervalJoinNode{Left: l, Right: r, Kind: kind, LeftKeys: key0, RightKeys: key0, LeftTime: 2, RightTime: 2,
					Lower: -4, Upper: 2, Sch: kvtJoinSchema()}
			})
		})
	}
}

func TestTemporalJoinNode_resume(t *testing.T) {
	for _, kind := range []JoinKind{InnerJoin, LeftJoin} {
		t.Run(kind.String(), func(t *testing.T) {
			checkResume(t, func() exec.Node {
				l := &resumeNode{name: "l", sch: kvt, mode: types.InsertOnly, events: resumeEvents(5, 80, 4, false)}
				r := &resumeNode{name: "r", sch: kvt, mode: types.RetractAll, events: resumeEvents(6, 60, 4, true)}
				return &TemporalJoinNode{Left: l, Right: r, Kind: kind, LeftKeys: key0, RightKeys: key0, LeftTime: 2, RightTime: 2, Sch: kvtJoinSchema()}
			})
		})
	}
}

var (
	bigT  = types.Type{Kind: types.KindBigInt}
	col1  = &expr.Column{Index: 1, T: bigT}
	col2  = &expr.Column{Index: 2, T: types.Type{Kind: types.KindTimestampLTZ}}
	sumV  = &AggCall{Fn: "SUM", Arg: col1, ArgType: bigT, Typ: bigT, Text: "SUM(v)"}
	minV  = &AggCall{Fn: "MIN", Arg: col1, ArgType: bigT, Typ: bigT, Text: "MIN(v)"}
	vDesc = []OrderKey{{Expr: col1, Desc: true, Text: "v DESC"}}
)

// kvtPlus is kvt with more BIGINT columns named after cols.
func kvtPlus(cols ...string) types.Schema {
	sch := types.Schema{Columns: append([]types.Column(nil), kvt.Columns...)}
	for _, c := range cols {
		sch.Columns = append(sch.Columns, types.Column{Name: c, Type: bigT})
	}
	return sch
}

func insertOnly(name string, seed uint64, n, keys int) *resumeNode {
	return &resumeNode{name: name, sch: kvt, mode: types.InsertOnly, events: resumeEvents(seed, n, keys, false)}
}

func updating(name string, seed uint64, n, keys int) *resumeNode {
	return &resumeNode{name: name, sch: kvt, mode: types.RetractAll, events: resumeEvents(seed, n, keys, true)}
}

func TestOverNode_resume(t *testing.T) {
	for _, frame := range []OverFrame{{Rows: true, Preceding: 2}, {Preceding: 3}, {Rows: true, Unbounded: true}} {
		t.Run(frame.String(), func(t *testing.T) {
			checkResume(t, func() exec.Node {
				return &OverNode{In: insertOnly("in", 7, 120, 4), Partition: key0, Time: 2, Frame: frame,
					Calls: []*OverCall{
						{Fn: "SUM", Agg: sumV, Typ: bigT},
						{Fn: "MIN", Agg: minV, Typ: bigT},
						{Fn: "ROW_NUMBER", Typ: bigT},
						{Fn: "LAG", Arg: col1, Offset: 1, Typ: bigT},
						{Fn: "LAST_VALUE", Arg: col1, Typ: bigT},
					},
					Sch: kvtPlus("s", "m", "rn", "lag", "last")}
			})
		})
	}
}

func TestOverSortedNode_resume(t *testing.T) {
	checkResume(t, func() exec.Node {
		return &OverSortedNode{In: insertOnly("in", 8, 60, 3), Partition: key0, Keys: []OrderKey{{Expr: col1, Text: "v"}},
			Calls: []*OverCall{{Fn: "SUM", Agg: sumV, Arg: col1, Typ: bigT}}, Sch: kvtPlus("s")}
	})
}

func TestRankNode_resume(t *testing.T) {
	for _, number := range []bool{true, false} {
		t.Run(fmt.Sprint(number), func(t *testing.T) {
			checkResume(t, func() exec.Node {
				return &RankNode{In: insertOnly("in", 9, 100, 4), Partition: key0, Keys: vDesc, Start: 1, End: 2, Number: number, Sch: kvtPlus("rn")}
			})
		})
	}
}

func TestDedupLastNode_resume(t *testing.T) {
	checkResume(t, func() exec.Node {
		return &DedupLastNode{In: insertOnly("in", 10, 100, 5), Partition: key0, Time: 2, Sch: kvtPlus("rn")}
	})
}

func TestRetractRankNode_resume(t *testing.T) {
	checkResume(t, func() exec.Node {
		return &RetractRankNode{In: updating("in", 11, 100, 3), Partition: key0, Keys: vDesc, Start: 1, End: 2, Number: true, Sch: kvtPlus("rn")}
	})
}

func TestTopNNode_resume(t *testing.T) {
	for _, c := range []struct{ n, offset int64 }{{3, 0}, {1, 0}, {2, 1}} {
		t.Run(fmt.Sprint(c.n, c.offset), func(t *testing.T) {
			checkResume(t, func() exec.Node {
				return &TopNNode{In: insertOnly("in", 12, 100, 4), Keys: vDesc, N: c.n, Offset: c.offset}
			})
		})
	}
}

func TestRetractTopNNode_resume(t *testing.T) {
	checkResume(t, func() exec.Node {
		return &RetractTopNNode{In: updating("in", 13, 100, 4), Keys: vDesc, N: 3}
	})
}

func TestTemporalSortNode_resume(t *testing.T) {
	checkResume(t, func() exec.Node {
		return &TemporalSortNode{In: insertOnly("in", 14, 100, 4), Time: 2, Keys: []OrderKey{{Expr: col2, Text: "ts"}, {Expr: col1, Desc: true, Text: "v DESC"}}}
	})
}

// TestComputedWatermark_resume: a watermark declared on a computed column
// is assigned after the source, and its generator goes into checkpoints,
// so that a row read again after a crash is late, or not, as it was
// before. A restarted run emits the watermark it had emitted again, as
// Restored: the operators take it as their event time and fire nothing,
// so that a row that came after it still waits for the next watermark.
// Each operator after it emits the same rows with or without a break
// (without the generator in the checkpoint, a late row read first after a
// restart opened a window that had fired; with the watermark fired again,
// an OVER emitted a row that waited for the next one). The runs are
// compared by their rows: a sink sees no watermarks.
func TestComputedWatermark_resume(t *testing.T) {
	ts := types.Type{Kind: types.KindTimestampLTZ, Length: 3}
	win := types.Schema{Columns: append(append([]types.Column(nil), kvt.Columns...),
		types.Column{Name: "window_start", Type: ts}, types.Column{Name: "window_end", Type: ts}, types.Column{Name: "window_time", Type: ts})}
	count := &AggCall{Fn: "COUNT", Star: true, Typ: bigT, Text: "COUNT(*)"}
	computed := func() exec.Node {
		var rows []exec.Event
		for _, ev := range resumeEvents(11, 150, 3, false) {
			if ev.Kind == exec.EvRow {
				rows = append(rows, ev)
			}
		}
		src := &resumeNode{name: "rows", sch: kvt, mode: types.InsertOnly, events: rows}
		return &exec.ComputedNode{In: src, Sch: kvt,
			Exprs:    []expr.Expr{&expr.Column{Index: 0, T: bigT}, col1, col2},
			ProcTime: make([]bool, 3), Texts: []string{"k", "v", "ts"},
			Wm: &exec.WatermarkSpec{Column: 2, Delay: 1, Expr: "ts - 1"}, Every: 1}
	}
	plans := map[string]func() exec.Node{
		"window": func() exec.Node {
			tvf := &WindowTVFNode{In: computed(), Spec: WindowSpec{Kind: Tumble, Size: 3}, Time: 2, DropLate: true, Sch: win, Text: "TUMBLE"}
			return &WindowAggregateNode{In: tvf, End: 4,
				Groups: []expr.Expr{&expr.Column{Index: 0, T: bigT}, &expr.Column{Index: 3, T: ts}},
				Calls:  []*AggCall{count},
				Outs:   []expr.Expr{&expr.Column{Index: 0, T: bigT}, &expr.Column{Index: 1, T: ts}, &expr.Column{Index: 2, T: bigT}},
				Text:   "WindowAggregate"}
		},
		"over": func() exec.Node {
			return &OverNode{In: computed(), Partition: key0, Time: 2, Frame: OverFrame{Rows: true, Preceding: 2},
				Calls: []*OverCall{{Fn: "SUM", Agg: sumV, Typ: bigT}}, Sch: kvtPlus("s")}
		},
		"temporal_sort": func() exec.Node {
			return &TemporalSortNode{In: computed(), Time: 2, Keys: vDesc}
		},
	}
	rows := func(evs []string) []string {
		var out []string
		for _, e := range evs {
			if !strings.HasPrefix(e, "wm=") {
				out = append(out, e)
			}
		}
		return out
	}
	for name, build := range plans {
		t.Run(name, func(t *testing.T) {
			opts := exec.DefaultOptions()
			_, all, _ := resumeRun(t, state.NewMem(), opts, build(), 1<<30, -1)
			want := rows(all)
			if len(want) == 0 {
				t.Fatal("the plan emits nothing")
			}
			for stop := 1; stop < len(all); stop++ {
				store := state.NewMem()
				before, _, _ := resumeRun(t, store, opts, build(), 1, stop)
				_, after, _ := resumeRun(t, store, opts, build(), 1, -1)
				if diff := cmp.Diff(want, rows(append(before, after...))); diff != "" {
					t.Fatalf("killed after %d events: the rows differ from a run without a break (-want +got):\n%s", stop, diff)
				}
			}
		})
	}
}

// TestRestoredWatermark_firesNothing: a watermark emitted again after a
// restart (Restored) is one every operator had before the checkpoint: a
// row that came after it, behind it, still waits for the next watermark,
// as in a run without a break. OVER keeps the row of key 2 at time 3 (its
// partition has not fired), ORDER BY the row at time 4 (after the last
// rows it released): neither goes out at the restored watermark 5, both
// at 6.
func TestRestoredWatermark_firesNothing(t *testing.T) {
	at := func(k, v, ts int64) exec.Event { return row(types.Insert, k, v, types.Instant{Millis: ts}) }
	restored := exec.WatermarkEvent(5, true)
	cases := map[string]struct {
		build func(in exec.Node) exec.Node
		in    []exec.Event
		want  []string
	}{
		"over": {
			build: func(in exec.Node) exec.Node {
				return &OverNode{In: in, Partition: key0, Time: 2, Frame: OverFrame{Rows: true, Preceding: 2},
					Calls: []*OverCall{{Fn: "ROW_NUMBER", Typ: bigT}}, Sch: kvtPlus("rn")}
			},
			in:   []exec.Event{at(1, 10, 5), wm(5), at(2, 20, 3), restored, wm(6)},
			want: []string{"+I[1, 10, 5, 1]", "wm=5", "wm=5", "+I[2, 20, 3, 1]", "wm=6"},
		},
		"temporal_sort": {
			build: func(in exec.Node) exec.Node { return &TemporalSortNode{In: in, Time: 2, Keys: vDesc} },
			in:    []exec.Event{at(1, 10, 3), wm(3), at(2, 20, 4), restored, wm(6)},
			want:  []string{"+I[1, 10, 3]", "wm=3", "wm=5", "+I[2, 20, 4]", "wm=6"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			in := &resumeNode{name: "in", sch: kvt, mode: types.InsertOnly, events: c.in}
			opts := exec.DefaultOptions()
			opts.EndOfInput = false
			_, got, _ := resumeRun(t, state.NewMem(), opts, c.build(in), 1<<30, -1)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

// modIs is the DEFINE condition v % 3 = r over its one slot.
type modIs struct{ r int64 }

func (m modIs) Eval(vals []any) (any, error) {
	if vals[0] == nil {
		return nil, nil
	}
	return vals[0].(int64)%3 == m.r, nil
}
func (modIs) Type() types.Type { return types.Type{Kind: types.KindBoolean} }
func (modIs) IsConstant() bool { return false }

// TestMatchNode_resume: MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts,
// PATTERN (A B+ C), each variable a remainder of v by 3, MEASURES
// FIRST(A.v), LAST(C.v)) keeps its partitions' matchers, waiting rows and
// held rows in the store: killed at every moment, it resumes from its
// last checkpoint.
func TestMatchNode_resume(t *testing.T) {
	for _, skip := range []cep.SkipKind{cep.SkipPastLastRow, cep.SkipToNextRow} {
		t.Run(fmt.Sprint(skip), func(t *testing.T) {
			nfa, err := cep.Compile(cep.Spec{Vars: []cep.Var{{Name: "A", Min: 1, Max: 1}, {Name: "B", Min: 1, Max: -1}, {Name: "C", Min: 1, Max: 1}}, Skip: skip})
			if err != nil {
				t.Fatal(err)
			}
			var defines []*MatchExpr
			for v := range 3 {
				defines = append(defines, &MatchExpr{Expr: modIs{int64(v)}, Slots: []MatchSlot{{Var: v, Col: 1}}})
			}
			measure := func(v int, first bool) *MatchExpr {
				return &MatchExpr{Expr: &expr.Column{Index: 0, T: bigT}, Slots: []MatchSlot{{Var: v, First: first, Col: 1}}}
			}
			sch := types.Schema{Columns: []types.Column{{Name: "k", Type: bigT}, {Name: "a", Type: bigT}, {Name: "c", Type: bigT}}}
			checkResume(t, func() exec.Node {
				return &MatchNode{In: insertOnly("in", 15, 300, 3), Partition: []int{0}, Time: 2,
					Keys: []OrderKey{{Expr: col2, Text: "ts"}, {Expr: col1, Text: "v"}},
					NFA:  nfa, Defines: defines, Measures: []*MatchExpr{measure(0, true), measure(2, false)}, Sch: sch}
			})
		})
	}
}
