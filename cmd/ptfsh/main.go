// Command ptfsh runs Process Table Functions written in JavaScript or
// TypeScript from a small Flink SQL dialect, without a Flink cluster.
//
//	ptfsh                      interactive shell
//	ptfsh -f script.sql        run a script (exit status 1 on the first error)
//	ptfsh -e "SELECT ..."      run statements given inline
//	ptfsh test [PATH...]       run PTF test files (.txtar) and show diffs
//	ptfsh export flink FUNC.js emit a Maven project running FUNC.js on Flink
//	ptfsh init [DIR]           start a project: a function, a script, a test, types for editors
//	ptfsh check FUNC.ts        type-check a function with tsc
//	ptfsh watch SCRIPT.sql     rerun a script when it or a file it uses changes; show the output's diff
//	ptfsh serve                the playground: a page in the browser (loopback only, behind a token)
//	ptfsh --version            the version and how the binary was built
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/settings"
)

func main() {
	tuneGC() // gc.go
	os.Exit(profiled(func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr) }))
}

// profiled runs f with a CPU profile written to $PTFSH_CPUPROFILE, when
// set (go tool pprof reads it), the allocations (and the heap in use at
// the last collection) to $PTFSH_MEMPROFILE, and an execution trace (what
// each goroutine ran and waited for; go tool trace reads it) to
// $PTFSH_EXECTRACE, each when set and without the others: how the
// benchmarks are profiled.
func profiled(f func() int) int {
	if path := os.Getenv("PTFSH_EXECTRACE"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ptfsh: PTFSH_EXECTRACE: %v\n", err)
			return 2
		}
		defer out.Close()
		if err := trace.Start(out); err != nil {
			fmt.Fprintf(os.Stderr, "ptfsh: PTFSH_EXECTRACE: %v\n", err)
			return 2
		}
		defer trace.Stop()
	}
	if path := os.Getenv("PTFSH_CPUPROFILE"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ptfsh: PTFSH_CPUPROFILE: %v\n", err)
			return 2
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintf(os.Stderr, "ptfsh: PTFSH_CPUPROFILE: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	code := f()
	if mem := os.Getenv("PTFSH_MEMPROFILE"); mem != "" {
		out, err := os.Create(mem)
		if err != nil {
			fmt.Fprintf(os.Stderr, "ptfsh: PTFSH_MEMPROFILE: %v\n", err)
			return 2
		}
		pprof.Lookup("allocs").WriteTo(out, 0)
		out.Close()
	}
	return code
}

type options struct {
	file, exec, statePath, format, init, seed string
	dialect                                   string
	trace, echo, version                      bool
	traceKey, traceFunction                   string
	traceLate                                 bool
	parallelism                               int
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "test" {
		return runTests(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "export" {
		return runExport(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "init" {
		return runInit(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "check" {
		return runCheck(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "watch" {
		return runWatch(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "serve" {
		return runServe(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("ptfsh", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.file, "f", "", "run the statements of `FILE` and exit")
	fs.StringVar(&o.exec, "e", "", "run the given `STATEMENTS` and exit")
	fs.StringVar(&o.statePath, "state", "", "keep state in `FILE` (bbolt) across runs")
	fs.StringVar(&o.format, "format", "tableau", "result format: tableau, changelog, table, rows, csv or json")
	fs.BoolVar(&o.trace, "trace", false, "show every call of eval and onTimer: key, row, watermark, state, timers, rows")
	fs.StringVar(&o.traceKey, "trace-key", "", "trace only the calls for partition key `KEY` (Bob; 'Bob, 3' for two columns); turns --trace on (SET 'ptfsh.trace.key')")
	fs.StringVar(&o.traceFunction, "trace-function", "", "trace only the calls of function `F`; turns --trace on (SET 'ptfsh.trace.function')")
	fs.BoolVar(&o.traceLate, "trace-late", false, "trace only eval of late rows and the rows ORDER BY drops; turns --trace on (SET 'ptfsh.trace.late')")
	fs.IntVar(&o.parallelism, "parallelism", 1, "run PTF calls partitioned by key on `N` workers, each with its own JavaScript runtime (SET 'parallelism.default'); output order stays that of parallelism 1")
	fs.StringVar(&o.init, "init", "", "run the statements of `FILE` before the prompt")
	fs.StringVar(&o.seed, "seed", "", "make Math.random and Date.now deterministic with `N` (SET 'ptfsh.seed')")
	fs.BoolVar(&o.echo, "echo", false, "print each statement of a script on stderr before its result (SET 'ptfsh.echo')")
	fs.StringVar(&o.dialect, "dialect", "ptfsh", "`D`: flink refuses what Flink would refuse (ptfsh's extensions), warn notes it, ptfsh runs it (SET 'ptfsh.dialect')")
	fs.BoolVar(&o.version, "version", false, "print the version and how the binary was built, and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh [flags]\n       ptfsh test [-update] [PATH...]\n       ptfsh export flink FUNC.js [-o DIR] [--script SCRIPT.sql]\n       ptfsh init [DIR]\n       ptfsh check FUNC.ts\n       ptfsh watch [--format F] SCRIPT.sql\n       ptfsh serve [--addr 127.0.0.1:PORT] [--examples DIR]\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if o.version {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if o.parallelism < 1 {
		fmt.Fprintf(stderr, "ptfsh: --parallelism needs a whole number of at least 1, not %d\n", o.parallelism)
		return 2
	}
	if _, err := settings.Check("ptfsh.dialect", o.dialect); err != nil {
		fmt.Fprintf(stderr, "ptfsh: --dialect: %v\n", err)
		return 2
	}
	gcWorkers(o.parallelism)
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ptfsh: unexpected argument %q (use -f FILE to run a script)\n", fs.Arg(0))
		return 2
	}

	var stdinPump *connector.StdinPump
	if o.file != "" || o.exec != "" {
		// The statements do not come from standard input: tables of the
		// stdin connector read it.
		stdinPump = connector.NewStdinPump(stdin)
	}
	sh, err := assembly.New(assembly.Options{
		Out: stdout, Err: stderr, StatePath: o.statePath, Stdin: stdinPump,
		Format: o.format, Timing: isTerminal(os.Stderr), Terminal: isTerminalWriter(stdout), Trace: o.trace,
		TraceFilter: exec.TraceFilter{Key: o.traceKey, Function: o.traceFunction, Late: o.traceLate},
		Parallelism: o.parallelism, Echo: o.echo, Dialect: strings.ToLower(o.dialect),
	}.ShellLimits())
	if err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		var se *assembly.StoreError
		if errors.As(err, &se) {
			return 1
		}
		return 2
	}
	defer sh.Close()
	if o.seed != "" {
		if err := sh.Engine.Set("ptfsh.seed", o.seed); err != nil {
			fmt.Fprintf(stderr, "ptfsh: --seed: %v\n", err)
			return 2
		}
	}
	sess := sh.Session

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
	ctx, stop := interruptible(sess)
	defer stop()
	err := sess.Exec(ctx, name, src)
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		// For a person: what in the script Flink would refuse (the notes
		// of --dialect warn, summed up); never in a pipe or a test.
		fmt.Fprint(stderr, session.ExtensionSummary(sess.Extensions()))
	}
	if err != nil {
		fmt.Fprint(stderr, session.FormatError(err, src))
		return 1
	}
	return 0
}
