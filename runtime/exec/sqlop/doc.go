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
// The operators keep their rows in memory for one statement: Open says so
// ([exec.Execution.InMemory] or NoCheckpoints), so that no checkpoint is
// taken before the end, and most refuse a statement that stops without its
// end of input. They see the PTF side of execution only through the core
// (runtime/exec).
package sqlop
