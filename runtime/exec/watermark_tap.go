package exec

import (
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// WatermarkTapNode passes its input on as it is and keeps the last
// watermark that went by in Cell, which CURRENT_WATERMARK in the
// expressions above it reads: a row sees the watermark of the rows before
// it, as in Flink's operator.
type WatermarkTapNode struct {
	In   Node
	Cell *expr.WatermarkCell
}

var _ Node = (*WatermarkTapNode)(nil)

func (n *WatermarkTapNode) Schema() types.Schema           { return n.In.Schema() }
func (n *WatermarkTapNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *WatermarkTapNode) Children() []Node               { return n.In.Children() }
func (n *WatermarkTapNode) Explain() string                { return n.In.Explain() }

// UpsertKey is the input's: the tap changes no row.
func (n *WatermarkTapNode) UpsertKey() []int { return UpsertKeyOf(n.In) }

func (n *WatermarkTapNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	*n.Cell = expr.WatermarkCell{}
	return &watermarkTap{in: in, cell: n.Cell}, nil
}

type watermarkTap struct {
	in   Stream
	cell *expr.WatermarkCell
}

func (s *watermarkTap) Next() (Event, error) {
	ev, err := s.in.Next()
	if err == nil && ev.Kind == EvWatermark && (!s.cell.Has || ev.Wm > s.cell.Wm) {
		s.cell.Wm, s.cell.Has = ev.Wm, true
	}
	return ev, err
}

func (s *watermarkTap) Close() error { return s.in.Close() }
