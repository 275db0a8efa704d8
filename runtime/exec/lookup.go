package exec

import (
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Lookuper is a node that answers a lookup join's probes itself, as a
// Flink LookupTableSource does, instead of being read whole when the join
// starts: flink-faker's table makes a row for each key it is asked for.
type Lookuper interface {
	// OpenLookup returns the function that gives the rows whose columns
	// cols (indexes into the node's schema) hold a key's values, in the
	// order of cols. ok is false when the node cannot look up by those
	// columns (a key on a computed column): the join then reads it whole.
	OpenLookup(ex *Execution, cols []int) (fn LookupFunc, ok bool, err error)
}

// LookupFunc gives the rows of one key. The rows are the caller's.
type LookupFunc func(key []any) ([][]any, error)

// OpenLookup looks up through the node read, when it is a Lookuper and
// each key column is one of its columns, and computes the other columns
// of each row it gives.
func (n *ComputedNode) OpenLookup(ex *Execution, cols []int) (LookupFunc, bool, error) {
	in, ok := n.In.(Lookuper)
	if !ok {
		return nil, false, nil
	}
	inCols := make([]int, len(cols))
	for i, c := range cols {
		col, isCol := n.Exprs[c].(*expr.Column)
		if n.ProcTime[c] || !isCol {
			return nil, false, nil
		}
		inCols[i] = col.Index
	}
	fn, ok, err := in.OpenLookup(ex, inCols)
	if !ok || err != nil {
		return nil, ok, err
	}
	return func(key []any) ([][]any, error) {
		rows, err := fn(key)
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			out := make([]any, len(n.Exprs))
			for j, e := range n.Exprs {
				if n.ProcTime[j] {
					out[j] = types.Instant{Millis: ex.Now()}
					continue
				}
				if out[j], err = e.Eval(r); err != nil {
					return nil, err
				}
			}
			rows[i] = out
		}
		return rows, nil
	}, true, nil
}
