package connector

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The stdin connector reads a table's rows from standard input, as a pipe
// gives them:
//
//	CREATE TABLE logs (ts TIMESTAMP_LTZ(3), level STRING, msg STRING,
//	  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
//	WITH ('connector' = 'stdin', 'format' = 'csv');
//
//	tail -f app.log | ptfsh -f alerts.sql
//
// Formats: csv and json (JSON lines) with their file options, and raw:
// each line, without its line end, is the value of the table's one
// column (STRING or BYTES). The statements come from -f or -e; at the
// prompt, standard input is the shell's own and cannot be a table.
//
// Standard input is live: a query over it runs until the input ends
// (the writer closes the pipe, Ctrl-D at a terminal) or the statement is
// stopped (Ctrl-C, SIGTERM), which ends it with a final checkpoint. It
// cannot be read again: after a kill -9, the lines read since the last
// checkpoint are gone from the state, while a stop or the end of input
// keeps everything read (see docs/live-streams.md).

// StdinName names standard input in messages and positions.
const StdinName = "<stdin>"

// stdinOptions are the WITH options of the stdin connector.
var stdinOptions = []string{"connector", "format", "csv.field-delimiter", "csv.ignore-parse-errors",
	"csv.null-literal", "csv.quote-character", "csv.allow-comments", "json.ignore-parse-errors",
	"json.timestamp-format.standard", "timestamp-format.pattern", OptOpColumn, OptChangelog, optDeleteByKey}

type stdinConnector struct{}

func (stdinConnector) Name() string      { return "stdin" }
func (stdinConnector) Options() []string { return stdinOptions }

// PushesWatermark: a WATERMARK on a computed column is the source's, paced
// as one on a column the input holds.
func (stdinConnector) PushesWatermark() bool { return true }

func (f stdinConnector) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if err := checkOptions(f, ct); err != nil {
		return err
	}
	switch t.Options["format"] {
	case "csv", "json":
	case "raw":
		cols := t.Schema.Columns
		if len(cols) != 1 || !cols[0].Type.IsString() && cols[0].Type.Kind != types.KindBinary && cols[0].Type.Kind != types.KindVarBinary {
			return sqlmini.Errorf(optionPos(ct, "format"), "the raw format reads each line as the value of one column: table '%s' needs exactly one STRING or BYTES column", t.Name)
		}
		if _, ok := t.Options[OptOpColumn]; ok {
			return sqlmini.Errorf(optionPos(ct, OptOpColumn), "the raw format has no op column: each line is one value")
		}
	case "":
		return sqlmini.Errorf(ct.Pos, "table '%s' needs a 'format' option: 'csv', 'json' or 'raw'", t.Name)
	default:
		return sqlmini.Errorf(optionPos(ct, "format"), "unsupported format '%s' for standard input; available: csv, json, raw", t.Options["format"])
	}
	return nil
}

func (stdinConnector) Scan(t *catalog.Table, env Env, pos sqlmini.Pos) (exec.Node, error) {
	return &stdinNode{t: t, pump: env.Stdin, every: env.WatermarkEvery, idleTimeout: env.IdleTimeout, wmEvery: env.WatermarkInterval, pos: pos}, nil
}

// stdinNode reads a stdin table.
type stdinNode struct {
	t           *catalog.Table
	pump        *StdinPump
	every       int64
	idleTimeout time.Duration
	wmEvery     time.Duration // 'pipeline.auto-watermark-interval'
	pos         sqlmini.Pos
}

func (n *stdinNode) Schema() types.Schema { return n.t.Schema }
func (n *stdinNode) Changelog() types.ChangelogMode {
	if n.t.Changelog.IsEmpty() {
		return types.InsertOnly
	}
	return n.t.Changelog
}
func (n *stdinNode) UpsertKey() []int {
	if n.Changelog().IsInsertOnly() {
		return nil
	}
	return n.t.PrimaryKey
}
func (n *stdinNode) Children() []exec.Node { return nil }
func (n *stdinNode) Explain() string {
	return "TableSourceScan(table=[[" + n.t.Name + "]], fields=" + n.t.Schema.ColumnList() + ", stdin=[" + n.t.Options["format"] + "])"
}

