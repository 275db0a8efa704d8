// Package assembly builds a ptfsh shell: the script engine (goja), the
// state store (bbolt or memory), the session and the standard library,
// wired the one way that the command (REPL, -f, -e), ptfsh test, ptfsh
// export and the tests all use. It is the only package besides cmd/ptfsh
// that knows every other one.
//
// # Use
//
//	sh, err := assembly.New(assembly.Options{Out: os.Stdout, Err: os.Stderr})
//	if err != nil { ... }
//	defer sh.Close()
//	err = sh.Session.Exec(ctx, "script.sql", src)
//
// # Stores
//
// Options.Store, when set, is used and not closed. Otherwise Memory gives a
// memory store, StatePath a bbolt file kept across runs, and neither a
// bbolt file in a temporary folder removed by Close.
package assembly

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/stdlib"
)

// DefaultEvalTimeout interrupts a call of eval or onTimer that runs longer
// (SET 'ptf.eval-timeout'): the shell's default.
const DefaultEvalTimeout = 10 * time.Second

// TestProcessingTime is the processing time that ptfsh test and the
// project's script tests run at unless a test sets 'ptfsh.processing-time':
// the start of datagen's window of random timestamps, so that SHOW STATE's
// "written at" and state TTL give the same output on every run.
const TestProcessingTime = "2025-01-01 00:00:00"

// Options says how to build a shell. The zero value prints nowhere and keeps
// state in a temporary bbolt file.
type Options struct {
	// Out receives results; Err notes, counts, timings and errors (Out when
	// nil); Console the console.log output of functions (Err when nil).
	Out, Err, Console io.Writer

	// Stdin is standard input for tables of the stdin connector; nil when
	// the statements come from it (the prompt).
	Stdin *connector.StdinPump
	// Store, when set, keeps state; the caller closes it.
	Store state.Store
	// Memory keeps state in memory (tests, ptfsh test, ptfsh export).
	Memory bool
	// StatePath is a state file kept across runs (--state); "" is a
	// temporary file removed by Close.
	StatePath string
	// ShuffleSeed, when not 0, reorders the input as Flink may (ptfsh test
	// --shuffle; SET 'ptfsh.shuffle-seed').
	ShuffleSeed int64
	// NoSync skips fsync at commits of a state file (tests).
	NoSync bool

	// BaseDir resolves relative paths of statements and function files.
	BaseDir string
	// FunctionDir is where CREATE FUNCTION finds a function file that is
	// not in BaseDir (ptfsh test: the test file's folder).
	FunctionDir string
	// Format is the result format (--format); "" is tableau.
	Format string
	// Timing prints counts, timings and progress on Err (a terminal).
	Timing bool
	// Terminal says Out is a terminal: results escape the control
	// characters of their values ([session.Config.Terminal]).
	Terminal bool
	// Trace shows every call of eval and onTimer (--trace).
	Trace bool
	// TraceFilter narrows the trace and turns it on (--trace-key,
	// --trace-function, --trace-late).
	TraceFilter exec.TraceFilter
	// Echo prints each statement of a script before its result (--echo).
	Echo bool
	// Dialect is the default of SET 'ptfsh.dialect' (--dialect): ptfsh,
	// warn or flink; "" is ptfsh.
	Dialect string
	// Parallelism is --parallelism (0 means 1).
	Parallelism int
	// Seed makes Math.random and Date deterministic (--seed).
	Seed *int64
	// ProcessingTime pins the processing-time clock (the default of SET
	// 'ptfsh.processing-time'; ptfsh test: TestProcessingTime); "" is the
	// wall clock.
	ProcessingTime string
	// GeneratedRows, when above 0, bounds every datagen or faker table
	// that sets no number-of-rows to that many rows (the cookbook's tests
	// run its recipes, written for unbounded tables, to an end).
	GeneratedRows int64

	// The limits on a call of a function (SET 'ptf.…' changes them later);
	// 0 means none. See [script.Options].
	EvalTimeout    time.Duration
	MaxRowsPerCall int64
	MaxMemory      int64
	MaxCallDepth   int
}

// ShellLimits sets the limits the interactive shell and scripts run with.
func (o Options) ShellLimits() Options {
	o.EvalTimeout = DefaultEvalTimeout
	o.MaxRowsPerCall = script.DefaultMaxRowsPerCall
	o.MaxMemory = script.DefaultMaxMemory
	return o
}

// StoreError is a state store that could not be opened (the command exits
// with status 1 for it, and 2 for options it cannot take).
type StoreError struct{ Err error }

func (e *StoreError) Error() string { return e.Err.Error() }

// Unwrap returns the store's error ([state.ErrInUse], [state.ErrCorrupt], ...).
func (e *StoreError) Unwrap() error { return e.Err }

// Shell is a session with the engine and store it runs on.
type Shell struct {
	Session *session.Session
	Engine  *script.Engine
	Store   state.Store

	closeStore func()
}

