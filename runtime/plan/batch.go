package plan

import (
	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Batch mode (SET 'execution.runtime-mode' = 'batch', connector.Env.Batch)
// plans a query over bounded tables as Flink's batch planner does: it
// refuses what Flink refuses there, with Flink's messages, reads each
// table without its watermarks (no row is late; windows and timers fire
// at the end of the input), and gives final rows only. GROUP BY is a hash
// aggregation that emits each group once at the end, sorted by the group
// values (sqlop.AggregateNode.Final); ORDER BY sorts fully, with LIMIT
// keeping the first rows (sqlop.SortNode); a ROW_NUMBER Top-N or
// deduplication sorts by the partition and the order keys
// (sqlop.BatchRankNode), an OVER window by partition and its order
// (batchOver, over.go); a regular join builds a hash table of its right
// input and probes it with its left (sqlop.JoinNode.Hash). Whatever still
// makes updates is made into its final rows at the root
// (exec.FinalNode).

// flinkName is a table's name as Flink's messages spell it: its full
// identifier in Flink's default catalog and database.
func flinkName(t *catalog.Table) string {
	return "default_catalog.default_database." + t.Name
}

// batchScan checks that the table t, read by n, may be read in batch
// mode, as Flink's DynamicSourceUtils.validateScanSourceForBatch does, and
// reads it without its watermarks.
func batchScan(t *catalog.Table, n exec.Node, pos sqlmini.Pos) (exec.Node, error) {
	scan := n
	if c, ok := n.(*exec.ComputedNode); ok {
		scan = c.In
	}
	if connector.Unbounded(scan) {
		return nil, sqlmini.Errorf(pos, "Querying an unbounded table '%s' in batch mode is not allowed. The table source is unbounded. (Bound it, with 'number-of-rows' or 'scan.bounded.mode', or SET 'execution.runtime-mode' = 'streaming'.)", flinkName(t))
	}
	if !n.Changelog().IsInsertOnly() {
		return nil, sqlmini.Errorf(pos, "Querying a table in batch mode is currently only possible for INSERT-only table sources. But the source for table '%s' produces other changelog messages than just INSERT. (Its rows are %s: read it in streaming mode.)", flinkName(t), n.Changelog())
	}
	return &exec.BatchScanNode{In: n}, nil
}

// Statement plans the query of a statement: a SELECT that prints or the
// query of an INSERT. In batch mode its rows are final: a plan that still
// makes updates gets an exec.FinalNode at its root.
func (p *Planner) Statement(q *sqlmini.Query) (exec.Node, error) {
	n, err := p.Query(q)
	if err != nil || !p.env.Batch {
		return n, err
	}
	return finalRows(n), nil
}

// finalRows makes n's changelog its final rows.
func finalRows(n exec.Node) exec.Node {
	m := n.Changelog()
	if m.IsInsertOnly() {
		return n
	}
	if m.KeyOnlyDeletes || m.Contains(types.UpdateAfter) && !m.Contains(types.UpdateBefore) {
		n = DeliverUpdates(n, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
	}
	return &exec.FinalNode{In: n}
}

// batchWindow refuses the windows Flink's BatchExecWindowTableFunction
// refuses: a session window and a window over processing time.
func batchWindow(pos sqlmini.Pos, kind sqlop.WindowKind, procTime bool) error {
	if kind == sqlop.Session {
		return sqlmini.Errorf(pos, "Unaligned windows like session are not supported in batch mode yet. (A session window runs in streaming mode.)")
	}
	if procTime {
		return sqlmini.Errorf(pos, "Processing time Window TableFunction is not supported yet. (Batch mode has event time only: window by a column of the rows.)")
	}
	return nil
}

// batchPTF refuses a PTF call in batch mode, as Flink's batch planner
// does: it has a rule for process table functions in streaming mode only
// (StreamPhysicalProcessTableFunctionRule), so Calcite finds no batch plan
// and FlinkVolcanoProgram reports it.
func batchPTF(pos sqlmini.Pos, fname string) error {
	return sqlmini.Errorf(pos, "Cannot generate a valid execution plan for the given query: FlinkLogicalTableFunctionScan(invocation=[%s(...)]) has no conversion to BATCH_PHYSICAL. "+
		"This exception indicates that the query uses an unsupported SQL feature. Please check the documentation for the set of currently supported SQL features. "+
		"(Flink runs process table functions in streaming mode only: SET 'execution.runtime-mode' = 'streaming'.)", fname)
}
