package exec

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// ComputedNode gives a table's rows their computed columns (CREATE TABLE
// ... name AS expr): In reads the other columns, and each output column
// is either one of In's (Exprs[i] a column reference), an expression over
// them, or the processing time (ProcTime[i]: PROCTIME(), the Execution's
// clock Now when the row is read). A WATERMARK on a computed column is
// applied here, after the row is computed (Wm); one on a column the
// source reads is the source's.
type ComputedNode struct {
	In       Node
	Sch      types.Schema
	Exprs    []expr.Expr // nil where ProcTime is set
	ProcTime []bool
	Texts    []string
	Wm       *WatermarkSpec
	Every    int64
}

var _ Node = (*ComputedNode)(nil)

func (n *ComputedNode) Schema() types.Schema           { return n.Sch }
func (n *ComputedNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *ComputedNode) Children() []Node               { return []Node{n.In} }
func (n *ComputedNode) Explain() string {
	s := "Calc(select=[" + strings.Join(n.Texts, ", ") + "])"
	if n.Wm != nil {
		s = "WatermarkAssigner(rowtime=[" + n.Sch.Columns[n.Wm.Column].Name + "], watermark=[" + n.Wm.Expr + "]) <- " + s
	}
	return s
}

func (n *ComputedNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &computedStream{n: n, in: in, ex: ex, wm: NewWMGen(n.Wm, n.Every)}, nil
}

type computedStream struct {
	n   *ComputedNode
	in  Stream
	ex  *Execution
	wm  *WmGen
	out Queue // the watermark that follows a row
}

func (s *computedStream) Next() (Event, error) {
	if ev, ok := s.out.Pop(); ok {
		return ev, nil
	}
	ev, err := s.in.Next()
	if err != nil || ev.Kind != EvRow {
		if err == nil && ev.Kind == EvWatermark && s.wm != nil {
			// The source has no watermark of its own here; an explicit one
			// (a VALUES step) still moves it.
			if !s.wm.Explicit(ev.Wm) {
				return s.Next()
			}
		}
		return ev, err
	}
	out := make([]any, len(s.n.Exprs))
	var now any
	for i, e := range s.n.Exprs {
		if s.n.ProcTime[i] {
			if now == nil {
				now = types.Instant{Millis: s.ex.Now()}
			}
			out[i] = now
			continue
		}
		if out[i], err = e.Eval(ev.Row.Fields); err != nil {
			return ev, err
		}
	}
	ev.Row = types.Row{Kind: ev.Row.Kind, Fields: out}
	if w, ok := s.wm.Observe(ev.Row); ok {
		s.out.Push(Event{Kind: EvWatermark, Wm: w})
	}
	return ev, nil
}

func (s *computedStream) Close() error { return s.in.Close() }
