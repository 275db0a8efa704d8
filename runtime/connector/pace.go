package connector

import (
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// pacer makes generated rows come at a pace (rows-per-second): row k is
// due k/rate seconds after the first, so a slow consumer does not make the
// rows come faster later. The pace is wall-clock time: a source whose
// processing-time clock is fixed (SET 'ptfsh.processing-time') has no
// pacer.
type pacer struct {
	rate  int64
	made  int64     // rows made so far
	start time.Time // when the first row was made
}

// ready reports whether the next row is due, and counts it when it is;
// when it is not, it asks the driver to pull again at its time: a paced
// source never blocks ([exec.Live]).
func (p *pacer) ready(ex *exec.Execution) bool {
	if p.rate <= 0 {
		return true
	}
	if p.made == 0 {
		p.start = time.Now()
	}
	due := p.start.Add(time.Duration(float64(p.made) / float64(p.rate) * float64(time.Second)))
	if time.Until(due) > 0 {
		ex.Live().WakeAt(due)
		return false
	}
	p.made++
	return true
}

// genRows is what the datagen and faker streams share: how many rows are
// left, and the watermark that follows a row.
type genRows struct {
	left    int64 // rows still to make; -1 unbounded
	wm      *exec.WmGen
	pending bool
	wmNext  int64
}

// before returns the event that comes before the next row, if any: the
// watermark of the last row, or the end of a bounded table.
func (g *genRows) before() (exec.Event, bool) {
	if g.pending {
		g.pending = false
		return exec.Event{Kind: exec.EvWatermark, Wm: g.wmNext}, true
	}
	if g.left == 0 {
		return exec.Event{Kind: exec.EvEnd}, true
	}
	return exec.Event{}, false
}

// row counts a made row and returns its event; its watermark comes next.
func (g *genRows) row(ex *exec.Execution, fields []any) exec.Event {
	if g.left > 0 {
		g.left--
	}
	ex.RowsIn++
	r := types.Row{Kind: types.Insert, Fields: fields}
	if w, ok := g.wm.Observe(r); ok {
		g.pending, g.wmNext = true, w
	}
	return exec.Event{Kind: exec.EvRow, Row: r}
}

// addMapEntry adds k and v to a generated map unless it has the key: a
// map holds a key once, as Flink's HashMap does; seen holds the keys so
// far, as text of type kt.
func addMapEntry(m *types.Map, seen map[string]bool, k, v any, kt types.Type) {
	ks := types.FormatValue(k, kt)
	if seen[ks] {
		return
	}
	seen[ks] = true
	m.Keys, m.Values = append(m.Keys, k), append(m.Values, v)
}