func (n *stdinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if n.pump == nil {
		return nil, types.At(n.pos, fmt.Errorf("table '%s' reads standard input, which is the shell's own here: give the statements with -f or -e and pipe the rows in (tail -f app.log | ptfsh -f alerts.sql)", n.t.Name))
	}
	if !n.pump.claim() {
		return nil, types.At(n.pos, fmt.Errorf("table '%s': standard input is read once per statement: this statement reads it twice (read the table once in a view, or use a STATEMENT SET)", n.t.Name))
	}
	in := format.InputOptions{Stream: n.pump}
	var r format.RowReader
	var err error
	if n.t.Options["format"] == "raw" {
		r = &rawLines{pump: n.pump, typ: n.t.Schema.Columns[0].Type}
	} else {
		r, err = withChangelog(n.t, func(ft *catalog.Table) (format.RowReader, error) {
			return openTableReaderIn(ft, StdinName, format.SourcePos{}, in)
		})
	}
	if err != nil {
		n.pump.release()
		return nil, types.At(n.pos, err)
	}
	live := ex.Live()
	live.AddSource()
	n.pump.setWaker(live.Wake)
	return &stdinStream{n: n, r: r, ex: ex, live: live, wm: exec.NewWMGen(n.t.Watermark, n.every), idle: newIdleTimer(ex, n.idleTimeout), pace: wmPace{every: n.wmEvery}}, nil
}

type stdinStream struct {
	n       *stdinNode
	r       format.RowReader
	ex      *exec.Execution
	live    *exec.Live
	wm      *exec.WmGen
	pending bool
	wmNext  int64
	idle    idleTimer
	ended   bool
	held    *types.Row // a row that waits for the status event before it
	pace    wmPace
}

func (s *stdinStream) Next() (exec.Event, error) {
	if s.held != nil {
		r := *s.held
		s.held = nil
		return exec.Event{Kind: exec.EvRow, Row: r}, nil
	}
	if s.pending && (s.pace.due() || s.ended || s.ex.Stopping()) {
		s.pending = false
		s.pace.emitted()
		return exec.Event{Kind: exec.EvWatermark, Wm: s.wmNext}, nil
	}
	if s.ended || s.ex.Stopping() {
		// A stop ends the table at once: the lines not read yet stay for
		// the next statement that reads standard input.
		s.ended = true
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	r, err := s.r.Next()
	if err == io.EOF {
		if s.n.pump.Ended() {
			s.ended = true
			if perr := s.n.pump.Err(); perr != nil {
				return exec.Event{}, types.At(s.n.pos, fmt.Errorf("table '%s': reading standard input: %w", s.n.t.Name, perr))
			}
			s.reportSkipped()
			return exec.Event{Kind: exec.EvEnd}, nil
		}
		if ev, ok := s.idle.check(s.ex); ok {
			return ev, nil
		}
		if s.pending {
			s.pace.wake(s.ex)
		}
		return exec.Event{Kind: exec.EvIdle}, nil
	}
	if err != nil {
		return exec.Event{}, types.At(s.n.pos, fmt.Errorf("table '%s': %w", s.n.t.Name, err))
	}
	s.ex.RowsIn++
	if w, ok := s.wm.Observe(r); ok {
		s.pending, s.wmNext = true, w
	}
	if ev, ok := s.idle.active(s.ex); ok {
		s.held = &r // the input is active again before its row
		return ev, nil
	}
	return exec.Event{Kind: exec.EvRow, Row: r}, nil
}

func (s *stdinStream) Close() error {
	s.n.pump.setWaker(nil)
	s.n.pump.release()
	return s.r.Close()
}

// reportSkipped notes the bad rows the reader skipped, as a file source
// does at its end.
func (s *stdinStream) reportSkipped() {
	sr, ok := s.r.(format.SkipReporter)
	if !ok {
		return
	}
	n, first := sr.Skipped()
	if n == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "note: table '%s' skipped %d bad %s of standard input ('%s.ignore-parse-errors' = 'true')", s.n.t.Name, n, map[bool]string{true: "row", false: "rows"}[n == 1], s.n.t.Options["format"])
	for _, e := range first {
		b.WriteString("\n  " + e.Error())
	}
	if more := n - int64(len(first)); len(first) > 0 && more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	s.ex.Notes = append(s.ex.Notes, b.String())
}

