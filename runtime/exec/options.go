package exec

import (
	"errors"
	"time"

	"github.com/ptfsh/ptfsh/runtime/settings"
)

// The keys of SET that a statement's execution reads ([NewOptions]). The
// settings table (runtime/settings) has their defaults, docs and parsers.
const (
	// SetEndOfInput = 'false' ends a statement after its input without the
	// maximum watermark, as Flink's stop-with-savepoint: timers and state
	// stay for the next statement or run with the same uid.
	SetEndOfInput = "ptfsh.end-of-input"
	// SetParallelism is Flink's option for the default parallelism: how
	// many workers a PTF call that qualifies runs on.
	SetParallelism = "parallelism.default"
	// SetCacheSize is the number of partition keys whose value state stays
	// live in memory per PTF call.
	SetCacheSize = "state.cache-size"
	// SetCacheBytes is how many bytes of encoded state a call keeps in
	// memory (the warm tier) before it spills them to the store.
	SetCacheBytes = "state.cache-bytes"
	// SetStateTTL is Flink's default time-to-live of state entries that
	// declare none.
	SetStateTTL = "table.exec.state.ttl"
	// SetMaxTimerFirings stops an onTimer that keeps registering past
	// timers after this many firings at one watermark.
	SetMaxTimerFirings = "ptfsh.timers.max-firings"
	// SetOnIncompatible = 'discard' starts a uid afresh when its
	// function's state changed incompatibly, instead of failing.
	SetOnIncompatible = "state.on-incompatible"
	// SetSourcePositions = 'reset' starts a file source whose file changed
	// other than by growing from its beginning, instead of failing.
	SetSourcePositions = "state.source-positions"
	// SetCheckpointRows is the number of source rows between checkpoints.
	SetCheckpointRows = "execution.checkpointing.interval-rows"
	// SetCheckpointInterval is Flink's checkpoint interval, on the wall
	// clock.
	SetCheckpointInterval = "execution.checkpointing.interval"
	// SetProcessingTime fixes the processing-time clock (state TTL,
	// datagen) at a time: 'YYYY-MM-DD hh:mm:ss' or epoch milliseconds.
	// Without it the clock is the wall clock.
	SetProcessingTime = "ptfsh.processing-time"
	// SetTrace turns tracing on ('on') or off.
	SetTrace = "ptfsh.trace"
	// The trace's filters ([TraceFilter]); one that is set turns the trace
	// on.
	SetTraceKey      = "ptfsh.trace.key"
	SetTraceFunction = "ptfsh.trace.function"
	SetTraceLate     = "ptfsh.trace.late"
	// SetLineage turns lineage on: each row a PTF call emits says why.
	SetLineage = "ptfsh.lineage"
	// SetParallelWorkers says how the workers of a parallel PTF call run:
	// 'concurrent', 'in-turn' or 'auto' ([Options.ParallelWorkers]).
	SetParallelWorkers = "ptfsh.parallel.workers"
	// SetShuffleSeed reorders what Flink leaves unordered, so that a
	// function that depends on one order fails in ptfsh first (ptfsh test
	// --shuffle).
	SetShuffleSeed = "ptfsh.shuffle-seed"
)

