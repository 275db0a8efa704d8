package session

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// Streams, stepped by hand: a lesson feeds a stream a
// few rows at a time and moves its time by hand, and sees after each step
// what a query on it emits, with SHOW STATE and SHOW TIMERS in between.
//
//	CREATE STREAM s (id STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts);
//	SELECT * FROM f(TABLE s PARTITION BY id, on_time => DESCRIPTOR(ts));   -- keeps running
//	INSERT INTO s VALUES ('a', TIMESTAMP '2025-03-27 12:00:00');           -- prints what f emits
//	ADVANCE WATERMARK s TO TIMESTAMP '2025-03-27 12:01:00';                -- timers fire
//	SHOW TIMERS FOR 'f';
//	ADVANCE WATERMARK s TO END;                                            -- the end of input
//
// A stream has a processing-time clock of its own, which stands still
// between steps, as a test driver's does: it starts at the session's clock
// when the stream is created (the wall clock to the second, or SET
// 'ptfsh.processing-time'), and only ADVANCE PROCESSING TIME s TO time (or
// BY an interval) moves it; the first step, before any row, may set it to
// any time. PROCTIME() columns, processing-time windows
// and state TTL of a query on the stream read it, so that each step
// replays the same.
//
// A query that reads a stream keeps running: it is the session's running
// query until another query on a stream takes its place, its stream is
// dropped or ends. At each step the session runs it again over every event
// of its streams, from fresh state and without the end of input (so that
// state and timers stay in the store for SHOW STATE and SHOW TIMERS), and
// prints only the rows past those it printed before; the trace (--trace)
// shows only the calls the step adds. Steps replay, so the function must
// be deterministic: SET 'ptfsh.seed' when it draws random numbers. A
// lesson's stream is short, and a step costs a run over it.

// runningQuery is the query that runs on streams.
type runningQuery struct {
	st      *sqlmini.Statement
	streams []string // the streams it reads
	rows    int64    // rows printed so far
	// printed counts the rows printed so far by their text (kind and
	// values): a step prints the rows of its replay past these. A UNION
	// ALL hands on its inputs one after the other, so a replay's rows
	// from the step's events need not come after those of earlier steps.
	printed map[string]int
	events  map[string]int // each stream's events that the last step read
	// notes are the operators' notes of the last step's replay
	// (exec.Execution.Notes), which a step does not print again.
	notes []string
	uids  []string // the uids of its PTF calls
}

// StreamInfo describes a stream (CREATE STREAM) for a front end that
// steps it: its name and columns, and whether it has ended.
type StreamInfo struct {
	Name    string
	Columns []string // "name TYPE"
	Ended   bool
}

