package session

import (
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// statement is one run of a statement (ExecStatement): what belongs to the
// statement and not to the session, made when it starts and dropped when
// it ends. The runs of its queries (run.go) read it and count into it.
type statement struct {
	*sqlmini.Statement
	// why: EXPLAIN WHY, lineage on for the statement's query (lineage.go).
	why bool
	// timeline is the record that EXPLAIN TIMELINE draws (timeline.go).
	timeline *timeline.Record
	// final, in a script, records that the statement finished, in the
	// transaction of its final checkpoint (script_progress.go).
	final func(tx state.Tx) error
	// stepping is the step of a query on streams that the statement runs
	// (INSERT INTO a stream, ADVANCE WATERMARK; stream.go); stepRows, in
	// predict mode, the rows the step emits (predict.go).
	stepping *stepRun
	stepRows []stepRow
	// in and out count the rows its runs read and wrote (SHOW JOBS).
	in, out int64
}
