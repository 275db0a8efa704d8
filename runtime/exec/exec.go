package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

type eventKind uint8

const (
	EvRow eventKind = iota
	EvWatermark
	EvEnd
	// EvIdle carries nothing: a live input has no row to give now (see
	// live.go). An operator hands on the output it holds, then passes it
	// on.
	EvIdle
	// EvStatus says that the input became idle (Idle) or active again,
	// as Flink's WatermarkStatus: a source that had no rows for
	// table.exec.source.idle-timeout holds no watermark back (valve.go).
	EvStatus
	// EvTick carries nothing: an operator that consumed many rows without
	// output hands control back, so that the driver can take a checkpoint.
	EvTick
	// EvEncoded carries rows already encoded for the statement's printer
	// (Encoded; encoded.go): only a stream that the driver asked to
	// encode (RowEncoding) makes them, for the driver alone.
	EvEncoded
)

// Event is what flows between operators: a row, a watermark, or the end.
// It is passed by value through every operator's Next, so it is kept to
// seven machine words: with the error, Next returns it in registers. What
// few events carry beyond their kind, row and watermark (a status's
// idleness, a restored watermark, a row's lineage) is behind note.
type Event struct {
	Kind eventKind
	Row  types.Row
	Wm   int64
	note *eventNote
}

// eventNote is what an Event carries beyond its kind, row and watermark.
type eventNote struct {
	idle     bool
	restored bool
	why      string
	enc      []byte // EvEncoded: the rows' bytes
	rows     int    // EvEncoded: how many rows
}

// The notes of a status and of a restored watermark, shared by all such
// events: an event's note is never changed, only replaced.
var (
	idleNote     = &eventNote{idle: true}
	restoredNote = &eventNote{restored: true}
)

// StatusEvent is an EvStatus event: the input became idle, or active
// again.
func StatusEvent(idle bool) Event {
	if idle {
		return Event{Kind: EvStatus, note: idleNote}
	}
	return Event{Kind: EvStatus}
}

// WatermarkEvent is an EvWatermark event of wm; restored marks one that a
// run restarted from a checkpoint emits again before its first row (see
// Restored).
func WatermarkEvent(wm int64, restored bool) Event {
	if restored {
		return Event{Kind: EvWatermark, Wm: wm, note: restoredNote}
	}
	return Event{Kind: EvWatermark, Wm: wm}
}

// Idle is the status of an EvStatus event: whether the input became idle.
func (ev Event) Idle() bool { return ev.note != nil && ev.note.idle }

// Restored marks a watermark that a run restarted from a checkpoint
// emits again before its first row: every operator had it before the
// checkpoint. An operator takes it as its current watermark (which
// rows are late) and fires nothing: what came after it waits for the
// next watermark, as it did before the restart. One that keeps its
// watermark in its state ignores it, and hands on a restored one.
func (ev Event) Restored() bool { return ev.note != nil && ev.note.restored }

// Why says, with lineage on, what led a PTF call to emit the row
// (lineage.go); SetWhy sets it.
func (ev Event) Why() string {
	if ev.note == nil {
		return ""
	}
	return ev.note.why
}

// SetWhy sets what led a PTF call to emit the row (Why).
func (ev *Event) SetWhy(why string) { ev.note = &eventNote{why: why} }

// Stream is a running operator: next returns its events in order; after
// evEnd it is not called again. close releases what open took.
type Stream interface {
	Next() (Event, error)
	Close() error
}

// Node is a plan node: a schema, a changelog mode, and a way to run.
type Node interface {
	Schema() types.Schema
	Changelog() types.ChangelogMode
	Open(ex *Execution) (Stream, error)
	// Explain describes the node in one line for EXPLAIN; Children
	// lists its inputs.
	Explain() string
	Children() []Node
}

// UpsertKeyed is a node whose updates are keyed: each key has at most one
// live row, and an update or delete of the key replaces or removes it. A
// GROUP BY's groups, a primary-key source's key, an upsert PTF's PARTITION
// BY columns. Nodes without it have no upsert key.
type UpsertKeyed interface {
	UpsertKey() []int
}

// UpsertKeyOf returns a node's upsert key (column indexes), or nil.
func UpsertKeyOf(n Node) []int {
	if u, ok := n.(UpsertKeyed); ok {
		return u.UpsertKey()
	}
	return nil
}

// sourceCheckpointer is a running source whose read position goes into
// checkpoints (a file source).
type sourceCheckpointer interface {
	// Checkpoint records the source's position in tx; finished: the
	// statement read its input to the end (the position goes); final: the
	// statement's last checkpoint.
	Checkpoint(tx state.Tx, finished, final bool) error
}

