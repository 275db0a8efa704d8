// Package session runs ptfsh's statements: it parses them (sqlmini), keeps
// the catalog and the settings, plans queries (runtime/plan), runs them
// (runtime/exec) into a printer or a file sink, takes checkpoints, and
// answers SHOW, DESCRIBE, SET, EXPLAIN and the state inspection statements.
// A Session writes to the io.Writers it was given, never to os.Stdout. It
// talks to a scripting engine only through [ptf.Loader] and to the store only
// through [state.Store]; package assembly wires them.
//
// # Running a statement
//
// Exec runs the statements of a script and stops at the first error;
// ExecStatement runs one, as a statement value (statement.go) that holds
// what belongs to that run and not to the session. A query is planned into
// a tree of exec nodes and run by pulling events from the root into a Sink
// (run.go): a printer of runtime/format, or the file sink of INSERT INTO.
// The run's [exec.Options] are the settings read once as it starts
// (options.go). Its checkpointer (checkpoint.go) writes a checkpoint every
// N source rows ('execution.checkpointing.interval-rows') and at the end:
// the state of every PTF operator, normalisation state, source positions
// and sink lengths, in one transaction; its progress line (progress.go)
// shows, on a terminal, how far a long run is.
//
// Query returns a query's result as data instead of printing it (a Result:
// the schema and the rows with their kinds, collected by a Collector sink),
// for code that needs the rows rather than their text: tests, ptfsh export.
//
// # Errors
//
// Errors read file:line:col: message ([*types.Error]), with the position of
// the statement part they come from; FormatError adds the source line and a
// caret for a person, and puts the stack of a JavaScript error below it.
//
// # Goroutines
//
// A Session is not safe for concurrent use: it and everything it runs
// belong to one goroutine at a time (see runtime/exec for the worker
// goroutines of a parallel call).
package session
