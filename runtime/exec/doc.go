// Package exec runs a planned query: a tree of Nodes, each of which opens
// a Stream of Events (rows, watermarks, ticks, the end). The driver in
// runtime/session pulls events from the root. This package is the core
// that both families of operators build on: the PTF operator
// (runtime/exec/ptfop) and the SQL operators (runtime/exec/sqlop), which
// import it and never each other.
//
// # The contract
//
// An [Event] flows between operators; a [Stream] hands out a running
// operator's events in order until EvEnd; a [Node] is a plan node: a
// schema, a changelog mode, an EXPLAIN line, its inputs, and Open, which
// starts it within an [Execution], what one running statement shares
// between its operators (its context and store, its running PTF calls, its
// sources, its notes, its settings). A running PTF call is a [Call] to the
// statement's checkpoints and notes.
//
// # The simple nodes
//
// Values (a VALUES list or a table given AS VALUES, with its watermarks),
// filter, project, limit, union, rename (exec.go), the fan-out of one call
// to several consumers (fanout.go), changelog normalisation (normalize.go,
// used by PTF table arguments, SQL operators and sinks alike), and the
// lineage column (lineage.go). Upsert keys pass through the relational
// nodes (upsert_key.go).
//
// # What the families share
//
//   - [Queue] (queue.go): the output an operator made and has not handed
//     on, and Queue.Next, the event loop of an operator over one input.
//   - [Observer] and [CallView] (observer.go): how the trace, lineage and
//     the timeline watch a PTF call.
//   - Watermark generation ([WmGen], watermark.go) and [MaxWatermark],
//     the watermark of the end of a bounded input.
//   - The namespaces of the state file (namespaces.go) and the value
//     codec of list and map state and buffered rows (valuecodec.go).
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
// it; each [Call] and normaliser has a flush). The SQL operators keep their
// rows in memory for one statement: no checkpoint is taken before its end
// ([Execution.InMemory]).
//
// # Goroutines
//
// An Execution and everything it runs belong to one goroutine at a time,
// with one exception: a PTF call that runs on several workers
// (runtime/exec/ptfop) runs them on goroutines of their own, behind one
// Stream.
package exec
