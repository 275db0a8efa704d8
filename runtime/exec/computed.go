package exec

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// ComputedNode gives a table's rows their computed columns (CREATE TABLE
// ... name AS expr): In reads the other columns, and each output column
// is either one of In's (Exprs[i] a column reference), an expression over
// them, or the processing time (ProcTime[i]: PROCTIME(), the Execution's
// clock Now when the row is read). A WATERMARK on a computed column is
// applied here, after the row is computed (Wm); one on a column the
// source reads is the source's. Like a source's, the watermark generator
// goes into checkpoints while the statement runs: a run restarted after a
// crash emits the watermark it had emitted before the first row it reads
// again, so those rows are late, or not, as they were before the crash.
type ComputedNode struct {
	In       Node
	Sch      types.Schema
	Exprs    []expr.Expr // nil where ProcTime is set
	ProcTime []bool
	Texts    []string
	Wm       *WatermarkSpec
	Every    int64
	// Pushed is the WATERMARK on a computed column that the source
	// assigns instead (connector.WatermarkPushDown), for Explain.
	Pushed *WatermarkSpec
}

var _ Node = (*ComputedNode)(nil)

func (n *ComputedNode) Schema() types.Schema           { return n.Sch }
func (n *ComputedNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *ComputedNode) Children() []Node               { return []Node{n.In} }
func (n *ComputedNode) Explain() string {
	s := "Calc(select=[" + strings.Join(n.Texts, ", ") + "])"
	if w := cmp.Or(n.Wm, n.Pushed); w != nil {
		s = "WatermarkAssigner(rowtime=[" + n.Sch.Columns[w.Column].Name + "], watermark=[" + w.Expr + "]) <- " + s
	}
	return s
}

func (n *ComputedNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := &computedStream{n: n, in: in, ex: ex, wm: NewWMGen(n.Wm, n.Every)}
	if s.wm != nil && ex.Store != nil {
		ex.assigners++
		key := ex.StatementKey
		if key == "" {
			key = "-"
		}
		// Not an OperatorNamespace: the operators' numbers stay those of
		// state files written before assigners kept their watermark.
		s.ns = fmt.Sprintf("op/%s/wm-%d", key, ex.assigners)
		if err := s.restore(); err != nil {
			in.Close()
			return nil, err
		}
		ex.Stateful = append(ex.Stateful, s)
	}
	return s, nil
}

type computedStream struct {
	n   *ComputedNode
	in  Stream
	ex  *Execution
	wm  *WmGen
	out Queue  // the watermark that follows a row
	ns  string // where checkpoints keep wm's state
}

// wmGenKey holds a watermark assigner's generator in its namespace.
var wmGenKey = []byte("gen")

// restore takes the generator back to the last checkpoint of a statement
// that was still running, and queues the watermark it had emitted.
func (s *computedStream) restore() error {
	var b []byte
	err := s.ex.Store.View(func(tx state.Tx) error {
		var err error
		b, err = tx.Get(s.ns, wmGenKey)
		return err
	})
	if err != nil || b == nil {
		return err
	}
	var st WmState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("the state %q: the watermark of %s: %w", s.ns, s.n.Sch.Columns[s.n.Wm.Column].Name, err)
	}
	s.wm.Restore(st)
	if st.Has {
		s.out.Push(WatermarkEvent(st.Emitted, true))
	}
	return nil
}

// Checkpoint keeps the generator while the statement runs; the final
// checkpoint forgets it, as a source forgets its watermark, so that the
// next run starts without one.
func (s *computedStream) Checkpoint(tx state.Tx, finished, final bool) error {
	if finished || final {
		return tx.Delete(s.ns, wmGenKey)
	}
	b, err := json.Marshal(s.wm.State())
	if err != nil {
		return err
	}
	return tx.Put(s.ns, wmGenKey, b)
}

// Quiescent: no watermark waits in out, so that every operator has each
// watermark the generator emitted when a checkpoint is taken (a restore
// emits the last one again as Restored).
func (s *computedStream) Quiescent() bool { return s.out.Len() == 0 }

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
