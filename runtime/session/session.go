package session

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// Config configures a Session.
type Config struct {
	// Out receives results; Err receives notes, counts and timings.
	Out, Err io.Writer
	// Loader loads function files (JavaScript, TypeScript).
	Loader ptf.Loader
	// Store keeps state between statements; the caller owns and closes it.
	Store state.Store
	// Predict, when set, asks the learner what a stream step will emit
	// (SET 'ptfsh.predict' = 'on'): it shows step and returns the rows
	// typed, as +I[...] lines; ok false skips the guess.
	Predict func(step string) (rows []string, ok bool)
	// ShuffleSeed, when not 0, is the default of SET 'ptfsh.shuffle-seed'
	// (ptfsh test --shuffle): the input comes in another order Flink may
	// give it.
	ShuffleSeed int64
	// Seed, when set, seeds RAND() when SET 'ptfsh.seed' does not
	// (--seed, which seeds the JavaScript functions too).
	Seed *int64
	// Scratch says Store is a temporary file that no later run can open
	// (ptfsh without --state): no run resumes from it, so a statement
	// takes only its final checkpoint, which later statements and SHOW
	// STATE read. SET 'state.path' replaces it with a real state file.
	Scratch bool
	// Format is the result format: tableau (default), rows, csv or json.
	Format string
	// BaseDir resolves relative paths of statements given inline (-e, REPL).
	BaseDir string
	// FunctionDir, when set, is where CREATE FUNCTION ... AS 'f.js' looks
	// for a function file that is not in the statement's folder, and
	// CREATE TABLE for a data file that is not there (ptfsh test: the
	// folder of the test file, so that a test calls the functions and
	// reads the data beside it).
	FunctionDir string
	// Timing prints row counts and timings to Err after each query, and a
	// progress line while a long query runs (meant for a terminal).
	Timing bool
	// Terminal says Out is a terminal: results written there escape the
	// control characters of their values ([format.SetEscapeControls]), which
	// a terminal would obey; into a file or a pipe they are written as
	// they are.
	Terminal bool
	// Trace shows every call of eval and onTimer on Err (--trace).
	Trace bool
	// TraceFilter is the default of the trace's filters (--trace-key,
	// --trace-function, --trace-late); one that is set turns the trace on.
	TraceFilter exec.TraceFilter
	// Echo is the default of SET 'ptfsh.echo' (--echo): a script prints
	// each statement before its result.
	Echo bool
	// OpenStore opens a state file for SET 'state.path' = 'FILE'; nil
	// refuses that setting.
	OpenStore func(path string) (state.Store, error)
	// OnSet, when set, sees every SET 'key' = 'value' first; an error
	// rejects the setting. The wiring uses it for settings of other
	// packages (ptf.eval-timeout for the script engine).
	OnSet func(key, value string) error
	// GeneratedRows, when above 0, bounds every datagen or faker table
	// that sets no number-of-rows (and has no sequence) to that many rows,
	// so that a query written for an unbounded generated table runs to an
	// end (the cookbook's tests).
	GeneratedRows int64
	// ProcessingTime is the default of SET 'ptfsh.processing-time' (ptfsh
	// test pins the clock); "" leaves the wall clock.
	ProcessingTime string
	// Parallelism is the default of SET 'parallelism.default'
	// (--parallelism): how many workers a PTF call that qualifies runs on.
	// 0 means 1.
	Parallelism int
	// OnReset sees every RESET (key "" for all), so that settings kept
	// elsewhere go back to their defaults too.
	OnReset func(key string)
	// Dialect is the default of SET 'ptfsh.dialect' (--dialect): "" or
	// ptfsh runs ptfsh's extensions, warn notes them, flink refuses them.
	Dialect string
	// Stdin is standard input as tables of the stdin connector read it;
	// nil when the statements themselves come from it (the prompt).
	Stdin *connector.StdinPump
	// Current, when set, gives the value in force of a setting kept
	// elsewhere (the script engine's limits and seed), which SET; shows
	// for a key that no SET gave; ok false leaves the table's default.
	Current func(key string) (value string, ok bool)
}

