package connector

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// The 'print' and 'blackhole' connectors are Flink's sinks for trying a
// query out: print writes each row as Flink's Row.toString (+I[Bob, 12],
// -U[...]) on standard output, or standard error with 'standard-error' =
// 'true', after the prefix 'print-identifier> ' when one is given (Flink
// adds the writer's number, "2> ", when a sink runs on several; ptfsh
// writes from one); blackhole takes every row and keeps none. Both take
// any changelog and cannot be read.

// sinkOnly is a connector whose tables are written, never read.
type sinkOnly struct {
	name    string
	options []string
}

func (c sinkOnly) Name() string      { return c.name }
func (c sinkOnly) Options() []string { return c.options }

func (c sinkOnly) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if err := checkOptions(c, ct); err != nil {
		return err
	}
	if v, ok := t.Options["standard-error"]; ok && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		return sqlmini.Errorf(optionPos(ct, "standard-error"), "option 'standard-error' must be 'true' or 'false', not '%s'", v)
	}
	return nil
}

func (c sinkOnly) Scan(t *catalog.Table, _ Env, pos sqlmini.Pos) (exec.Node, error) {
	return nil, sqlmini.Errorf(pos, "Connector '%s' can only be used as a sink. It cannot be used as a source: table '%s' is written by INSERT INTO", c.name, t.Name)
}

var (
	printConnector     = sinkOnly{name: "print", options: []string{"connector", "print-identifier", "standard-error", "sink.parallelism"}}
	blackholeConnector = sinkOnly{name: "blackhole", options: []string{"connector"}}
)

// IsPrintOrBlackhole reports whether t is a table of the print or the
// blackhole connector.
func IsPrintOrBlackhole(t *catalog.Table) bool {
	c := t.Options["connector"]
	return t.Kind == catalog.TableConnector && (c == "print" || c == "blackhole")
}

// PrintSink is the sink of INSERT INTO a print or blackhole table.
type PrintSink struct {
	t      *catalog.Table
	w      *bufio.Writer // nil: a blackhole
	prefix string
	cols   []types.Column
	buf    []byte
	rows   int64
	escape bool // the rows go to a terminal: control characters escaped
	esc    []byte
}

// SetEscapeControls makes the sink write the control characters of its
// rows as escapes ([types.EscapeControls]), for a terminal.
func (s *PrintSink) SetEscapeControls(on bool) { s.escape = on }

// NewPrintSink returns the sink of table t (print or blackhole); out and
// errOut are the session's standard output and error.
func NewPrintSink(t *catalog.Table, out, errOut io.Writer) *PrintSink {
	sk := &PrintSink{t: t, cols: t.Schema.Columns}
	if t.Options["connector"] == "print" {
		w := out
		if strings.EqualFold(t.Options["standard-error"], "true") {
			w = errOut
		}
		sk.w = bufio.NewWriter(w)
		if id := t.Options["print-identifier"]; id != "" {
			sk.prefix = id + "> "
		}
	}
	return sk
}

func (s *PrintSink) Begin(types.Schema) error { return nil }

func (s *PrintSink) Row(r types.Row) error {
	s.rows++
	if s.w == nil {
		return nil
	}
	s.buf = append(s.buf[:0], s.prefix...)
	s.buf = types.AppendJavaRow(s.buf, r, s.cols, nil)
	if s.escape && types.HasControl(string(s.buf)) {
		s.esc = types.AppendEscapedBytes(s.esc[:0], s.buf)
		s.buf, s.esc = s.esc, s.buf
	}
	s.buf = append(s.buf, '\n')
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("table %s: %w", s.t.Name, err)
	}
	return nil
}

func (s *PrintSink) End() error { return s.flush() }

func (s *PrintSink) flush() error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("table %s: %w", s.t.Name, err)
	}
	return nil
}

// Checkpoint writes out what is buffered: printed rows are not taken
// back, so a restarted statement prints again what came after the last
// checkpoint (at-least-once, as Flink's print sink).
func (s *PrintSink) Checkpoint(state.Tx) error { return s.flush() }
func (s *PrintSink) Committed()                {}

// Table is the table the sink writes.
func (s *PrintSink) Table() *catalog.Table { return s.t }

// NoCheckpoints is "": the sink takes part in checkpoints.
func (s *PrintSink) NoCheckpoints() string { return "" }

// Close writes out what is buffered.
func (s *PrintSink) Close() { _ = s.flush() }

// Rows is the number of rows the sink took.
func (s *PrintSink) Rows() int64 { return s.rows }