// Streams lists the session's streams, by name.
func (s *Session) Streams() []StreamInfo {
	var out []StreamInfo
	for _, name := range s.cat.TableNames() {
		t, ok := s.cat.Table(name)
		if !ok || !t.Stream {
			continue
		}
		info := StreamInfo{Name: t.Name, Ended: streamEnded(t)}
		for _, c := range t.Schema.Columns {
			info.Columns = append(info.Columns, c.Name+" "+c.Type.String())
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Running returns the streams that the query running on streams reads and
// the uids of its PTF calls (SHOW STATE and SHOW TIMERS read them), or
// nothing when no query runs on streams.
func (s *Session) Running() (streams, uids []string) {
	if s.running == nil {
		return nil, nil
	}
	return append([]string(nil), s.running.streams...), append([]string(nil), s.running.uids...)
}

// stepRun is what the run of a step changes in its execution, and what
// the replay counted while it read the step's own events, so that the
// counts a step shows (rows read, rows ORDER BY dropped) are the step's,
// not the whole replay's.
type stepRun struct {
	gate *gateWriter
	ex   *exec.Execution // set by run
	// key names the state of the query's operators in every step
	// (exec.OperatorNamespace); each step drops it first.
	key    string
	marked bool
	// live: a scan reads the step's own events, since ex.RowsIn was
	// since; read counts the rows read so while no scan was live.
	live  bool
	since int64
	read  int64
	took  time.Duration
	// notes are the operators' notes of the last step (newNotes).
	notes *[]string
}

// newNotes returns the operators' notes of the replay that the last
// step's replay did not give: a note counts over the whole replay ("TUMBLE
// dropped 1 late row"), so a step says it again only when it changed.
func (st *stepRun) newNotes(notes []string) []string {
	var out []string
	for _, n := range notes {
		if !slices.Contains(*st.notes, n) {
			out = append(out, n)
		}
	}
	*st.notes = slices.Clone(notes)
	return out
}

// setLive says that a scan of the replay begins the events of earlier
// steps (false) or the step's own (true): the trace and the counts take
// only the step's own.
func (st *stepRun) setLive(live bool) {
	st.gate.open = live
	if st.ex == nil || live == st.live {
		return
	}
	st.live = live
	if !live {
		st.read += st.ex.RowsIn - st.since
		return
	}
	st.since = st.ex.RowsIn
	if !st.marked {
		st.marked = true
		for _, call := range st.ex.Ptfs {
			call.MarkNotes()
		}
	}
}

// rowsRead is how many rows the step read: those of its own events.
func (st *stepRun) rowsRead() int64 {
	if st.live {
		return st.read + st.ex.RowsIn - st.since
	}
	return st.read
}

// gateWriter passes writes on once it is open: the trace of a step shows
// the calls of its new events, not those of the replay before them.
type gateWriter struct {
	w    io.Writer
	open bool
}

func (g *gateWriter) Write(b []byte) (int, error) {
	if !g.open || g.w == nil {
		return len(b), nil
	}
	return g.w.Write(b)
}

// createStream registers CREATE STREAM s (columns, WATERMARK ...).
func (s *Session) createStream(c *sqlmini.Create, ct *sqlmini.CreateTable) error {
	if ct.Like != nil {
		return sqlmini.Errorf(ct.Like.Pos, "a stream declares its own columns: CREATE STREAM takes no LIKE clause")
	}
	if len(ct.Options) > 0 {
		return sqlmini.Errorf(ct.Options[0].Pos, "a stream takes no WITH options: its rows come from INSERT INTO %s VALUES (...), its time from its WATERMARK declaration and ADVANCE WATERMARK %s TO ...", ct.Name.Value, ct.Name.Value)
	}
	if ct.Query != nil {
		return sqlmini.Errorf(ct.Query.Pos, "a stream starts empty: give it rows with INSERT INTO %s VALUES (...)", ct.Name.Value)
	}
	if err := s.createTable(c, ct); err != nil {
		return err
	}
	if s.running != nil && containsName(s.running.streams, string(ct.Name.Value)) {
		s.stopRunning("its stream " + string(ct.Name.Value) + " was replaced")
	}
	return nil
}

// streamEnded reports whether a stream's time reached the end of input.
func streamEnded(t *catalog.Table) bool {
	n := len(t.Events)
	return n > 0 && t.Events[n-1].Kind == exec.EvWatermark && t.Events[n-1].Wm == exec.MaxWatermark
}

// endedErr is the error of a step on a stream that ended.
func endedErr(pos sqlmini.Pos, name string) error {
	return sqlmini.Errorf(pos, "stream %s has ended (ADVANCE WATERMARK %s TO END); CREATE OR REPLACE STREAM %s starts it again, empty", name, name, name)
}

// insertStream runs INSERT INTO stream VALUES ...: the rows (and WATERMARK
// steps) join the stream, and the running query on it takes the step.
func (s *Session) insertStream(ctx context.Context, stmt *statement, t *catalog.Table) error {
	ins := stmt.Insert
	q := ins.Query
	if len(q.With) > 0 || len(q.Ops) > 0 || q.Body.Values == nil {
		return sqlmini.Errorf(q.Pos, "INSERT INTO stream %s takes VALUES rows (and WATERMARK steps): INSERT INTO %s VALUES (...), (...)", t.Name, t.Name)
	}
	if streamEnded(t) {
		return endedErr(ins.Table.Pos, t.Name)
	}
	exprs, width, err := plan.CompileValues(q.Body.Values)
	if err != nil {
		return err
	}
	sch := t.ScanTable().Schema // the rows give the columns that are not computed
	if width != sch.Len() {
		computed := ""
		if len(t.Computed) > 0 {
			computed = " to give (the others are computed)"
		}
		return sqlmini.Errorf(q.Pos, "stream %s has %s %s%s, but the VALUES rows have %s", t.Name, plural(int64(sch.Len()), "column"), sch.ColumnList(), computed, plural(int64(width), "value"))
	}
	events, err := plan.ValuesEvents(q.Body.Values, exprs, sch)
	if err != nil {
		return err
	}
	t.Events = append(t.Events[:len(t.Events):len(t.Events)], events...) // a new array: scans planned before keep theirs
	return s.step(ctx, stmt, t.Name, ins.Pos)
}

// advance runs ADVANCE WATERMARK stream TO time | END, ADVANCE PROCESSING
// TIME stream TO time, and either BY an interval.
func (s *Session) advance(ctx context.Context, stmt *statement) error {
	a := stmt.Advance
	what := "ADVANCE WATERMARK"
	if a.Processing {
		what = "ADVANCE PROCESSING TIME"
	}
	name := string(a.Stream.Value)
	t, ok := s.cat.Table(name)
	if !ok {
		return sqlmini.Errorf(a.Stream.Pos, "Object '%s' not found%s", name, s.cat.SuggestTable(name))
	}
	if !t.Stream {
		return sqlmini.Errorf(a.Stream.Pos, "%s moves the time of a stream (CREATE STREAM), and '%s' is not one", what, name)
	}
	if streamEnded(t) {
		return endedErr(a.Stream.Pos, name)
	}
	if a.Processing {
		return s.advanceProcessing(ctx, stmt, t)
	}
	cur, has := s.streamWatermark(t)
	ts := int64(exec.MaxWatermark)
	switch {
	case a.By != nil:
		if !has {
			return sqlmini.Errorf(a.Pos, "%s has no watermark yet to move BY an interval: ADVANCE WATERMARK %s TO a time first", name, name)
		}
		d, err := stepInterval(a.By)
		if err != nil {
			return err
		}
		ts = cur + d
	case !a.End:
		var err error
		if ts, err = plan.WatermarkStep(a.To); err != nil {
			return err
		}
		if ts == exec.MaxWatermark {
			return sqlmini.Errorf(a.To.Pos, "that is the end of input: write ADVANCE WATERMARK %s TO END", name)
		}
	}
	if has && ts <= cur {
		return sqlmini.Errorf(a.Pos, "the watermark of %s is already at %s: ADVANCE WATERMARK moves it forward, to a later time or TO END", name, timeline.FormatTime(cur))
	}
	t.Events = append(t.Events[:len(t.Events):len(t.Events)], exec.Event{Kind: exec.EvWatermark, Wm: ts})
	return s.step(ctx, stmt, name, a.Pos)
}

// advanceProcessing runs ADVANCE PROCESSING TIME stream TO time | BY
// interval: the stream's clock moves forward, and the running query sees
// the processing time pass (windows on PROCTIME() fire, state TTL
// expires) with no row.
func (s *Session) advanceProcessing(ctx context.Context, stmt *statement, t *catalog.Table) error {
	a := stmt.Advance
	cur := streamClock(t)
	var ts int64
	switch {
	case a.End:
		return sqlmini.Errorf(a.Pos, "processing time has no end: ADVANCE PROCESSING TIME %s TO a time or BY an interval (ADVANCE WATERMARK %s TO END ends the input)", t.Name, t.Name)
	case a.By != nil:
		d, err := stepInterval(a.By)
		if err != nil {
			return err
		}
		ts = cur + d
	default:
		var err error
		if ts, err = plan.WatermarkStep(a.To); err != nil {
			return err
		}
	}
	if ts <= cur && len(t.Events) > 0 { // a stream with no events yet may start its clock anywhere
		return sqlmini.Errorf(a.Pos, "the processing time of %s is already %s: ADVANCE PROCESSING TIME moves it forward, to a later time", t.Name, timeline.FormatTime(cur))
	}
	t.Events = append(t.Events[:len(t.Events):len(t.Events)], exec.Event{Kind: exec.EvIdle, Wm: ts})
	return s.step(ctx, stmt, t.Name, a.Pos)
}

// stepInterval is the interval of ADVANCE ... BY, in milliseconds: a
// positive INTERVAL.
func stepInterval(e *sqlmini.Expr) (int64, error) {
	x, err := expr.Compile(e, nil)
	if err != nil {
		return 0, err
	}
	v, err := x.Eval(nil)
	if err != nil {
		return 0, sqlmini.Errorf(e.Pos, "%w", err)
	}
	d, ok := v.(types.Duration)
	if !ok || d <= 0 {
		return 0, sqlmini.Errorf(e.Pos, "BY takes a positive interval of time, such as INTERVAL '10' SECOND, not %s", e)
	}
	return int64(d), nil
}

// streamClock is the processing time of a stream after its steps so far.
func streamClock(t *catalog.Table) int64 {
	for i := len(t.Events) - 1; i >= 0; i-- {
		if t.Events[i].Kind == exec.EvIdle {
			return t.Events[i].Wm
		}
	}
	return t.Clock
}

// streamClock is the clock a new stream starts at: SET
// 'ptfsh.processing-time', else the wall clock to the second.
func (s *Session) streamClock() int64 {
	if text, ok := s.processingTime(); ok {
		if o, err := exec.NewOptions(map[string]string{exec.SetProcessingTime: text}); err == nil {
			return o.ProcessingTime
		}
	}
	return time.Now().Truncate(time.Second).UnixMilli()
}

// streamWatermark is the watermark a stream's events have reached: its
// steps and what its WATERMARK declaration makes of its rows.
func (s *Session) streamWatermark(t *catalog.Table) (int64, bool) {
	spec := t.ScanTable().Watermark // on a column the rows give
	if spec == nil {
		var wm int64
		has := false
		for _, ev := range t.Events {
			if ev.Kind == exec.EvWatermark && (!has || ev.Wm > wm) {
				wm, has = ev.Wm, true
			}
		}
		return wm, has
	}
	g := exec.NewWMGen(spec, s.watermarkEvery())
	for _, ev := range t.Events {
		switch ev.Kind {
		case exec.EvWatermark:
			g.Explicit(ev.Wm)
		case exec.EvRow:
			g.Observe(ev.Row)
		}
	}
	st := g.State()
	return st.Emitted, st.Has
}

// planPTFs lists the PTF calls of a plan (a call used twice once).
func planPTFs(n exec.Node) []*ptfop.Node {
	var out []*ptfop.Node
	seen := map[*ptfop.Node]bool{}
	var walk func(exec.Node)
	walk = func(n exec.Node) {
		switch x := n.(type) {
		case *exec.TeeNode: // a shared call: its children are the call's inputs
			walk(x.In)
			return
		case *ptfop.Node:
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

// streamScans lists the streams a plan reads.
func streamScans(n exec.Node) []*connector.StreamScan {
	var out []*connector.StreamScan
	var walk func(exec.Node)
	walk = func(n exec.Node) {
		if sc, ok := n.(*connector.StreamScan); ok {
			out = append(out, sc)
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return out
}

// startRunning makes a query on streams the running query and runs its
// first step over what the streams hold.
func (s *Session) startRunning(ctx context.Context, stmt *statement, scans []*connector.StreamScan) error {
	st := stmt.Statement
	if s.running != nil {
		s.stopRunning("a new query on a stream takes its place")
	}
	rq := &runningQuery{st: st, events: map[string]int{}, printed: map[string]int{}}
	for _, sc := range scans {
		if !containsName(rq.streams, sc.Table.Name) {
			rq.streams = append(rq.streams, sc.Table.Name)
		}
	}
	s.running = rq
	fmt.Fprintf(s.cfg.Err, "note: the query keeps running on %s: INSERT INTO and ADVANCE WATERMARK show what each step emits; SHOW STATE and SHOW TIMERS see its state between steps\n", strings.Join(rq.streams, ", "))
	return s.replay(ctx, stmt, st.Pos, true)
}

// stopRunning ends the running query, saying why.
func (s *Session) stopRunning(why string) {
	if s.running == nil {
		return
	}
	fmt.Fprintf(s.cfg.Err, "note: the query on %s stopped: %s\n", strings.Join(s.running.streams, ", "), why)
	s.running = nil
}

// streamDropped stops the running query when its stream goes.
func (s *Session) streamDropped(name string) {
	if s.running != nil && containsName(s.running.streams, name) {
		s.stopRunning("its stream " + name + " was dropped")
	}
}

func containsName(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

// step gives the running query the step of stream name, if it reads it.
func (s *Session) step(ctx context.Context, stmt *statement, name string, pos sqlmini.Pos) error {
	if s.running == nil || !containsName(s.running.streams, name) {
		return nil // kept for a query to come
	}
	guess, predicting := s.predictStep(stmt) // predict.go
	stmt.stepRows = nil
	if predicting {
		stmt.stepRows = []stepRow{}
	}
	err := s.replay(ctx, stmt, pos, false)
	if err == nil && predicting {
		s.scoreGuess(guess, stmt.stepRows)
	}
	stmt.stepRows = nil
	return err
}

// replay runs the running query again over its streams' events, from
// fresh state and without the end of input, and prints the rows past
// those it printed before.
func (s *Session) replay(ctx context.Context, stmt *statement, pos sqlmini.Pos, first bool) error {
	rq := s.running
	n, err := plan.New(s.cat, s.sourceEnv()).Printed(rq.st.Query)
	if err != nil {
		s.stopRunning("it no longer plans")
		return err
	}
	rq.uids = rq.uids[:0]
	for _, p := range planPTFs(n) {
		if p.UID != "" {
			rq.uids = append(rq.uids, p.UID)
		}
	}
	// Fresh state: the last step left its state and timers for SHOW, and
	// the state of its SQL operators (windows, aggregates).
	key := statementHash(rq.st)[:16]
	err = s.cfg.Store.Update(func(tx state.Tx) error {
		if err := exec.DropOperators(tx, key); err != nil {
			return err
		}
		for _, p := range planPTFs(n) {
			if p.UID == "" {
				continue
			}
			if err := exec.DropUID(tx, p.UID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return sqlmini.Errorf(pos, "%w", err)
	}
	gate := &gateWriter{}
	seen := map[string]int{}
	ended := true
	st := &stepRun{gate: gate, key: key, notes: &rq.notes}
	for _, sc := range streamScans(n) {
		sc.Replayed = rq.events[sc.Table.Name]
		sc.Live = st.setLive
		seen[sc.Table.Name] = len(sc.Events)
		ended = ended && streamEnded(sc.Table)
	}
	stmt.stepping = st
	defer func() { stmt.stepping = nil }()
	out := bufio.NewWriterSize(s.cfg.Out, 64<<10)
	defer out.Flush()
	p, err := format.NewPrinter(s.format(), out)
	if err != nil {
		return sqlmini.Errorf(pos, "%w", err)
	}
	if rq.rows == 0 { // the first rows of the query name its columns
		p = s.withColumnsNote(p, s.format())
	}
	format.SetUpsertKey(p, exec.UpsertKeyOf(n))
	width, _ := settings.Get[int](s.settings, format.SetMaxColumnWidthKey)
	format.SetMaxColumnWidth(p, width)
	format.SetEscapeControls(p, s.cfg.Terminal)
	s.boundTable(p)
	sk := &stepSink{p: p, skip: maps.Clone(rq.printed), printed: rq.printed, record: stmt.stepRows != nil, rows: &stmt.stepRows}
	if err := s.run(ctx, stmt, pos, n, sk, out); err != nil {
		out.Flush()
		s.stopRunning("the step failed")
		return err
	}
	rq.rows, rq.events = rq.rows+sk.n, seen
	if sk.n == 0 && !first {
		out.Flush()
		fmt.Fprintln(s.cfg.Err, "note: no rows at this step")
	}
	if s.cfg.Timing {
		out.Flush()
		fmt.Fprintf(s.cfg.Err, "(this step: %s read, %s out, %.3f s)\n", plural(st.rowsRead(), "row"), plural(sk.n, "row"), st.took.Seconds())
	}
	if ended {
		out.Flush()
		s.stopRunning("its input ended")
	}
	return nil
}

// stepSink prints the rows of a replay that earlier steps did not print:
// skip counts those by their text, and each row of the replay that
// matches one uses it up. A replay is deterministic and reads the events
// of earlier steps first, so every row printed before comes again, though
// not always first (a UNION ALL reads its inputs one after the other).
type stepSink struct {
	p    format.Printer
	skip map[string]int
	// printed gets the rows printed, by their text; n counts them.
	printed map[string]int
	n       int64
	sch     types.Schema
	begun   bool
	// record keeps the new rows as text in rows (predict.go).
	record bool
	rows   *[]stepRow
}

func (k *stepSink) Begin(sch types.Schema) error { k.sch = sch; return nil }

func (k *stepSink) Row(r types.Row) error {
	text := types.FormatRow(r, k.sch)
	if k.skip[text] > 0 {
		k.skip[text]--
		return nil
	}
	k.n++
	k.printed[text]++
	if !k.begun {
		k.begun = true
		if err := k.p.Begin(k.sch); err != nil {
			return err
		}
	}
	if k.record {
		*k.rows = append(*k.rows, newStepRow(r, k.sch))
	}
	return k.p.Row(r)
}

func (k *stepSink) End() error {
	if !k.begun {
		return nil
	}
	return k.p.End()
}
