package sqlop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// clockStep is a scripted event of a processing-time test: the clock moves
// to at, then ev comes (an EvIdle: the input has nothing).
type clockStep struct {
	at int64
	ev exec.Event
}

// clockNode hands out its steps, moving the execution's clock before
// each.
type clockNode struct {
	sch   types.Schema
	clock *int64
	steps []clockStep
}

func (n *clockNode) Schema() types.Schema           { return n.sch }
func (n *clockNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *clockNode) Children() []exec.Node          { return nil }
func (n *clockNode) Explain() string                { return "Clock" }
func (n *clockNode) Open(*exec.Execution) (exec.Stream, error) {
	return &clockStream{n: n}, nil
}

type clockStream struct {
	n *clockNode
	i int
}

func (s *clockStream) Next() (exec.Event, error) {
	if s.i == len(s.n.steps) {
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	st := s.n.steps[s.i]
	s.i++
	*s.n.clock = st.at
	return st.ev, nil
}

func (s *clockStream) Close() error { return nil }

// TestWindowAggregate_procTime: windows on a processing-time attribute
// fire when the clock passes their end — on the next row, or while the
// input is idle — whatever the watermark; the window still open when the
// input ends is not emitted, as in Flink (checked on a Flink 2.3.0 mini
// cluster: a bounded paced datagen table's last TUMBLE window over
// PROCTIME() never fires). A stop keeps it for the next run, which fires
// it once its clock passes.
func TestWindowAggregate_procTime(t *testing.T) {
	ts := types.Type{Kind: types.KindTimestampLTZ, Length: 3}
	big := types.Type{Kind: types.KindBigInt}
	sch := types.Schema{Columns: []types.Column{
		{Name: "k", Type: big}, {Name: "pt", Type: ts, ProcTime: true},
		{Name: "window_start", Type: ts}, {Name: "window_end", Type: ts}, {Name: "window_time", Type: ts, ProcTime: true}}}
	// row is a row of key k read at clock t, in its 10 ms tumbling window.
	row := func(k, t int64) exec.Event {
		s := t - t%10
		return exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: types.Insert, Fields: []any{k, types.Instant{Millis: t}, types.Instant{Millis: s}, types.Instant{Millis: s + 10}, types.Instant{Millis: s + 9}}}}
	}
	idle := exec.Event{Kind: exec.EvIdle}
	wm := func(t int64) exec.Event { return exec.Event{Kind: exec.EvWatermark, Wm: t} }
	count := &AggCall{Fn: "COUNT", Star: true, Typ: big, Text: "COUNT(*)"}
	node := func(clock *int64, steps []clockStep) *WindowAggregateNode {
		return &WindowAggregateNode{
			In:     &clockNode{sch: sch, clock: clock, steps: steps},
			End:    3,
			Groups: []expr.Expr{&expr.Column{Index: 0, T: big}, &expr.Column{Index: 3, T: ts}},
			Calls:  []*AggCall{count},
			Outs:   []expr.Expr{&expr.Column{Index: 0, T: big}, &expr.Column{Index: 1, T: ts}, &expr.Column{Index: 2, T: big}},
			Text:   "WindowAggregate", ProcTime: true,
		}
	}
	run := func(store state.Store, endOfInput bool, steps []clockStep) string {
		var clock int64
		opts := exec.DefaultOptions()
		opts.EndOfInput = endOfInput
		ex := exec.NewExecution(context.Background(), store, opts)
		ex.Now = func() int64 { return clock }
		st, err := node(&clock, steps).Open(ex)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for {
			ev, err := st.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind == exec.EvEnd {
				break
			}
			if ev.Kind == exec.EvRow {
				out = append(out, fmt.Sprintf("@%d %s", clock, types.FormatRow(ev.Row, types.Schema{Columns: []types.Column{{Type: big}, {Type: ts}, {Type: big}}})))
			}
		}
		if err := store.Update(func(tx state.Tx) error {
			for _, s := range ex.Stateful {
				if err := s.Checkpoint(tx, endOfInput, true); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n")
	}
	store := state.NewMem()
	got := run(store, false, []clockStep{
		{1, row(1, 1)}, {3, row(2, 3)}, {5, row(1, 5)},
		{8, idle}, // the window [0, 10) is open until the clock reaches 9
		{9, idle}, // its last millisecond (Flink's maxTimestamp): both keys fire while the input is idle
		{12, row(1, 12)},
		{15, wm(1000)},   // a watermark fires nothing on processing time
		{20, row(1, 20)}, // the clock passed 19: [10, 20) fires before the row counts
		{22, row(2, 22)},
	})
	wantRows := []string{
		"@9 +I[1, 1970-01-01T00:00:00.010Z, 2]",
		"@9 +I[2, 1970-01-01T00:00:00.010Z, 1]",
		"@20 +I[1, 1970-01-01T00:00:00.020Z, 1]",
	}
	if got != strings.Join(wantRows, "\n") {
		t.Errorf("first run:\n%s\nwant:\n%s", got, strings.Join(wantRows, "\n"))
	}
	// The statement stopped (no end of input) with [20, 30) open; the next
	// run fires it once its clock passes 29, with the rows of both runs.
	got = run(store, true, []clockStep{{25, row(1, 25)}, {31, idle}, {32, row(3, 32)}})
	wantRows = []string{
		"@31 +I[1, 1970-01-01T00:00:00.030Z, 2]",
		"@31 +I[2, 1970-01-01T00:00:00.030Z, 1]",
	}
	if got != strings.Join(wantRows, "\n") {
		t.Errorf("second run (the window [30, 40) is open at the end and is not emitted):\n%s\nwant:\n%s", got, strings.Join(wantRows, "\n"))
	}
}
