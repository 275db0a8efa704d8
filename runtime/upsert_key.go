package runtime

import "github.com/ptfsh/ptfsh/runtime/expr"

// Upsert keys through the relational nodes of exec.go and plan.go, so
// that a GROUP BY or a primary-key source keeps its key under a view's
// column names, a WHERE and a projection that keeps the key columns (a
// PTF partitioned by it then gets the upsert form, and the table result
// mode materialises by it). They live here rather than beside the nodes
// to keep the changelog work out of files others are changing.

// upsertKey is the input's: renaming keeps the columns in place.
func (n *renameNode) upsertKey() []int { return upsertKeyOf(n.in) }

// upsertKey is the input's: a filter removes rows, not columns.
func (n *filterNode) upsertKey() []int { return upsertKeyOf(n.in) }

// upsertKey is the input's key mapped to the output columns that copy
// its columns, or nil when one of them is not selected as it is.
func (n *projectNode) upsertKey() []int {
	in := upsertKeyOf(n.in)
	if in == nil {
		return nil
	}
	key := make([]int, len(in))
	for k, c := range in {
		key[k] = -1
		for j, x := range n.exprs {
			if ce, ok := x.(*expr.Column); ok && ce.Index == c {
				key[k] = j
				break
			}
		}
		if key[k] < 0 {
			return nil
		}
	}
	return key
}
