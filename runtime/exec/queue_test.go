package exec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// events is a stream of the events given, then its end.
type events struct{ evs []exec.Event }

func (s *events) Next() (exec.Event, error) {
	if len(s.evs) == 0 {
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	ev := s.evs[0]
	s.evs = s.evs[1:]
	return ev, nil
}

func (s *events) Close() error { return nil }

// doubler queues each row twice, and fails at a row "bad".
type doubler struct{ q *exec.Queue }

func (d doubler) Row(r types.Row) error {
	if r.Fields[0] == "bad" {
		return errors.New("bad row")
	}
	d.q.PushRow(types.Insert, r.Fields)
	d.q.PushRow(types.UpdateAfter, r.Fields)
	return nil
}

// holder keeps its rows until a watermark or the end, and holds the
// watermark back by 10.
type holder struct {
	q    *exec.Queue
	rows [][]any
}

func (h *holder) Row(r types.Row) error {
	h.rows = append(h.rows, r.Fields)
	return nil
}

func (h *holder) Time(ev *exec.Event) error {
	for _, f := range h.rows {
		h.q.PushRow(types.Insert, f)
	}
	h.rows = h.rows[:0]
	if ev.Kind == exec.EvWatermark {
		ev.Wm -= 10
	}
	return nil
}

func row(v string) exec.Event {
	return exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: types.Insert, Fields: []any{v}}}
}

func show(ev exec.Event) string {
	switch ev.Kind {
	case exec.EvRow:
		return ev.Row.Kind.ShortString() + fmt.Sprint(ev.Row.Fields)
	case exec.EvWatermark:
		return fmt.Sprintf("wm=%d", ev.Wm)
	case exec.EvTick:
		return "tick"
	}
	return "end"
}

// drain pulls next until the end or an error.
func drain(next func() (exec.Event, error)) string {
	var out []string
	for {
		ev, err := next()
		if err != nil {
			return strings.Join(append(out, "error: "+err.Error()), " ")
		}
		out = append(out, show(ev))
		if ev.Kind == exec.EvEnd {
			return strings.Join(out, " ")
		}
	}
}

func TestQueue_Next(t *testing.T) {
	tick := exec.Event{Kind: exec.EvTick}
	wm := func(t int64) exec.Event { return exec.Event{Kind: exec.EvWatermark, Wm: t} }
	tests := []struct {
		name string
		in   []exec.Event
		hold bool // a TimeOperator that holds rows until event time moves
		want string
	}{
		{"rows", []exec.Event{row("a"), row("b")}, false, "+I[a] +U[a] +I[b] +U[b] end"},
		{"watermarks_and_ticks_pass", []exec.Event{row("a"), wm(5), tick, row("b")}, false, "+I[a] +U[a] wm=5 tick +I[b] +U[b] end"},
		{"error_after_output", []exec.Event{row("a"), row("bad"), row("c")}, false, "+I[a] +U[a] error: bad row"},
		{"time_releases_before_the_watermark", []exec.Event{row("a"), row("b"), wm(20), row("c")}, true, "+I[a] +I[b] wm=10 +I[c] end"},
		{"tick_passes_a_time_operator", []exec.Event{row("a"), tick, wm(30)}, true, "tick +I[a] wm=20 end"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q exec.Queue
			in := &events{evs: tc.in}
			var op exec.RowOperator = doubler{&q}
			if tc.hold {
				op = &holder{q: &q}
			}
			if got := drain(func() (exec.Event, error) { return q.Next(in, op) }); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestQueue_reuse: a queue emptied starts again at the beginning of its
// array and keeps no event it handed on.
func TestQueue_reuse(t *testing.T) {
	var q exec.Queue
	for round := range 3 {
		for i := range 4 {
			q.Push(row(fmt.Sprint(round, i)))
		}
		if q.Len() != 4 {
			t.Fatalf("round %d: Len = %d, want 4", round, q.Len())
		}
		for i := range 4 {
			ev, ok := q.Pop()
			if !ok || ev.Row.Fields[0] != fmt.Sprint(round, i) {
				t.Fatalf("round %d: pop %d = %v, %v", round, i, ev, ok)
			}
		}
		if _, ok := q.Pop(); ok || q.Len() != 0 {
			t.Fatalf("round %d: the queue is not empty", round)
		}
	}
}
