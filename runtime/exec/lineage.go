package exec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Lineage (SET 'ptfsh.lineage' = 'on', EXPLAIN WHY): each row a PTF call
// emits carries what led to it, the input row that its eval was called
// for or the timer whose onTimer emitted it (Event.Why), which the result
// shows in a column of its own; and at the end of the statement each call
// says why rows did not come: rows that arrived late, rows ORDER BY
// dropped, keys that never emitted, timers still pending.

// SetLineage is the setting that turns lineage on.
const SetLineage = "ptfsh.lineage"

// maxNamedKeys bounds the keys a why-not summary names.
const maxNamedKeys = 5

// lineage is what a PTF operator counts for its why-not summary.
type lineage struct {
	in, late, dropped []int64 // per input
	seen, emitted     map[string]bool
	order             []string // keys in the order they were first seen
}

func newLineage(inputs int) *lineage {
	return &lineage{in: make([]int64, inputs), late: make([]int64, inputs), dropped: make([]int64, inputs),
		seen: map[string]bool{}, emitted: map[string]bool{}}
}

// lineRow counts a row of input i arriving; dropped: ORDER BY drops it.
func (o *PtfOp) lineRow(i int, r types.Row, dropped bool) {
	l := o.lin
	if l == nil {
		return
	}
	l.in[i]++
	switch ts, ok := o.rowTime(i, r); {
	case dropped:
		l.dropped[i]++
	case ok && o.hasWM && ts <= o.wm:
		l.late[i]++
	}
	if b := &o.Node.Tables[i]; b.Set && len(b.Partition) > 0 {
		k := formatFields(keycodec.Pick(r, b.Partition))
		if !l.seen[k] {
			l.seen[k] = true
			l.order = append(l.order, k)
		}
	}
}

// cause says what led the running call to emit a row, and marks its key
// as one that emitted.
func (o *PtfOp) cause() string {
	key := ""
	if o.cur != nil && len(o.cur.key) > 0 {
		key = formatFields(o.cur.key)
		if o.lin != nil {
			o.lin.emitted[key] = true
		}
	}
	if t := o.firing; t != nil {
		var why string
		if o.wm == MaxWatermark {
			why = "the end of input fired it"
		} else if o.wm == t.time {
			why = "watermark " + timeline.FormatTime(o.wm) + " reached it"
		} else {
			why = "watermark " + timeline.FormatTime(o.wm) + " passed it"
		}
		s := fmt.Sprintf("%s at %s (%s)", timerName(t.name, t.named), timeline.FormatTime(t.time), why)
		if key != "" {
			s += ", key (" + key + ")"
		}
		return s
	}
	if o.bind == nil {
		return "the call without a table"
	}
	s := "row " + types.FormatRow(o.row, o.bind.In.Schema()) + " of " + o.sourceName(o.bi)
	if late := o.lateReason(); late != "" {
		s += ", " + late
	}
	return s
}

// WhyNot summarises, after the statement, what did not lead to output:
// rows that came late or that ORDER BY dropped, keys that never emitted,
// timers still pending. "" without lineage.
func (o *PtfOp) WhyNot() string {
	l := o.lin
	if l == nil {
		return ""
	}
	var parts []string
	for i := range o.Node.Tables {
		s := fmt.Sprintf("%s from %s", plural(l.in[i], "row"), o.sourceName(i))
		if l.late[i] > 0 {
			s += fmt.Sprintf(", %d late (at or behind the watermark when it came)", l.late[i])
		}
		if l.dropped[i] > 0 {
			s += fmt.Sprintf(", %d dropped by ORDER BY as late", l.dropped[i])
		}
		parts = append(parts, s)
	}
	var silent []string
	for _, k := range l.order {
		if !l.emitted[k] {
			silent = append(silent, "("+k+")")
		}
	}
	if n := len(silent); n > 0 {
		shown := silent[:min(n, maxNamedKeys)]
		s := fmt.Sprintf("%s never emitted: %s", plural(int64(n), "key"), strings.Join(shown, ", "))
		if n > len(shown) {
			s += fmt.Sprintf(" and %d more", n-len(shown))
		}
		parts = append(parts, s)
	}
	if n := o.timers.n; n > 0 {
		var pend []string
		for _, t := range o.timers.q {
			if !t.dead {
				pend = append(pend, fmt.Sprintf("(%s) %s at %s", formatFields(t.ks.key), timerName(t.name, t.named), timeline.FormatTime(t.time)))
			}
		}
		sort.Strings(pend)
		s := fmt.Sprintf("%s pending when the input stopped: %s", plural(int64(n), "timer"), strings.Join(pend[:min(len(pend), maxNamedKeys)], ", "))
		if len(pend) > maxNamedKeys {
			s += fmt.Sprintf(" and %d more", len(pend)-maxNamedKeys)
		}
		parts = append(parts, s)
	}
	return "why not: " + o.callName() + ": " + strings.Join(parts, "; ")
}

// LineageNode adds to its input's rows a last column, why: what led the
// PTF call to emit each row (empty for rows no call emitted).
type LineageNode struct{ In Node }

func (n *LineageNode) Schema() types.Schema {
	s := n.In.Schema()
	cols := append(append([]types.Column(nil), s.Columns...), types.Column{Name: "why", Type: types.TypeString})
	return types.Schema{Columns: cols}
}
func (n *LineageNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *LineageNode) Children() []Node               { return []Node{n.In} }
func (n *LineageNode) Explain() string                { return "Lineage(why)" }
func (n *LineageNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &lineageStream{in: in}, nil
}

type lineageStream struct{ in Stream }

func (s *lineageStream) Next() (Event, error) {
	ev, err := s.in.Next()
	if err != nil || ev.Kind != EvRow {
		return ev, err
	}
	fields := make([]any, len(ev.Row.Fields), len(ev.Row.Fields)+1)
	copy(fields, ev.Row.Fields)
	ev.Row = types.Row{Kind: ev.Row.Kind, Fields: append(fields, ev.Why)}
	return ev, nil
}

func (s *lineageStream) Close() error { return s.in.Close() }