// CheckpointPreparer is a source that starts the work of its checkpoint
// early: PrepareCheckpoint runs before the PTF calls write their state,
// and the source's Checkpoint, after them, takes its result.
type CheckpointPreparer interface {
	PrepareCheckpoint()
}

// ErrCancelled is what a source returns when the statement was cancelled
// (Ctrl-C) while it read.
var ErrCancelled = errors.New("statement cancelled")

// CheckCancelled is what a source calls every so many rows, so that a
// query whose operators drop every row still stops at once on Ctrl-C,
// and one whose operators keep every row (a join that matches none) at
// its memory limit (MemoryError).
func (ex *Execution) CheckCancelled() error {
	if ex.Ctx != nil && ex.Ctx.Err() != nil {
		return ErrCancelled
	}
	return ex.MemoryError()
}

// Stateful is a running SQL operator whose state goes into checkpoints
// (runtime/exec/opstate keeps it in the store).
type Stateful interface {
	// Checkpoint writes the operator's changes since the last checkpoint
	// into tx. finished: the statement read its input to the end, so
	// nothing goes on from its state, which goes. final: the statement's
	// last checkpoint (finished, or stopped without its end of input): an
	// operator forgets its event time then, as a source does, so that the
	// next run starts without a watermark, as a Flink job restored from a
	// savepoint does; it keeps it in the others, for a restart after a
	// crash.
	Checkpoint(tx state.Tx, finished, final bool) error
	// Quiescent reports whether the operator holds no output that a
	// checkpoint taken now could not describe.
	Quiescent() bool
}

// Call is a running PTF call as the statement's checkpoints and notes see
// it: one operator, or one that runs on several workers
// (runtime/exec/ptfop).
type Call interface {
	Stream
	// Flush writes the call's changed state, timers and event time to
	// tx; final marks the end of the statement.
	Flush(tx state.Tx, final bool) error
	// Quiescent reports whether the call holds no output, and no work,
	// that a checkpoint taken now could not describe.
	Quiescent() bool
	// Notes says, after the statement, what a person should know about
	// the call's event time: timers that fired only at the end of input,
	// rows that ORDER BY dropped as late.
	Notes() []string
	// MarkNotes makes Notes count the rows ORDER BY drops from now on: a
	// step of a stream replays the events before it, whose drops its
	// notes do not repeat.
	MarkNotes()
	// WhyNot summarises, after the statement, what did not lead to output
	// (lineage on); "" without lineage.
	WhyNot() string
}

// Execution is what one running statement shares between its operators:
// its Options, and the parts of the run (its context and store, the
// clock, the running calls and sources, the counters, the notes).
type Execution struct {
	// Opts are the statement's settings.
	Opts Options
	// Ctx is the statement's context, which Ctrl-C cancels.
	Ctx   context.Context
	Store state.Store
	// SteppedClock says that Now is a clock moved by hand, step by step
	// (a stream's, which ADVANCE PROCESSING TIME moved): observers record
	// the processing time of what happens.
	SteppedClock bool
	// Now is the processing-time clock in epoch milliseconds: state TTL,
	// PROCTIME() columns (ComputedNode) and the faker connector's
	// date.past read it. NewExecution sets it from Opts (the wall clock,
	// or a fixed time); whoever drives processing time replaces it.
	Now func() int64
	// Shuffle, when set (Opts.ShuffleSeed), reorders what Flink does not
	// order (runtime/exec/ptfop).
	Shuffle *rand.Rand
	// Trace receives the trace of the PTF calls when Opts.Trace is on
	// (runtime/exec/ptfop); nil: no trace.
	Trace io.Writer
	// Timeline, when set, receives the time events of the PTF calls
	// (EXPLAIN TIMELINE, SET 'ptfsh.timeline'; runtime/exec/ptfop) and of
	// the SQL operators that act in time (OperatorObserver).
	Timeline TimeRecorder
	// Checkpoints says when the next periodic checkpoint is due; the
	// driver that takes them sets it (nil: only the final one).
	Checkpoints CheckpointPolicy
	// Ptfs are the PTF calls of the statement, flushed at checkpoints.
	Ptfs []Call
	// Sources are the file sources, whose positions go into checkpoints.
	Sources []sourceCheckpointer
	// SourceReads counts the reads of each file table the statement has
	// opened, so that each read keeps a position of its own.
	SourceReads map[string]int
	// Normalizers keep the last row per key of updating inputs.
	Normalizers []*normalizeStream
	// Stateful are the SQL operators whose state goes into checkpoints.
	Stateful []Stateful
	// StatementKey names the statement among those whose operator state a
	// store keeps: the same statement run again finds its state
	// (OperatorNamespace). The session sets it, from the statement's text.
	StatementKey string
	// operators counts the operators that asked for a namespace;
	// assigners, the watermark assigners of computed columns.
	operators, assigners int
	// opObservers are the SQL operators' timeline observers by id, and
	// opNames counts their sections' names (opobserver.go).
	opObservers map[any]*opRecorder
	opNames     map[string]int
	// live is what live sources and the driver share (live.go).
	live *Live
	// tees are the running shared calls (fanout.go).
	tees map[Node]*teeShared
	// coop runs a statement set's queries, whose reads of a table scans
	// shares, query being the one being opened (share.go).
	coop  *Coop
	scans map[string]*sharedScan
	query int
	// Uncheckpointable says why no checkpoint may be taken before the end.
	Uncheckpointable string
	// stateInMemory is the first operator that keeps state in memory
	// (memory.go).
	stateInMemory string
	// RowsIn counts the rows read from sources.
	RowsIn int64
	// Notes are said on stderr after the statement.
	Notes []string
	// held says what the statement's operators keep in memory, memLimit
	// and memHow its memory limit and how auto found it, memStopped that
	// the limit stopped it (memory.go).
	held       []string
	memLimit   int64
	memHow     string
	memStopped atomic.Bool
	// Paced: a source gives its rows at a pace of wall-clock time (datagen's
	// rows-per-second), so an operator must hand on each row's output
	// before it waits for the next, and batches none of its calls.
	Paced bool
}

