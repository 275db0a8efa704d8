package runtime

import (
	"context"
	"io"
	"time"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

type eventKind uint8

const (
	evRow eventKind = iota
	evWatermark
	evEnd
	// evTick carries nothing: an operator that consumed many rows without
	// output hands control back, so that the driver can take a checkpoint.
	evTick
)

// event is what flows between operators: a row, a watermark, or the end.
type event struct {
	kind eventKind
	row  types.Row
	wm   int64
}

// stream is a running operator: next returns its events in order; after
// evEnd it is not called again. close releases what open took.
type stream interface {
	next() (event, error)
	close() error
}

// node is a plan node: a schema, a changelog mode, and a way to run.
type node interface {
	schema() types.Schema
	changelog() types.ChangelogMode
	open(ex *execution) (stream, error)
	// explain describes the node in one line for EXPLAIN; children()
	// lists its inputs.
	explain() string
	children() []node
}

// upsertKeyed is a node whose updates are keyed: each key has at most one
// live row, and an update or delete of the key replaces or removes it. A
// GROUP BY's groups, a primary-key source's key, an upsert PTF's PARTITION
// BY columns. Nodes without it have no upsert key.
type upsertKeyed interface {
	upsertKey() []int
}

// upsertKeyOf returns a node's upsert key (column indexes), or nil.
func upsertKeyOf(n node) []int {
	if u, ok := n.(upsertKeyed); ok {
		return u.upsertKey()
	}
	return nil
}

// execution holds what one running statement shares between operators.
type execution struct {
	ctx   context.Context
	store state.Store
	// ptfs are the PTF operators of the statement, flushed at checkpoints.
	ptfs []*ptfOp
	// sources are the file sources, whose positions go into checkpoints.
	sources []*fileStream
	// trace receives the trace of each call when tracing is on (trace.go).
	trace io.Writer
	// uncheckpointable says why no checkpoint may be taken before the end.
	uncheckpointable string
	// tees are the running shared calls (fanout.go).
	tees map[node]*teeShared
	// normalizers keep the last row per key of updating inputs.
	normalizers []*normalizeStream
	// resetSources: SET 'state.source-positions' = 'reset'.
	resetSources bool
	// discardIncompatible: SET 'state.on-incompatible' = 'discard'.
	discardIncompatible bool
	// cacheSize is SET 'state.cache-size': live keys per PTF call.
	cacheSize int
	// rowsIn counts rows read from sources.
	rowsIn int64
	// now is the processing time in epoch milliseconds (for state TTL).
	now func() int64
	// defaultTTL is table.exec.state.ttl in milliseconds (0: none).
	defaultTTL int64
	// maxTimerFirings stops a runaway onTimer (0: no limit).
	maxTimerFirings int
	// notes are said on stderr after the statement.
	notes []string
	// endOfInput: a bounded input ends with the maximum watermark, which
	// fires every timer left. Without it a statement stops the way Flink's
	// stop-with-savepoint does (SET 'ptfsh.end-of-input' = 'false').
	endOfInput bool
	// parallelism is SET 'parallelism.default' (--parallelism): how many
	// workers a call that qualifies runs on (parallel.go).
	parallelism int
}

// noCheckpoints turns off checkpoints during the statement: an operator
// whose state is not part of checkpoints is in the plan, so a restart
// after a crash must begin from the statement's start (where the last
// complete checkpoint left everything) to stay exactly-once.
func (ex *execution) noCheckpoints(why string) {
	if ex.uncheckpointable == "" {
		ex.uncheckpointable = why
	}
}

// quiescent reports whether no operator holds rows it has not handed on,
// the moment a checkpoint describes exactly the rows the sink has seen.
func (ex *execution) quiescent() bool {
	for _, op := range ex.ptfs {
		if op.oi < len(op.out) {
			return false
		}
		// A parallel call that failed has handed out the rows before the
		// failing one, but its workers may have run rows after it: no
		// checkpoint may record that.
		if op.par != nil && op.par.inErr != nil {
			return false
		}
	}
	return true
}

// newExecution returns an execution with the defaults: the wall clock and
// a limit of a million timer firings per watermark.
func newExecution(ctx context.Context, store state.Store) *execution {
	return &execution{ctx: ctx, store: store, now: func() int64 { return time.Now().UnixMilli() }, maxTimerFirings: 1_000_000, endOfInput: true, cacheSize: defaultCacheSize, parallelism: 1}
}

// valuesNode is a VALUES list, a view over one, or a table given AS
// VALUES. Its events are rows and watermark steps written into the data;
// with a WATERMARK declaration it also emits watermarks after rows.
type valuesNode struct {
	sch    types.Schema
	events []event
	wm     *WatermarkSpec
	every  int64
}

func (n *valuesNode) schema() types.Schema           { return n.sch }
func (n *valuesNode) changelog() types.ChangelogMode { return types.InsertOnly }
func (n *valuesNode) children() []node               { return nil }
func (n *valuesNode) explain() string {
	return "Values(tuples=[" + itoa(len(n.events)) + " rows], fields=" + names(n.sch) + ")"
}

func (n *valuesNode) open(ex *execution) (stream, error) {
	return &valuesStream{events: n.events, ex: ex, wm: newWMGen(n.wm, n.every)}, nil
}

type valuesStream struct {
	events  []event
	i       int
	ex      *execution
	wm      *wmGen
	pending *event
}

func (s *valuesStream) next() (event, error) {
	if s.pending != nil {
		ev := *s.pending
		s.pending = nil
		return ev, nil
	}
	for s.i < len(s.events) {
		ev := s.events[s.i]
		s.i++
		if ev.kind == evWatermark {
			if s.wm.explicit(ev.wm) {
				return ev, nil
			}
			continue
		}
		s.ex.rowsIn++
		if w, ok := s.wm.observe(ev.row); ok {
			s.pending = &event{kind: evWatermark, wm: w}
		}
		return ev, nil
	}
	return event{kind: evEnd}, nil
}

func (s *valuesStream) close() error { return nil }

// filterNode keeps the rows for which pred is TRUE.
type filterNode struct {
	in   node
	pred expr.Expr
	text string
}

func (n *filterNode) schema() types.Schema           { return n.in.schema() }
func (n *filterNode) changelog() types.ChangelogMode { return n.in.changelog() }
func (n *filterNode) children() []node               { return []node{n.in} }
func (n *filterNode) explain() string                { return "Filter(condition=[" + n.text + "])" }

func (n *filterNode) open(ex *execution) (stream, error) {
	in, err := n.in.open(ex)
	if err != nil {
		return nil, err
	}
	return &filterStream{in: in, pred: n.pred}, nil
}

type filterStream struct {
	in   stream
	pred expr.Expr
}

func (s *filterStream) next() (event, error) {
	for {
		ev, err := s.in.next()
		if err != nil || ev.kind != evRow {
			return ev, err
		}
		v, err := s.pred.Eval(ev.row.Fields)
		if err != nil {
			return ev, err
		}
		if v == true {
			return ev, nil
		}
	}
}

func (s *filterStream) close() error { return s.in.close() }

// projectNode computes new columns.
type projectNode struct {
	in    node
	exprs []expr.Expr
	sch   types.Schema
	texts []string
}

func (n *projectNode) schema() types.Schema           { return n.sch }
func (n *projectNode) changelog() types.ChangelogMode { return n.in.changelog() }
func (n *projectNode) children() []node               { return []node{n.in} }
func (n *projectNode) explain() string {
	return "Calc(select=[" + joinStrings(n.texts) + "])"
}

func (n *projectNode) open(ex *execution) (stream, error) {
	in, err := n.in.open(ex)
	if err != nil {
		return nil, err
	}
	return &projectStream{in: in, exprs: n.exprs}, nil
}

type projectStream struct {
	in    stream
	exprs []expr.Expr
}

func (s *projectStream) next() (event, error) {
	ev, err := s.in.next()
	if err != nil || ev.kind != evRow {
		return ev, err
	}
	out := make([]any, len(s.exprs))
	for i, e := range s.exprs {
		if out[i], err = e.Eval(ev.row.Fields); err != nil {
			return ev, err
		}
	}
	ev.row = types.Row{Kind: ev.row.Kind, Fields: out}
	return ev, nil
}

func (s *projectStream) close() error { return s.in.close() }

// limitNode stops after n rows.
type limitNode struct {
	in node
	n  int64
}

func (n *limitNode) schema() types.Schema           { return n.in.schema() }
func (n *limitNode) changelog() types.ChangelogMode { return n.in.changelog() }
func (n *limitNode) children() []node               { return []node{n.in} }
func (n *limitNode) explain() string                { return "Limit(fetch=[" + itoa(int(n.n)) + "])" }

func (n *limitNode) open(ex *execution) (stream, error) {
	in, err := n.in.open(ex)
	if err != nil {
		return nil, err
	}
	return &limitStream{in: in, left: n.n}, nil
}

type limitStream struct {
	in   stream
	left int64
}

func (s *limitStream) next() (event, error) {
	if s.left <= 0 {
		return event{kind: evEnd}, nil
	}
	ev, err := s.in.next()
	if err == nil && ev.kind == evRow {
		s.left--
	}
	return ev, err
}

func (s *limitStream) close() error { return s.in.close() }

// unionNode is UNION ALL: its inputs one after another.
type unionNode struct {
	ins []node
}

func (n *unionNode) schema() types.Schema { return n.ins[0].schema() }
func (n *unionNode) changelog() types.ChangelogMode {
	var m types.ChangelogMode
	for _, in := range n.ins {
		m = m.Union(in.changelog())
	}
	return m
}
func (n *unionNode) children() []node { return n.ins }
func (n *unionNode) explain() string  { return "Union(all=[true])" }

func (n *unionNode) open(ex *execution) (stream, error) {
	s := &unionStream{}
	for _, in := range n.ins {
		st, err := in.open(ex)
		if err != nil {
			s.close()
			return nil, err
		}
		s.ins = append(s.ins, st)
	}
	return s, nil
}

type unionStream struct {
	ins []stream
	i   int
}

func (s *unionStream) next() (event, error) {
	for s.i < len(s.ins) {
		ev, err := s.ins[s.i].next()
		if err != nil {
			return ev, err
		}
		if ev.kind == evEnd {
			s.i++
			continue
		}
		if ev.kind == evWatermark {
			continue // watermarks of a union are the minimum; issue of event time
		}
		return ev, nil
	}
	return event{kind: evEnd}, nil
}

func (s *unionStream) close() error {
	var first error
	for _, in := range s.ins {
		if err := in.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