// Session runs statements against its catalog. It owns everything a user
// can observe: SQL, SHOW/DESCRIBE/SET and output formatting. A Session is
// not safe for concurrent use.
type Session struct {
	// runID tells this run's records in the state store from an earlier
	// run's (exec.Options.RunID).
	runID string
	// openSet holds the INSERTs after the SQL client's BEGIN STATEMENT SET
	// until its END (nil: none is open).
	openSet *sqlmini.StatementSet
	// extUsed are the ptfsh extensions run under the ptfsh dialect
	// (dialect.go, Extensions).
	extUsed     []extension
	extReported map[string]bool

	// jobs are the queries and INSERTs that ran (SHOW JOBS, jobs.go).
	jobs jobLog

	cfg      Config
	ownStore bool // the store came from SET 'state.path': the session closes it
	cat      *catalog.Catalog
	settings map[string]string
	baseDir  string
	// interactive: statements come from a person at the REPL.
	interactive bool
	// running is the query that runs on streams (stream.go).
	running *runningQuery
	// runEx is the execution of the statement that runs, under runMu:
	// Stop reads it from another goroutine.
	runMu sync.Mutex
	runEx *exec.Execution
	// runOut flushes the running statement's output (ConsoleWriter).
	runOut *outFlusher
	// timelineSink receives the timeline of each query (SetTimelineSink).
	timelineSink func(*timeline.Record, timeline.View)
}

// NewSession returns a session with an empty catalog.
func NewSession(cfg Config) (*Session, error) {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Err == nil {
		cfg.Err = io.Discard
	}
	if cfg.Store == nil {
		cfg.Store = state.NewMem()
	}
	if cfg.Format == "" {
		cfg.Format = "tableau"
	}
	if cfg.BaseDir == "" {
		cfg.BaseDir = "."
	}
	if cfg.ProcessingTime != "" {
		if _, err := textparse.TimeSetting(cfg.ProcessingTime); err != nil {
			return nil, fmt.Errorf("processing time %q: %w", cfg.ProcessingTime, err)
		}
	}
	if _, err := format.NewPrinter(cfg.Format, io.Discard); err != nil {
		return nil, err
	}
	if err := connector.FinishRenames(cfg.Store, cfg.Err); err != nil {
		return nil, fmt.Errorf("state: completing the last run's INSERT: %w", err)
	}
	if err := connector.FinishKafkaCommits(cfg.Store, cfg.Err); err != nil {
		return nil, fmt.Errorf("state: committing the last run's Kafka transaction: %w", err)
	}
	return &Session{cfg: cfg, cat: catalog.NewCatalog(), settings: map[string]string{}, baseDir: cfg.BaseDir, runID: newRunID()}, nil
}

// Close closes what the session opened itself (a state file of SET
// 'state.path'). The caller closes Config.Store.
func (s *Session) Close() error {
	if s.ownStore {
		s.ownStore = false
		return s.cfg.Store.Close()
	}
	return nil
}

// Catalog returns the session's catalog.
func (s *Session) Catalog() *catalog.Catalog { return s.cat }

// Exec runs the statements of src one by one and stops at the first error,
// which it returns. filename names src in positions; relative paths in the
// statements resolve against the file's folder when filename is a file,
// else against Config.BaseDir.
func (s *Session) Exec(ctx context.Context, filename, src string) error {
	defer s.useBaseDir(filename)()
	progress, err := s.startScript(filename)
	if err != nil {
		return err
	}
	var failed []sqlmini.Pos
	for i, p := range sqlmini.ParseEach(filename, src) {
		err := p.Err
		if err == nil && progress.skip(i, p.Stmt) {
			fmt.Fprintf(s.cfg.Err, "note: %s: skipped: it finished in an earlier run of this script over the same state file, which did not complete\n", p.Stmt.Pos)
			continue
		}
		if err == nil {
			final := func(tx state.Tx) error { return progress.recordTx(tx, i, p.Stmt) }
			err = s.execute(ctx, &statement{Statement: p.Stmt, final: final})
			if errors.Is(err, ErrQuit) {
				break
			}
		}
		if err == nil {
			err = progress.finished(i, p.Stmt)
		}
		if err != nil {
			if !s.continueOnError() || ctx.Err() != nil {
				return err
			}
			io.WriteString(s.cfg.Err, FormatError(err, src))
			progress.failed(i)
			pos, _ := types.PositionOf(err)
			failed = append(failed, pos)
		}
	}
	if err := progress.complete(); err != nil {
		return err
	}
	if len(failed) > 0 {
		return &FailedError{Pos: failed}
	}
	return nil
}