// CheckpointPolicy is the driver's rule for periodic checkpoints.
type CheckpointPolicy interface {
	// Due reports whether a checkpoint is due once the sources have read
	// rowsIn rows.
	Due(rowsIn int64) bool
}

// NoCheckpoints turns off checkpoints during the statement: an operator
// whose state is not part of checkpoints is in the plan, so a restart
// after a crash must begin from the statement's start (where the last
// complete checkpoint left everything) to stay exactly-once.
func (ex *Execution) NoCheckpoints(why string) {
	if ex.Uncheckpointable == "" {
		ex.Uncheckpointable = why
	}
}

// InMemory is the check of an operator that keeps rows in memory for one
// statement (held says what: "a join keeps its rows"): no checkpoint is
// taken before the statement ends, and it cannot stop without its end of
// input to go on in the next.
func (ex *Execution) InMemory(held string) error {
	if !ex.Opts.EndOfInput {
		return fmt.Errorf("%s in memory for one statement, so it cannot stop with SET 'ptfsh.end-of-input' = 'false' and go on in the next", held)
	}
	ex.HoldsInMemory(held) // memory.go
	return nil
}

// Quiescent reports whether no operator holds rows it has not handed on,
// the moment a checkpoint describes exactly the rows the sink has seen.
func (ex *Execution) Quiescent() bool {
	for _, op := range ex.Ptfs {
		if !op.Quiescent() {
			return false
		}
	}
	for _, op := range ex.Stateful {
		if !op.Quiescent() {
			return false
		}
	}
	return true
}

// OperatorNamespace returns the namespace of the state of the next
// operator that opens, of the given kind: "op/KEY/N-KIND". Operators open
// in the order of the plan, so the same statement over the same plan
// gives each operator the same namespace in every run.
func (ex *Execution) OperatorNamespace(kind string) string {
	ex.operators++
	key := ex.StatementKey
	if key == "" {
		key = "-"
	}
	return "op/" + key + "/" + strconv.Itoa(ex.operators) + "-" + kind
}

