package exec

import "github.com/ptfsh/ptfsh/runtime/expr"

// Upsert keys through the relational nodes of exec.go and plan.go, so
// that a GROUP BY or a primary-key source keeps its key under a view's
// column names, a WHERE and a projection that keeps the key columns (a
// PTF partitioned by it then gets the upsert form, and the table result
// mode materialises by it). They live here rather than beside the nodes
// to keep the changelog work out of files others are changing.

// UpsertKey is the input's: renaming keeps the columns in place.
func (n *RenameNode) UpsertKey() []int { return UpsertKeyOf(n.In) }

// UpsertKey is the input's: a filter removes rows, not columns.
func (n *FilterNode) UpsertKey() []int { return UpsertKeyOf(n.In) }

// UpsertKey is the input's key mapped to the output columns that copy
// its columns, or nil when one of them is not selected as it is.
func (n *ProjectNode) UpsertKey() []int {
	in := UpsertKeyOf(n.In)
	if in == nil {
		return nil
	}
	key := make([]int, len(in))
	for k, c := range in {
		key[k] = -1
		for j, x := range n.Exprs {
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

// UpsertKey is the input's: a LIMIT passes rows through as they are.
func (n *LimitNode) UpsertKey() []int { return UpsertKeyOf(n.In) }