// FailedError is what Exec returns when statements of a script failed
// under SET 'ptfsh.on-error' = 'continue': each was reported as it failed,
// and the script went on; the script as a whole failed (ptfsh exits with
// status 1). Pos are where, in order.
type FailedError struct{ Pos []sqlmini.Pos }

func (e *FailedError) Error() string {
	where := make([]string, len(e.Pos))
	for i, p := range e.Pos {
		where[i] = fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
		if p.Filename == "" {
			where[i] = fmt.Sprintf("line %d", p.Line)
		}
	}
	return fmt.Sprintf("%s failed (SET 'ptfsh.on-error' = 'continue' ran the rest): %s", plural(int64(len(e.Pos)), "statement"), strings.Join(where, ", "))
}

// ExecEach runs the statements of src one by one as the REPL does: an
// error is written to w with its source line and caret, and the next
// statement runs. QUIT or EXIT ends it with ErrQuit, Ctrl-C (ctx) with
// the context's error. Relative paths resolve as in Exec. The shell runs its rc file with it.
func (s *Session) ExecEach(ctx context.Context, filename, src string, w io.Writer) error {
	defer s.useBaseDir(filename)()
	for _, p := range sqlmini.ParseEach(filename, src) {
		err := p.Err
		if err == nil {
			err = s.ExecStatement(ctx, p.Stmt)
		}
		if errors.Is(err, ErrQuit) {
			return err
		}
		if err != nil {
			io.WriteString(w, FormatError(err, src))
			if ctx.Err() != nil { // Ctrl-C stops the rest too
				return ctx.Err()
			}
		}
	}
	return nil
}

// useBaseDir makes relative paths resolve against the folder of the file
// filename, or Config.BaseDir when it names no file, until the function
// it returns puts back the folder in use before.
func (s *Session) useBaseDir(filename string) (restore func()) {
	prev := s.baseDir
	s.baseDir = s.cfg.BaseDir
	if filename != "" {
		if fi, err := os.Stat(filename); err == nil && !fi.IsDir() {
			s.baseDir = filepath.Dir(filename)
		}
	}
	return func() { s.baseDir = prev }
}

// continueOnError reports SET 'ptfsh.on-error' = 'continue': a script
// prints an error and goes on with its next statement.
func (s *Session) continueOnError() bool {
	v, _ := settings.Get[string](s.settings, "ptfsh.on-error")
	return v == "continue"
}

// ExecStatement runs one parsed statement. A panic inside (a bug of
// ptfsh) becomes an *InternalError at the statement, so that the shell
// goes on. A statement stopped by ctx (Ctrl-C) fails with "statement
// cancelled", whatever part of it was running; QUIT and EXIT return
// ErrQuit.
func (s *Session) ExecStatement(ctx context.Context, st *sqlmini.Statement) error {
	return s.execute(ctx, &statement{Statement: st})
}

// execute is ExecStatement of a statement made to run.
func (s *Session) execute(ctx context.Context, stmt *statement) (err error) {
	st := stmt.Statement
	defer func() {
		if r := recover(); r != nil {
			err = types.At(st.Pos, newInternalError(r))
		}
	}()
	echo := !s.interactive && s.echo() // as it was before the statement
	if echo {
		s.announce(st)
	}
	err = s.execStatement(ctx, stmt)
	switch {
	case err == nil && (echo || s.interactive):
		s.succeeded(st)
	case ctx.Err() != nil && !errors.Is(err, ErrQuit):
		err = cancelled(st.Pos, err)
	}
	return err
}

