// Package sqlop holds the SQL operators of a plan: GROUP BY with its
// accumulators (aggregate_op.go, aggregate_acc.go), ORDER BY's Top-N and
// time sort (sort.go), OVER windows (over.go, over_sorted.go, which reuse
// the accumulators), ROW_NUMBER's Top-N and deduplication (rank.go,
// rank_updating.go), the window table functions, window aggregation and
// window Top-N and deduplication (window.go, window_agg.go,
// window_rank.go), MATCH_RECOGNIZE over the NFA of runtime/cep
// (match_recognize.go), and the joins: regular (join.go), interval
// (join_interval.go) and temporal (join_temporal.go).
//
// # Operators
//
// Each is a [exec.Node] whose Open starts a stream over its inputs. An
// operator over one input is driven by [exec.Queue.Next]: its Row method
// takes each input row and queues what it emits, and, for an operator
// that acts on event time ([exec.TimeOperator]), its Time method takes
// each watermark and the end of the input and queues what they release.
// The joins read their two inputs through twoInputs (join.go), which
// interleaves them as Flink's two-input operators do.
//
// # State
//
// The operators keep their state in the state store behind a bounded
// cache (runtime/exec/opstate, state.go): Open asks for a namespace
// (exec.Execution.OperatorNamespace), opens its tables and joins
// exec.Execution.Stateful, whose Checkpoint flushes them into every
// checkpoint; what waits for event time (rows, timers, cleanup times) is
// in tables keyed by time first, read in order through a dueQueue whose
// least entries are in memory. A statement stopped without its end of
// input leaves the state for its next run. The operators see the PTF
// side of execution only through the core (runtime/exec).
package sqlop
