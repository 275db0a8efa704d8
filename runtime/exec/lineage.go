package exec

import "github.com/ptfsh/ptfsh/runtime/types"

// LineageNode adds to its input's rows a last column, why: what led the
// PTF call to emit each row (empty for rows no call emitted).
type LineageNode struct{ In Node }

var _ Node = (*LineageNode)(nil)

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

var _ Stream = (*lineageStream)(nil)

func (s *lineageStream) Next() (Event, error) {
	ev, err := s.in.Next()
	if err != nil || ev.Kind != EvRow {
		return ev, err
	}
	fields := make([]any, len(ev.Row.Fields), len(ev.Row.Fields)+1)
	copy(fields, ev.Row.Fields)
	ev.Row = types.Row{Kind: ev.Row.Kind, Fields: append(fields, ev.Why())}
	return ev, nil
}

func (s *lineageStream) Close() error { return s.in.Close() }