// New builds a shell. Close releases it.
func New(o Options) (*Shell, error) {
	if o.Err == nil {
		o.Err = o.Out
	}
	if o.Console == nil {
		o.Console = o.Err
	}
	if o.BaseDir != "" && !filepath.IsAbs(o.BaseDir) {
		// The script engine (esbuild) resolves imports from an absolute
		// folder only.
		abs, err := filepath.Abs(o.BaseDir)
		if err != nil {
			return nil, err
		}
		o.BaseDir = abs
	}
	store, closeStore, scratch, err := openStore(o)
	if err != nil {
		return nil, &StoreError{Err: err}
	}
	console := &session.ConsoleWriter{W: o.Console}
	engine := script.NewEngine(script.Options{
		ParseType:      ptf.ParseType,
		FormatRow:      types.FormatRow,
		Stdlib:         stdlib.JS,
		BaseDir:        o.BaseDir,
		Seed:           o.Seed,
		Console:        console,
		EvalTimeout:    o.EvalTimeout,
		MaxRowsPerCall: o.MaxRowsPerCall,
		MaxMemory:      o.MaxMemory,
		MaxCallDepth:   o.MaxCallDepth,
	})
	sess, err := session.NewSession(session.Config{
		Out: o.Out, Err: o.Err, Loader: engine, Store: store, Scratch: scratch, Stdin: o.Stdin,
		Format: o.Format, BaseDir: o.BaseDir, FunctionDir: o.FunctionDir, Timing: o.Timing, Terminal: o.Terminal, Trace: o.Trace, TraceFilter: o.TraceFilter, Echo: o.Echo, Dialect: o.Dialect,
		Parallelism: o.Parallelism, ShuffleSeed: o.ShuffleSeed, Seed: o.Seed, ProcessingTime: o.ProcessingTime, GeneratedRows: o.GeneratedRows,
		OpenStore: func(path string) (state.Store, error) {
			return state.OpenBolt(path, state.BoltOptions{PageSize: state.CheckpointPageSize})
		},
		// SET 'ptf.eval-timeout', 'ptf.max-memory', 'ptf.max-rows-per-call',
		// 'ptf.max-call-depth' and 'ptfsh.seed' go to the script engine,
		// which says their values in force for SET;.
		OnSet: engine.Set, OnReset: engine.Reset, Current: engine.Setting,
	})
	if err != nil {
		engine.Close()
		closeStore()
		return nil, err
	}
	console.Session = sess
	for _, f := range stdlib.BuiltIns() {
		sess.Catalog().RegisterBuiltIn(f)
	}
	return &Shell{Session: sess, Engine: engine, Store: store, closeStore: closeStore}, nil
}

// Close closes the session, the engine and the store the shell opened.
func (s *Shell) Close() {
	s.Session.Close()
	s.Engine.Close()
	s.closeStore()
}

// RunEach runs the statements of src one by one, as a test file or an
// export reads a script: an error is written to w with its source line
// and caret, and the next statement runs; QUIT or EXIT ends it. It
// returns the number of statements that failed.
func (s *Shell) RunEach(ctx context.Context, name, src string, w io.Writer) int {
	failed := 0
	for _, p := range sqlmini.ParseEach(name, src) {
		err := p.Err
		if err == nil {
			err = s.Session.ExecStatement(ctx, p.Stmt)
			if errors.Is(err, session.ErrQuit) {
				break
			}
		}
		if err != nil {
			failed++
			io.WriteString(w, session.FormatError(err, src))
		}
	}
	return failed
}

// scratchLabel is what errors call the scratch state of a run without a
// state file.
const scratchLabel = "the scratch state (no --state file)"

// pathErr drops the operation and path that an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// openStore opens the store the options ask for and says how to close it,
// and whether it is a scratch store (a temporary file no run resumes from).
func openStore(o Options) (st state.Store, closeStore func(), scratch bool, err error) {
	switch {
	case o.Store != nil:
		return o.Store, func() {}, false, nil
	case o.Memory:
		st := state.NewMem()
		return st, func() { st.Close() }, false, nil
	case o.StatePath != "":
		st, err := state.OpenBolt(o.StatePath, state.BoltOptions{NoSync: o.NoSync, PageSize: state.CheckpointPageSize})
		if err != nil {
			return nil, nil, false, err
		}
		return st, func() { st.Close() }, false, nil
	}
	dir, err := os.MkdirTemp("", "ptfsh-state-")
	if err != nil {
		return nil, nil, false, fmt.Errorf("state: making %s in %s: %w; set TMPDIR to a folder that can be written, or give --state FILE", scratchLabel, os.TempDir(), pathErr(err))
	}
	// Errors name the store by its label: the file is removed below.
	st, err = state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true, Temporary: true, Label: scratchLabel})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, false, err
	}
	// The file goes at once: the store keeps it open, and the system
	// frees its space when the store closes or the process ends, however
	// it ends (a killed run left its scratch file, gigabytes at times, in
	// the temporary folder). Where an open file cannot be removed, it
	// goes when the store closes.
	if os.RemoveAll(dir) == nil {
		return st, func() { st.Close() }, true, nil
	}
	return st, func() { st.Close(); os.RemoveAll(dir) }, true, nil
}
