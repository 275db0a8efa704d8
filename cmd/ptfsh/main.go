// Command ptfsh runs Process Table Functions written in JavaScript or
// TypeScript from a small Flink SQL dialect, without a Flink cluster.
//
//	ptfsh                      interactive shell
//	ptfsh -f script.sql        run a script (exit status 1 on the first error)
//	ptfsh -e "SELECT ..."      run statements given inline
//	ptfsh test [PATH...]       run PTF test files (.txtar) and show diffs
//	ptfsh export flink FUNC.js emit a Maven project running FUNC.js on Flink
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/stdlib"
)

func main() {
	// goja allocates on every call; a less eager collector measured 30 %
	// less CPU on the GreetingWithMemory benchmark (see README). GOGC
	// still wins when it is set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type options struct {
	file, exec, statePath, format, init, seed string
	trace                                     bool
	parallelism                               int
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "test" {
		return runTests(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "export" {
		return runExport(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("ptfsh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.file, "f", "", "run the statements of `FILE` and exit")
	fs.StringVar(&o.exec, "e", "", "run the given `STATEMENTS` and exit")
	fs.StringVar(&o.statePath, "state", "", "keep state in `FILE` (bbolt) across runs")
	fs.StringVar(&o.format, "format", "tableau", "result format: tableau, changelog, table, rows, csv or json")
	fs.BoolVar(&o.trace, "trace", false, "show every call of eval and onTimer: key, row, watermark, state, timers, rows")
	fs.IntVar(&o.parallelism, "parallelism", 1, "run PTF calls partitioned by key on `N` workers, each with its own JavaScript runtime (SET 'parallelism.default'); output order stays that of parallelism 1")
	fs.StringVar(&o.init, "init", "", "run the statements of `FILE` before the prompt")
	fs.StringVar(&o.seed, "seed", "", "make Math.random and Date.now deterministic with `N` (SET 'ptfsh.seed')")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh [flags]\n       ptfsh test [-update] [PATH...]\n       ptfsh export flink FUNC.js [-o DIR] [--script SCRIPT.sql]\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if o.parallelism < 1 {
		fmt.Fprintf(stderr, "ptfsh: --parallelism needs a whole number of at least 1, not %d\n", o.parallelism)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ptfsh: unexpected argument %q (use -f FILE to run a script)\n", fs.Arg(0))
		return 2
	}

	store, cleanup, err := openStore(o.statePath)
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		return 1
	}
	defer cleanup()

	engine := script.NewEngine(script.Options{
		ParseType:      ptf.ParseType,
		FormatRow:      types.FormatRow,
		Stdlib:         stdlib.JS,
		Console:        stderr,
		EvalTimeout:    defaultEvalTimeout,
		MaxRowsPerCall: script.DefaultMaxRowsPerCall,
		MaxMemory:      script.DefaultMaxMemory,
	})
	defer engine.Close()
	if o.seed != "" {
		if err := engine.Set("ptfsh.seed", o.seed); err != nil {
			fmt.Fprintf(stderr, "ptfsh: --seed: %v\n", err)
			return 2
		}
	}
	sess, err := session.NewSession(session.Config{
		Out: stdout, Err: stderr, Loader: engine, Store: store,
		Format: o.format, Timing: isTerminal(os.Stderr), Trace: o.trace,
		Parallelism: o.parallelism,
		OpenStore:   func(path string) (state.Store, error) { return state.OpenBolt(path, state.BoltOptions{}) },
		// SET 'ptf.eval-timeout', 'ptf.max-memory', 'ptf.max-rows-per-call',
		// 'ptf.max-call-depth' and 'ptfsh.seed' go to the script engine.
		OnSet: engine.Set, OnReset: engine.Reset,
	})
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		return 2
	}
	defer sess.Close()
	for _, f := range stdlib.BuiltIns() {
		sess.Catalog().RegisterBuiltIn(f)
	}

	if o.init != "" {
		if code := runFile(sess, o.init, stderr); code != 0 {
			return code
		}
	}
	switch {
	case o.file != "":
		return runFile(sess, o.file, stderr)
	case o.exec != "":
		return runSource(sess, "", o.exec, stderr)
	}
	return repl(sess, stdin, stdout, stderr)
}

// runFile runs a script file; the first error ends it with status 1.
func runFile(sess *session.Session, path string, stderr io.Writer) int {
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		return 1
	}
	return runSource(sess, path, string(src), stderr)
}

func runSource(sess *session.Session, name, src string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := sess.Exec(ctx, name, src); err != nil {
		fmt.Fprint(stderr, session.FormatError(err, src))
		return 1
	}
	return 0
}

// openStore opens the state file, or a temporary one removed at exit.
func openStore(path string) (state.Store, func(), error) {
	if path != "" {
		st, err := state.OpenBolt(path, state.BoltOptions{})
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	dir, err := os.MkdirTemp("", "ptfsh-state-")
	if err != nil {
		return nil, nil, err
	}
	st, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return st, func() { st.Close(); os.RemoveAll(dir) }, nil
}

// defaultEvalTimeout interrupts a call of eval or onTimer that runs longer.
const defaultEvalTimeout = 10 * time.Second

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
