// Package runtime gives ptfsh's SQL its meaning and runs it: types and
// rows, the catalog, the planner, the PTF operator with state, timers and
// changelogs, sources, sinks, printers and the Session that ties them
// together. It talks to a scripting engine only through Loader and PTF,
// to the store only through state.Store, and to the parser through
// sqlmini's AST.
//
// # Values and rows
//
// A Row is a RowKind (+I, -U, +U, -D) and positional fields typed by a
// Schema; value.go lists which Go type holds which SQL type. FormatValue
// and FormatRow print them as Flink's Row.toString does; the printers
// (tableau, changelog, table, rows, csv, json) print a query's result.
// Session.Query returns it as data instead (a Result: the schema and the
// rows with their kinds, collected by a Collector sink), for code that
// needs the rows rather than their text: tests, ptfsh export.
//
// # Planning and running
//
// A Session parses statements (sqlmini), plans a query into a tree of
// nodes and runs it by pulling events — rows, watermarks, the end — from
// the root. The PTF operator (ptf_exec.go) calls PTF.Eval for each row and
// PTF.OnTimer for each timer the watermark passes, through a Context that
// gives the call its state, timers and collector. A PTF is any type with
// those two methods: script's JavaScript functions and stdlib's Go ones
// satisfy the same contract.
//
// # Time
//
// Sources emit watermarks from their WATERMARK declaration (max(ts) -
// delay, after each row) or from steps written into the data. With
// several inputs the operator's watermark is their minimum. Timers fire in
// time order when the watermark reaches them; the end of a bounded input
// is the watermark MaxWatermark. ORDER BY buffers rows until the watermark
// passes them.
//
// # State and checkpoints
//
// Value state stays live as the PTF's own objects in a bounded cache per
// partition key. At checkpoints (every N source rows and at the end of a
// statement) the changed state, timers, ORDER BY buffers, list and map
// entries, source positions and sink lengths go to the store in one
// transaction, so that a run killed at any moment resumes from the last
// checkpoint with exactly-once file output. A statement that read its
// input to the end finishes; the next one with the same uid starts afresh.
//
// # Errors
//
// Errors read file:line:col: message, with the position of the statement
// part they come from (*types.Error, at planning and at run time);
// FormatError adds the source line and a caret for a person.
//
// # Goroutines
//
// A Session and everything it runs belong to one goroutine at a time. The
// PTF instances it creates are called from that goroutine only, with one
// exception: at a parallelism above 1 (SET 'parallelism.default'), a call
// that qualifies runs on N worker goroutines, each with its own instance
// made by FuncDef.NewIsolated, its own state cache and its own output; the
// statement's goroutine waits for all of them after every batch of input
// and hands their outputs on in input order (parallel.go). Each instance
// is still called from one goroutine at a time.
package session
