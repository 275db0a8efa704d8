// Package exec runs a planned query: a tree of Nodes, each of which opens
// a Stream of Events (rows, watermarks, the end). The driver in
// runtime/session pulls events from the root.
//
// # Operators
//
// The PTF operator (PtfOp, ptf_exec.go) is the loop that pulls events
// from its inputs and calls PTF.Eval for each row and PTF.OnTimer for each
// timer the watermark passes, through a ptf.Context it serves as the
// ptf.Host (ptf_host.go). It owns its parts, each a type of its own:
//
//   - keyedState (keyed.go, cache.go): value state per partition key, a
//     bounded cache of live objects that spills to the store;
//   - viewState (views.go, views_map.go): list and map state, an overlay
//     of changes over the store;
//   - timerService (timers.go): timers per key in time order;
//   - eventClock (watermark.go): the operator's and each input's watermark;
//   - sortBuffer (sortbuffer.go): ORDER BY buffers rows until the
//     watermark passes them.
//
// A call that runs on several workers is a ParallelOp (parallel.go)
// instead: it wraps N ordinary PtfOps. Both are a Call, which checkpoints
// flush. The other operators: filter, project, union, values, fan-out of
// identical calls (fanout.go), changelog normalisation (normalize.go),
// GROUP BY with its accumulators (aggregate_op.go, aggregate_acc.go),
// ORDER BY's Top-N and time sort (sort.go), OVER windows (over.go, which
// reuses the accumulators), ROW_NUMBER's Top-N and deduplication
// (rank.go), the window table functions, window aggregation and window
// Top-N and deduplication (window.go, window_agg.go, window_rank.go), and
// the joins: regular (join.go), interval
// (join_interval.go) and temporal (join_temporal.go). These keep their rows
// in memory for one statement (no checkpoint is taken before its end).
//
// # Time
//
// Sources emit watermarks from their WATERMARK declaration (max(ts) -
// delay, after each row) or from steps written into the data. With several
// inputs an operator's watermark is their minimum. The end of a bounded
// input is the watermark MaxWatermark.
//
// # State and checkpoints
//
// At checkpoints (every N source rows and at the end of a statement) the
// changed state, timers, ORDER BY buffers, list and map entries and the
// sources' positions go to the store in one transaction (the session drives
// it; each operator has a flush). namespaces.go maps every namespace of a
// state file.
//
// # Goroutines
//
// An Execution and everything it runs belong to one goroutine at a time,
// with one exception: at a parallelism above 1, a call that qualifies runs
// on N worker goroutines, each a PtfOp with its own instance made by
// FuncDef.NewIsolated, its own state cache, timers, ORDER BY buffers and
// output; each runs the batches of input the ParallelOp feeds it in turn,
// and the ParallelOp hands their calls' outputs on in the order of
// parallelism 1 (parallel.go). Each instance is still called from one
// goroutine at a time.
package exec
