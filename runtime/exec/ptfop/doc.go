// Package ptfop runs Process Table Functions: the operator that pulls
// events from a call's table arguments and calls PTF.Eval for each row and
// PTF.OnTimer for each timer the watermark passes.
//
// # The operator
//
// A bound call is a [Node]; its Open starts an [Operator] (operator.go),
// which serves the function's [ptf.Context] through host (host.go), a type
// of its own: input, key, state, timers, event time, output. The operator
// owns its parts, each a type of its own:
//
//   - keyedState (keyed.go, cache.go, keyed_store.go): value state per
//     partition key, a bounded cache of live objects, a warm tier of
//     encoded records, and the store's tables of runtime/exec/opstate, to
//     which a checkpoint writes the changed keys as packed generations;
//   - viewState (views.go, views_map.go): list and map state, a table of
//     runtime/exec/opstate per list or map entry, shared by the call's
//     workers (views_inspect.go shows what a store holds, for SHOW STATE);
//   - timerService (timers.go): timers per key in time order;
//   - eventClock (operator.go): the operator's and each input's watermark;
//   - sortBuffer (sortbuffer.go): ORDER BY buffers rows until the
//     watermark passes them;
//   - state evolution (evolution.go): whether a changed function may keep
//     the state its uid stored.
//
// # Workers
//
// A call that qualifies runs on several workers (SET
// 'parallelism.default'): a [Parallel] wraps N ordinary operators, each
// with its own instance (FuncDef.NewIsolated), state cache, timers, ORDER
// BY buffers and output, and hands their calls' outputs on in the order of
// parallelism 1 (parallel.go). Both are an [exec.Call], which checkpoints
// flush.
//
// # Observers
//
// The trace (trace.go), the timeline (timeline.go) and lineage
// (lineage.go) watch a call through [exec.Observer] (observe.go); an
// operator without one pays a comparison with nil per event, and a call
// with one runs on one worker. A shuffle (shuffle.go, SET
// 'ptfsh.shuffle-seed') reorders what Flink leaves unordered.
//
// # Testing a function
//
// [Harness] runs one function over rows without SQL, as Flink's
// ProcessTableFunctionTestHarness does.
//
// # Goroutines
//
// An operator belongs to one goroutine at a time, except a Parallel's
// workers, which run the batches the Parallel feeds them on goroutines of
// their own; each instance of a function is still called from one
// goroutine at a time.
package ptfop