// Options are the settings a statement runs with, read once when it
// starts (NewOptions). They are values, not switches: an Execution keeps
// them and its operators read them.
type Options struct {
	// EndOfInput: a bounded input ends with the maximum watermark, which
	// fires every timer left. Without it a statement stops the way Flink's
	// stop-with-savepoint does.
	EndOfInput bool
	// Parallelism is how many workers a PTF call that qualifies runs on.
	Parallelism int
	// ParallelWorkers is how the workers of a parallel call run:
	// "concurrent" (each on a goroutine of its own), "in-turn" (on the
	// statement's goroutine, one after the other) or "auto" (measured as
	// the call runs).
	ParallelWorkers string
	// CacheSize is the live keys per PTF call, CacheBytes the encoded
	// state kept in memory per call past them.
	CacheSize  int
	CacheBytes int64
	// StateTTL is the time to live of a state entry that declares none
	// (0: for ever), on processing time.
	StateTTL time.Duration
	// MaxTimerFirings stops a runaway onTimer (0: no limit).
	MaxTimerFirings int
	// DiscardIncompatible starts a uid afresh whose stored state no
	// longer fits its function.
	DiscardIncompatible bool
	// ResetSources starts a file source afresh whose file changed other
	// than by growing.
	ResetSources bool
	// Scratch says the state store is a temporary one that no later run
	// opens: a source read to its end leaves no record of it there.
	Scratch bool
	// RunID names the run of the shell (a session) that runs the
	// statement, to tell what an earlier run left in the store.
	RunID string
	// CheckpointRows is the source rows between checkpoints (0: only at
	// the end of the statement), CheckpointInterval the wall-clock time
	// (0: by rows only); a checkpoint is due at whichever comes first.
	CheckpointRows     int64
	CheckpointInterval time.Duration
	// ProcessingTime, when FixedClock, is the processing time in epoch
	// milliseconds; otherwise the clock is the wall clock.
	ProcessingTime int64
	FixedClock     bool
	// Trace shows each call of eval and onTimer as it happens; TraceFilter
	// narrows it.
	Trace       bool
	TraceFilter TraceFilter
	// Lineage: each row a PTF call emits says why.
	Lineage bool
	// ShuffleSeed, when not 0, reorders what Flink does not order.
	ShuffleSeed int64
	// MemoryLimit stops the statement when the live heap passes it
	// (memory.go): bytes, 0 for no limit, -1 for auto.
	MemoryLimit int64
}

// NewOptions reads the options from set, the texts of SET by key (a key
// not in set takes the table's default). A text that does not parse is an
// error that names its key, as SET's would be; the errors of every such
// key are joined.
func NewOptions(set map[string]string) (Options, error) {
	var o Options
	r := optionReader{set: set}
	o.EndOfInput = read[bool](&r, SetEndOfInput)
	o.Parallelism = read[int](&r, SetParallelism)
	o.ParallelWorkers = read[string](&r, SetParallelWorkers)
	o.CacheSize = read[int](&r, SetCacheSize)
	o.CacheBytes = read[int64](&r, SetCacheBytes)
	o.StateTTL = read[time.Duration](&r, SetStateTTL)
	o.MaxTimerFirings = read[int](&r, SetMaxTimerFirings)
	o.DiscardIncompatible = read[string](&r, SetOnIncompatible) == "discard"
	o.ResetSources = read[string](&r, SetSourcePositions) == "reset"
	o.CheckpointRows = read[int64](&r, SetCheckpointRows)
	o.CheckpointInterval = read[time.Duration](&r, SetCheckpointInterval)
	if _, ok := set[SetProcessingTime]; ok {
		o.ProcessingTime, o.FixedClock = read[int64](&r, SetProcessingTime), true
	}
	o.TraceFilter = TraceFilter{Key: read[string](&r, SetTraceKey), Function: read[string](&r, SetTraceFunction), Late: read[bool](&r, SetTraceLate)}
	o.Trace = read[bool](&r, SetTrace) || o.TraceFilter != TraceFilter{}
	o.Lineage = read[bool](&r, SetLineage)
	o.ShuffleSeed = read[int64](&r, SetShuffleSeed)
	o.MemoryLimit = read[int64](&r, SetMemoryLimit)
	return o, errors.Join(r.errs...)
}

// DefaultOptions are the options of a statement that nothing was SET for.
func DefaultOptions() Options {
	o, err := NewOptions(nil)
	if err != nil {
		panic("exec: a default of the settings table does not parse: " + err.Error()) // a mistake of the table
	}
	return o
}

// optionReader collects the errors of the keys it reads.
type optionReader struct {
	set  map[string]string
	errs []error
}

// read returns the typed value of key, noting its error.
func read[T any](r *optionReader, key string) T {
	v, err := settings.Value[T](r.set, key)
	if err != nil {
		r.errs = append(r.errs, err)
	}
	return v
}
