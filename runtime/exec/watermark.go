package exec

import (
	"math"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// MaxWatermark is the watermark of the end of a bounded input (Flink's
// Long.MAX_VALUE): it fires every timer left and flushes sort buffers.
const MaxWatermark = math.MaxInt64

// WmGen emits a table's watermarks as Flink's test harness does with
// on-event emission: after a row, the WATERMARK expression evaluated on it
// (column - delay), when that is larger than the last one emitted, so the
// watermark is monotonic: max(ts) - delay. With every > 1 it emits only
// after every N rows (coarser, as a periodic assigner would).
type WmGen struct {
	col     int       // the time column
	on      expr.Expr // or the time computed from the row (WatermarkSpec.On)
	delay   int64     // milliseconds
	every   int64     // emit after every N rows (1: each row)
	rows    int64
	max     int64 // the largest candidate seen
	emitted int64 // the last watermark emitted
	has     bool  // emitted at least one
	seen    bool  // a candidate is pending
}

func NewWMGen(spec *WatermarkSpec, every int64) *WmGen {
	if spec == nil {
		return nil
	}
	if every < 1 {
		every = 1
	}
	return &WmGen{col: spec.Column, on: spec.On, delay: int64(spec.Delay), every: every, max: math.MinInt64}
}

// WmState is what a checkpoint keeps of a watermark generator.
type WmState struct {
	Rows    int64 `json:"rows"`
	Max     int64 `json:"max"`
	Emitted int64 `json:"emitted"`
	Has     bool  `json:"has"`
	Seen    bool  `json:"seen"`
}

// State returns the generator's state for a checkpoint.
func (g *WmGen) State() WmState {
	return WmState{Rows: g.rows, Max: g.max, Emitted: g.emitted, Has: g.has, Seen: g.seen}
}

// Restore takes the generator back to a checkpointed state.
func (g *WmGen) Restore(s WmState) {
	g.rows, g.max, g.emitted, g.has, g.seen = s.Rows, s.Max, s.Emitted, s.Has, s.Seen
}

// Observe takes a row and reports a watermark to emit after it, if any.
func (g *WmGen) Observe(r types.Row) (int64, bool) {
	if g == nil {
		return 0, false
	}
	if ts, ok := g.time(r); ok {
		if c := ts - g.delay; c > g.max {
			g.max, g.seen = c, true
		}
	}
	g.rows++
	if g.rows%g.every != 0 || !g.seen || (g.has && g.max <= g.emitted) {
		return 0, false
	}
	g.emitted, g.has, g.seen = g.max, true, false
	return g.max, true
}

// time is the row's time: its time column, or On over its columns.
func (g *WmGen) time(r types.Row) (int64, bool) {
	if g.on == nil {
		return types.TimeMillis(r.Fields[g.col])
	}
	return timeOn(g.on, r)
}

// Time is the time of row r that the watermark follows: its time column,
// or On over its columns. An error in On is the computed column's, which
// the row meets again when the column is computed: here the row has no
// time.
func (w *WatermarkSpec) Time(r types.Row) (int64, bool) {
	if w.On == nil {
		return types.TimeMillis(r.Fields[w.Column])
	}
	return timeOn(w.On, r)
}

func timeOn(on expr.Expr, r types.Row) (int64, bool) {
	v, err := on.Eval(r.Fields)
	if err != nil {
		return 0, false
	}
	return types.TimeMillis(v)
}

// Explicit records a watermark written into the data; it reports whether
// it moves the watermark forward (a watermark never goes back).
func (g *WmGen) Explicit(ts int64) bool {
	if g == nil {
		return true
	}
	if g.has && ts <= g.emitted {
		return false
	}
	g.emitted, g.has = ts, true
	if ts > g.max {
		g.max = ts
	}
	return true
}

// WatermarkSpec is a bounded-out-of-orderness watermark: column - delay.
type WatermarkSpec struct {
	Column int
	Delay  types.Duration
	Expr   string
	// On, when set, computes the time from the row a source reads, for a
	// WATERMARK on a computed column that the planner pushed into the
	// source (as Flink does into a Kafka source, whose partitions each
	// have their own watermark); Column is then not a column of the row.
	On expr.Expr
}
