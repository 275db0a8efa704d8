package sqlop

import (
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// WindowDraw is how a window aggregation, or a window Top-N or
// deduplication over a window table function, shows in a statement's
// timeline (EXPLAIN TIMELINE, SET 'ptfsh.timeline'): a section of its
// own, a lane per key of its GROUP BY (or PARTITION BY) besides the window
// columns, as Flink's window operator works. The first row of a window
// sets the window's timer at its end - 1 ms; the watermark (or, on
// processing time, the clock) passing it fires the window, and its rows go
// out there. The window table function under the operator draws the rows,
// the watermark or the clock, and the late rows it drops; the operator
// draws the rest. Both nodes hold the same WindowDraw, which names their
// one observer.
type WindowDraw struct {
	// Name names the section: the operator and its window as EXPLAIN
	// shows them (WindowAggregate TUMBLE(time_col=[ts], size=[1 min])).
	Name string
	// TVFKeys are the columns of the window table function's input that
	// hold the key (nil: none, or the key is computed and the late rows
	// go to a lane of no key).
	TVFKeys []int
	// AggKeys are the GROUP BY expressions (WindowAggregateNode.Groups)
	// of the key, or the PARTITION BY ones (WindowRankNode.Partition).
	AggKeys []int
}

// observer returns the timeline observer of the window, or nil.
func (d *WindowDraw) observer(ex *exec.Execution, procTime bool) exec.OpObserver {
	if d == nil {
		return nil
	}
	name := d.Name
	if procTime {
		name += " on processing time"
	}
	return ex.OperatorObserver(d, name, exec.OpSection{ProcTime: procTime, Windows: true})
}

// drawKey prints the key of the given values for a lane.
func drawKey(vals []any, idx []int) string {
	if len(idx) == 0 {
		return ""
	}
	ks := make([]any, len(idx))
	for i, j := range idx {
		ks[i] = vals[j]
	}
	return exec.FormatKey(ks)
}

// rowText prints a row for a tooltip.
func rowText(fields []any, sch types.Schema) string {
	return types.FormatRow(types.Row{Kind: types.Insert, Fields: fields}, sch)
}