// StdinPump reads standard input on a goroutine of its own, so that a
// statement reading it never blocks: the goroutine keeps whole lines (at
// most pumpMax bytes of them, then it waits for the statement), and the
// reader of a statement takes one line per Read, and io.EOF when no whole
// line has come, which it does not keep. Lines a statement did not take
// stay for the next statement that reads standard input. One pump serves
// a process; it is safe for concurrent use.
type StdinPump struct {
	src io.Reader

	mu      sync.Mutex
	cond    *sync.Cond // signalled when room frees up
	buf     []byte     // read and not taken
	ended   bool       // src ended
	err     error      // why it ended, if not io.EOF
	started bool
	claimed bool
	waker   func()
}

// pumpMax bounds what the pump reads ahead of its statement.
const pumpMax = 4 << 20

// NewStdinPump returns the pump of r (os.Stdin). It starts reading when a
// statement first reads it.
func NewStdinPump(r io.Reader) *StdinPump {
	p := &StdinPump{src: r}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// claim marks the pump read by a statement, starting it; false when one
// reads it already.
func (p *StdinPump) claim() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.claimed {
		return false
	}
	p.claimed = true
	if !p.started {
		p.started = true
		go p.run()
	}
	return true
}

func (p *StdinPump) release() {
	p.mu.Lock()
	p.claimed = false
	p.mu.Unlock()
}

func (p *StdinPump) setWaker(w func()) {
	p.mu.Lock()
	p.waker = w
	p.mu.Unlock()
}

func (p *StdinPump) run() {
	br := bufio.NewReaderSize(p.src, 64<<10)
	chunk := make([]byte, 64<<10)
	for {
		n, err := br.Read(chunk)
		p.mu.Lock()
		p.buf = append(p.buf, chunk[:n]...)
		if err != nil {
			p.ended = true
			if !errors.Is(err, io.EOF) {
				p.err = err
			}
		}
		w := p.waker
		for !p.ended && len(p.buf) >= pumpMax {
			p.cond.Wait()
		}
		p.mu.Unlock()
		if w != nil && (n > 0 || err != nil) {
			w()
		}
		if err != nil {
			return
		}
	}
}

// Read takes the next whole line (the last one without its line end once
// the input ended), or returns io.EOF when none has come.
func (p *StdinPump) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	end := bytes.IndexByte(p.buf, '\n') + 1
	if end == 0 && p.ended {
		end = len(p.buf)
	}
	if end == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.buf[:end])
	p.buf = p.buf[n:]
	if len(p.buf) == 0 {
		p.buf = nil
	}
	p.cond.Signal()
	return n, nil
}

// Ended reports whether standard input ended and every line was taken.
func (p *StdinPump) Ended() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ended && len(p.buf) == 0
}

// Err returns why standard input ended, when not at its end.
func (p *StdinPump) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// rawLines reads a stdin table of the raw format: each line, without its
// line end, is the one column's value.
type rawLines struct {
	pump *StdinPump
	typ  types.Type
	br   *bufio.Reader
	line int
	off  int64
	rows int64
	long []byte
}

func (r *rawLines) Next() (types.Row, error) {
	if r.br == nil {
		r.br = bufio.NewReaderSize(r.pump, 64<<10)
	}
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
			if len(r.long) > format.MaxLineBytes {
				return types.Row{}, format.LineTooLong(StdinName, r.line+1)
			}
		}
		line = r.long
	}
	if len(line) == 0 {
		if err == nil {
			err = io.EOF
		}
		return types.Row{}, err
	}
	r.line++
	r.off += int64(len(line))
	content := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	var v any
	if !r.typ.IsString() {
		v = bytes.Clone(content)
	} else {
		v = string(content)
	}
	r.rows++
	return types.Row{Kind: types.Insert, Fields: []any{v}}, nil
}

func (r *rawLines) Position() format.SourcePos {
	return format.SourcePos{File: StdinName, Line: r.line + 1, Offset: r.off, Row: r.rows}
}

func (r *rawLines) Close() error { return nil }