// cancelled is the one error of a statement stopped by Ctrl-C, at the
// part of the statement that was running (a PTF call, or the statement).
// Its cause stays in the chain, so that FormatError shows the line of a
// function that was stopped, and its stack.
func cancelled(pos sqlmini.Pos, err error) error {
	if p, ok := types.PositionOf(err); ok && p.Filename == pos.Filename {
		pos = p
	}
	return &types.Error{Pos: pos, Msg: "statement cancelled", Err: err}
}

func (s *Session) execStatement(ctx context.Context, stmt *statement) error {
	st := stmt.Statement
	s.reloadChanged()
	if err := s.checkDialect(st); err != nil { // dialect.go
		return err
	}
	if done, err := s.clientStatementSet(ctx, stmt); done { // sink.go
		return err
	}
	switch {
	case st.Create != nil:
		return s.execCreate(ctx, st.Create)
	case st.Drop != nil:
		return s.execDrop(st.Drop)
	case st.Show != nil:
		return s.execShow(st.Show)
	case st.Describe != nil:
		return s.execDescribe(st.Describe)
	case st.Set != nil:
		return s.execSet(st.Set)
	case st.Reset != nil:
		key := ""
		if st.Reset.Key != nil {
			key = string(*st.Reset.Key)
			if err := settings.Known(key); err != nil {
				return sqlmini.Errorf(st.Reset.Pos, "%w", err)
			}
		}
		if key == "" {
			s.settings = map[string]string{}
		} else {
			delete(s.settings, key)
		}
		if s.cfg.OnReset != nil {
			s.cfg.OnReset(key)
		}
		return nil
	case st.Explain != nil && (st.Explain.Why || st.Explain.Timeline) && st.Explain.Query == nil:
		what := "TIMELINE"
		if st.Explain.Why {
			what = "WHY"
		}
		return sqlmini.Errorf(st.Explain.Pos, "EXPLAIN %s runs a query (SELECT ...): it takes no INSERT or statement set; EXPLAIN alone shows their plan", what)
	case st.Explain != nil && st.Explain.Why:
		return s.jobs.run(ctx, stmt, func() error { return s.explainWhy(ctx, stmt) }) // lineage.go
	case st.Explain != nil && st.Explain.Timeline:
		return s.jobs.run(ctx, stmt, func() error { return s.explainTimeline(ctx, stmt) }) // timeline.go
	case st.Explain != nil:
		return s.execExplain(st.Explain)
	case st.Insert != nil, st.StatementSet != nil:
		return s.jobs.run(ctx, stmt, func() error { return s.execInsert(ctx, stmt) }) // sink.go
	case st.Command != nil:
		return s.execCommand(st.Command)
	case st.Advance != nil:
		return s.advance(ctx, stmt) // stream.go
	case st.Query != nil:
		return s.jobs.run(ctx, stmt, func() error { return s.execQuery(ctx, stmt) })
	}
	return sqlmini.Errorf(st.Pos, "unsupported statement")
}