// DropOperators deletes the state of the operators of the statement
// whose key is key (OperatorNamespace), so that its next run starts
// fresh.
func DropOperators(tx state.Tx, key string) error {
	names, err := tx.Namespaces()
	if err != nil {
		return err
	}
	for _, ns := range names {
		if strings.HasPrefix(ns, "op/"+key+"/") {
			if err := tx.DeleteNamespace(ns); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckpointDue reports whether reading extra more source rows would pass
// the next checkpoint: a parallel call then reads no batch ahead, so that
// its workers are idle when the checkpoint is taken.
func (ex *Execution) CheckpointDue(extra int64) bool {
	return ex.Checkpoints != nil && ex.Uncheckpointable == "" && ex.Checkpoints.Due(ex.RowsIn+extra)
}

// NewExecution returns the execution of a statement that runs with opts:
// its clock (the wall clock, or opts' fixed time) and its shuffle.
func NewExecution(ctx context.Context, store state.Store, opts Options) *Execution {
	ex := &Execution{Opts: opts, Ctx: ctx, Store: store, Now: wallClock(), SourceReads: map[string]int{}}
	if opts.FixedClock {
		ms := opts.ProcessingTime
		ex.Now = func() int64 { return ms }
	}
	if opts.ShuffleSeed != 0 {
		ex.Shuffle = rand.New(rand.NewPCG(uint64(opts.ShuffleSeed), 0x5eed))
	}
	return ex
}

// wallClock returns a clock of epoch milliseconds: the wall clock read
// once, then advanced by the monotonic clock. A read costs one clock read
// instead of time.Now's two (wall and monotonic), and state TTL reads the
// clock for every state access of every call.
func wallClock() func() int64 {
	start := time.Now()
	ns := start.UnixNano()
	return func() int64 { return (ns + int64(time.Since(start))) / 1e6 }
}

// ValuesNode is a VALUES list, a view over one, or a table given AS
// VALUES. Its events are rows and watermark steps written into the data;
// with a WATERMARK declaration it also emits watermarks after rows.
type ValuesNode struct {
	Sch    types.Schema
	Events []Event
	Wm     *WatermarkSpec
	Every  int64
}

var _ Node = (*ValuesNode)(nil)

func (n *ValuesNode) Schema() types.Schema           { return n.Sch }
func (n *ValuesNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *ValuesNode) Children() []Node               { return nil }
func (n *ValuesNode) Explain() string {
	return "Values(tuples=[" + strconv.Itoa(len(n.Events)) + " rows], fields=" + "[" + strings.Join(n.Sch.Names(), ", ") + "]" + ")"
}

func (n *ValuesNode) Open(ex *Execution) (Stream, error) {
	return &valuesStream{events: n.Events, ex: ex, wm: NewWMGen(n.Wm, n.Every)}, nil
}

type valuesStream struct {
	events []Event
	i      int
	ex     *Execution
	wm     *WmGen
	out    Queue // the watermark that follows a row
}

var _ Stream = (*valuesStream)(nil)

func (s *valuesStream) Next() (Event, error) {
	if ev, ok := s.out.Pop(); ok {
		return ev, nil
	}
	for s.i < len(s.events) {
		ev := s.events[s.i]
		s.i++
		if ev.Kind == EvWatermark {
			if s.wm.Explicit(ev.Wm) {
				return ev, nil
			}
			continue
		}
		s.ex.RowsIn++
		if w, ok := s.wm.Observe(ev.Row); ok {
			s.out.Push(Event{Kind: EvWatermark, Wm: w})
		}
		return ev, nil
	}
	return Event{Kind: EvEnd}, nil
}

func (s *valuesStream) Close() error { return nil }

// FilterNode keeps the rows for which pred is TRUE.
type FilterNode struct {
	In   Node
	Pred expr.Expr
	Text string
}

var _ Node = (*FilterNode)(nil)

var (
	_ Node        = (*FilterNode)(nil)
	_ UpsertKeyed = (*FilterNode)(nil)
)

func (n *FilterNode) Schema() types.Schema           { return n.In.Schema() }
func (n *FilterNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *FilterNode) Children() []Node               { return []Node{n.In} }
func (n *FilterNode) Explain() string                { return "Filter(condition=[" + n.Text + "])" }

func (n *FilterNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &filterStream{in: in, pred: n.Pred}, nil
}

type filterStream struct {
	in   Stream
	pred expr.Expr
}

var _ Stream = (*filterStream)(nil)

func (s *filterStream) Next() (Event, error) {
	for {
		ev, err := s.in.Next()
		if err != nil || ev.Kind != EvRow {
			return ev, err
		}
		v, err := s.pred.Eval(ev.Row.Fields)
		if err != nil {
			return ev, err
		}
		if v == true {
			return ev, nil
		}
	}
}

func (s *filterStream) Close() error { return s.in.Close() }

// ProjectNode computes new columns.
type ProjectNode struct {
	In    Node
	Exprs []expr.Expr
	Sch   types.Schema
	Texts []string
}

var _ Node = (*ProjectNode)(nil)

var (
	_ Node        = (*ProjectNode)(nil)
	_ UpsertKeyed = (*ProjectNode)(nil)
)

func (n *ProjectNode) Schema() types.Schema           { return n.Sch }
func (n *ProjectNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *ProjectNode) Children() []Node               { return []Node{n.In} }
func (n *ProjectNode) Explain() string {
	return "Calc(select=[" + strings.Join(n.Texts, ", ") + "])"
}

func (n *ProjectNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &projectStream{in: in, exprs: n.Exprs}, nil
}

type projectStream struct {
	in    Stream
	exprs []expr.Expr
}

var _ Stream = (*projectStream)(nil)

func (s *projectStream) Next() (Event, error) {
	ev, err := s.in.Next()
	if err != nil || ev.Kind != EvRow {
		return ev, err
	}
	out := make([]any, len(s.exprs))
	for i, e := range s.exprs {
		if out[i], err = e.Eval(ev.Row.Fields); err != nil {
			return ev, err
		}
	}
	ev.Row = types.Row{Kind: ev.Row.Kind, Fields: out}
	return ev, nil
}

func (s *projectStream) Close() error { return s.in.Close() }

// LimitNode stops after n rows.
type LimitNode struct {
	In     Node
	N      int64
	Offset int64 // rows skipped first (OFFSET); the planner allows it over insert-only input
}

var _ Node = (*LimitNode)(nil)

func (n *LimitNode) Schema() types.Schema           { return n.In.Schema() }
func (n *LimitNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *LimitNode) Children() []Node               { return []Node{n.In} }
func (n *LimitNode) Explain() string {
	if n.Offset > 0 {
		return "Limit(offset=[" + strconv.FormatInt(n.Offset, 10) + "], fetch=[" + strconv.FormatInt(n.N, 10) + "])"
	}
	return "Limit(fetch=[" + strconv.FormatInt(n.N, 10) + "])"
}

func (n *LimitNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &limitStream{in: in, skip: n.Offset, left: n.N}, nil
}

type limitStream struct {
	in   Stream
	skip int64 // rows of OFFSET still to skip
	left int64
}

var _ Stream = (*limitStream)(nil)

func (s *limitStream) Next() (Event, error) {
	for {
		if s.left <= 0 {
			return Event{Kind: EvEnd}, nil
		}
		ev, err := s.in.Next()
		if err == nil && ev.Kind == EvRow {
			if s.skip > 0 {
				s.skip--
				continue
			}
			s.left--
		}
		return ev, err
	}
}

func (s *limitStream) Close() error { return s.in.Close() }

// UnionNode is UNION ALL: its inputs one after another.
type UnionNode struct {
	Ins []Node
}

var _ Node = (*UnionNode)(nil)

func (n *UnionNode) Schema() types.Schema { return n.Ins[0].Schema() }
func (n *UnionNode) Changelog() types.ChangelogMode {
	var m types.ChangelogMode
	for _, in := range n.Ins {
		m = m.Union(in.Changelog())
	}
	return m
}
func (n *UnionNode) Children() []Node { return n.Ins }
func (n *UnionNode) Explain() string  { return "Union(all=[true])" }

func (n *UnionNode) Open(ex *Execution) (Stream, error) {
	ins, err := OpenAll(ex, n.Ins)
	if err != nil {
		return nil, err
	}
	return &unionStream{ins: ins}, nil
}

// OpenAll opens nodes in order; when one fails it closes those it opened.
func OpenAll(ex *Execution, nodes []Node) ([]Stream, error) {
	var ins []Stream
	for _, n := range nodes {
		st, err := n.Open(ex)
		if err != nil {
			CloseAll(ins)
			return nil, err
		}
		ins = append(ins, st)
	}
	return ins, nil
}

// CloseAll closes every stream and returns the first error.
func CloseAll(ins []Stream) error {
	var first error
	for _, in := range ins {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

type unionStream struct {
	ins []Stream
	i   int
}

var _ Stream = (*unionStream)(nil)

func (s *unionStream) Next() (Event, error) {
	for s.i < len(s.ins) {
		ev, err := s.ins[s.i].Next()
		if err != nil {
			return ev, err
		}
		if ev.Kind == EvEnd {
			s.i++
			continue
		}
		if ev.Kind == EvWatermark {
			continue // watermarks of a union are the minimum; issue of event time
		}
		return ev, nil
	}
	return Event{Kind: EvEnd}, nil
}

func (s *unionStream) Close() error { return CloseAll(s.ins) }

// RenameNode is its input with other column names.
type RenameNode struct {
	In  Node
	Sch types.Schema
}

var _ Node = (*RenameNode)(nil)

var (
	_ Node        = (*RenameNode)(nil)
	_ UpsertKeyed = (*RenameNode)(nil)
)

func (n *RenameNode) Schema() types.Schema { return n.Sch }

func (n *RenameNode) Changelog() types.ChangelogMode { return n.In.Changelog() }

func (n *RenameNode) Children() []Node { return n.In.Children() }

func (n *RenameNode) Explain() string { return n.In.Explain() }

func (n *RenameNode) Open(ex *Execution) (Stream, error) { return n.In.Open(ex) }