// newPrinter returns the printer of a query's result: the result mode
// apart from the encoding. CSV and JSON of an updating result carry each
// row's kind in an op column, named and valued as in Flink's changelog-json
// format ("op": "+I", "-U", "+U", "-D"), unless the mode is table, which
// prints the final rows in any encoding.
func (s *Session) newPrinter(n exec.Node, w io.Writer) (format.Printer, error) {
	mode, enc := s.resultMode(), s.encoding()
	if enc == "text" {
		p, err := format.NewPrinter(mode, w)
		if err != nil {
			return nil, err
		}
		format.SetUpsertKey(p, exec.UpsertKeyOf(n)) // the table mode materialises by it: print_table.go
		width, _ := settings.Get[int](s.settings, format.SetMaxColumnWidthKey)
		format.SetMaxColumnWidth(p, width)
		format.SetEscapeControls(p, s.cfg.Terminal)
		zone, _ := settings.Get[*time.Location](s.settings, "table.local-time-zone")
		format.SetZone(p, zone)
		s.boundTable(p)
		format.SetLiveRefresh(p, s.cfg.Terminal) // the table so far, redrawn while the query runs
		if s.batch() {
			format.SetNoRowKind(p)
		}
		return p, nil
	}
	updating := !n.Changelog().IsInsertOnly() && mode != "table"
	var p format.Printer
	switch enc {
	case "csv":
		p = format.NewCSVPrinter(w, format.CSVOptions{OpColumn: updating})
	case "json":
		p = format.NewJSONPrinter(w, format.JSONOptions{OpColumn: updating})
	default:
		var err error
		if p, err = format.NewPrinter(enc, w); err != nil {
			return nil, err
		}
	}
	format.SetEscapeControls(p, s.cfg.Terminal)
	if mode == "table" {
		p = format.NewMaterializing(p, exec.UpsertKeyOf(n))
		s.boundTable(p)
	}
	return s.withColumnsNote(p, enc), nil
}

// boundTable gives a printer of the table result mode its bound of rows
// (SET 'sql-client.execution.max-table-result.rows').
func (s *Session) boundTable(p format.Printer) {
	n, _ := settings.Get[int64](s.settings, format.SetMaxTableRowsKey)
	format.SetMaxTableRows(p, n)
}

func (s *Session) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.baseDir, p)
}

func (s *Session) execQuery(ctx context.Context, stmt *statement) error {
	st := stmt.Statement
	n, err := plan.New(s.cat, s.sourceEnv()).Printed(st.Query)
	if err != nil {
		return err
	}
	if scans := streamScans(n); len(scans) > 0 {
		return s.startRunning(ctx, stmt, scans) // stream.go: it keeps running
	}
	if s.lineage(stmt) {
		n = &exec.LineageNode{In: n} // lineage.go
	}
	// Results are buffered: one write per row would cost a system call each.
	out := bufio.NewWriterSize(s.cfg.Out, 64<<10)
	defer out.Flush()
	p, err := s.newPrinter(n, out)
	if err != nil {
		return sqlmini.Errorf(st.Pos, "%w", err)
	}
	return s.run(ctx, stmt, st.Pos, n, p, out)
}

// describeOutput is a function's output type as DESCRIBE shows it: a
// PTF's row, a scalar function's type.
func describeOutput(def *ptf.FuncDef) string {
	if def.Scalar != nil {
		return def.Output.String()
	}
	return ptfop.OutputSchema(def.Output).RowType().String()
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// positioned puts an error that has no position at pos.
func positioned(pos sqlmini.Pos, err error) error { return types.At(pos, err) }

// sourceEnv is what sources take from the session's settings.
func (s *Session) sourceEnv() connector.Env {
	seed, hasSeed := s.settings[connector.SetSeed]
	pt, hasPT := s.processingTime()
	idle, _ := settings.Get[time.Duration](s.settings, "table.exec.source.idle-timeout")
	wmEvery, _ := settings.Get[time.Duration](s.settings, "pipeline.auto-watermark-interval")
	fseed := s.cfg.Seed
	if n, ok := settings.Get[int64](s.settings, connector.SetSeed); ok {
		fseed = &n
	}
	zone, _ := settings.Get[*time.Location](s.settings, "table.local-time-zone")
	return connector.Env{Zone: zone, WatermarkEvery: s.watermarkEvery(), Seed: seed, HasSeed: hasSeed, FunctionSeed: fseed, ProcessingTime: pt, HasProcessingTime: hasPT,
		GeneratedRows: s.cfg.GeneratedRows, Flink: s.dialect() == DialectFlink, Stdin: s.cfg.Stdin, IdleTimeout: idle, WatermarkInterval: wmEvery, Batch: s.batch()}
}

// batch reports whether SET 'execution.runtime-mode' = 'batch' is in force.
func (s *Session) batch() bool {
	m, _ := settings.Get[string](s.settings, "execution.runtime-mode")
	return m == "batch"
}

// newRunID is a random name for a run of the shell.
func newRunID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
