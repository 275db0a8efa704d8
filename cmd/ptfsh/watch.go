package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/runtime/session"
)

// ptfsh watch SCRIPT.sql runs a script, then runs it again whenever it or
// a file it uses (a function's file or an import of it, a file table's
// data) changes, and shows how the output changed: rows that went away
// marked "-", new rows "+", the rest counted. Each run starts afresh (a
// scratch store, a new catalog), as a rerun of `ptfsh -f` would.

// watchPoll is how often the files are looked at.
const watchPoll = 250 * time.Millisecond

func runWatch(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh watch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "tableau", "result format: tableau, changelog, table, rows, csv or json")
	parallelism := fs.Int("parallelism", 1, "run PTF calls partitioned by key on `N` workers")
	seed := fs.String("seed", "", "make Math.random and Date.now deterministic with `N`")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh watch [flags] SCRIPT.sql\n\nRuns the script, then again each time it or a function or data file it uses\nchanges, and shows the output's difference from the run before. Ctrl-C stops.\n\nflags:\n")
		fs.PrintDefaults()
	}
	var paths []string
	for rest := args; ; { // flags anywhere on the line
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		paths = append(paths, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(paths) != 1 {
		fs.Usage()
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	w := &watcher{script: paths[0], out: stdout, err: stderr,
		opts: assembly.Options{Format: *format, Parallelism: *parallelism}, seed: *seed}
	return w.loop(ctx, watchPoll)
}

type watcher struct {
	script   string
	out, err io.Writer
	opts     assembly.Options
	seed     string
	prev     []string // the previous run's output lines
	runs     int
	stamps   map[string]string
}

// loop runs the script, then waits for a change and runs it again, until
// ctx ends.
func (w *watcher) loop(ctx context.Context, poll time.Duration) int {
	abs, err := filepath.Abs(w.script)
	if err != nil {
		fmt.Fprintf(w.err, "ptfsh watch: %v\n", err)
		return 2
	}
	w.script = abs
	if _, err := os.Stat(abs); err != nil {
		fmt.Fprintf(w.err, "ptfsh watch: %v\n", err)
		return 2
	}
	files := w.run(ctx, nil)
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return 0
		case <-tick.C:
		}
		if changed := w.changed(files); len(changed) > 0 {
			files = w.run(ctx, changed)
		}
	}
}

// run runs the script once, prints its output (the first time) or its
// difference from the previous run, and returns the files to watch.
func (w *watcher) run(ctx context.Context, changed []string) []string {
	w.runs++
	var out, errs bytes.Buffer
	files := []string{w.script}
	start := time.Now()
	sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Format: w.opts.Format, Parallelism: w.opts.Parallelism}.ShellLimits())
	if err != nil {
		fmt.Fprintf(w.err, "ptfsh watch: %v\n", err)
		w.snapshot(files)
		return files
	}
	if w.seed != "" {
		if err := sh.Engine.Set("ptfsh.seed", w.seed); err != nil {
			fmt.Fprintf(w.err, "ptfsh watch: --seed: %v\n", err)
		}
	}
	src, err := os.ReadFile(w.script)
	failed := false
	if err != nil {
		fmt.Fprintf(&errs, "ptfsh: %v\n", err)
		failed = true
	} else if err := sh.Session.Exec(ctx, w.script, string(src)); err != nil {
		fmt.Fprint(&errs, session.FormatError(err, string(src)))
		failed = true
	}
	files = append(files, sh.Session.InputFiles()...)
	sh.Close()
	w.snapshot(files)

	lines := splitLines(out.String())
	took := time.Since(start).Round(time.Millisecond)
	if w.runs == 1 {
		io.Copy(w.out, &out)
		io.Copy(w.err, &errs)
		fmt.Fprintf(w.err, "-- watching %s (%d files); Ctrl-C stops\n", filepath.Base(w.script), len(files))
	} else {
		fmt.Fprintf(w.out, "-- run %d, %s changed (%s):\n", w.runs, names(changed), took)
		writeDiff(w.out, w.prev, lines)
		io.Copy(w.err, &errs)
	}
	if failed {
		fmt.Fprintln(w.err, "-- the script failed; fix it and save to run it again")
	}
	w.prev = lines
	return files
}

// snapshot records the files' modification times and sizes.
func (w *watcher) snapshot(files []string) {
	w.stamps = map[string]string{}
	for _, f := range files {
		w.stamps[f] = stamp(f)
	}
}

// changed returns the watched files whose stamp changed since snapshot.
func (w *watcher) changed(files []string) []string {
	var c []string
	for _, f := range files {
		if stamp(f) != w.stamps[f] {
			c = append(c, f)
		}
	}
	return c
}

// stamp is a file's modification time and size, or of each file of a
// folder (a folder table), or "missing".
func stamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "missing"
	}
	if !st.IsDir() {
		return fmt.Sprint(st.ModTime().UnixNano(), st.Size())
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return "unreadable"
	}
	var b strings.Builder
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			fmt.Fprint(&b, e.Name(), info.ModTime().UnixNano(), info.Size(), ";")
		}
	}
	return b.String()
}

func names(paths []string) string {
	ns := make([]string, len(paths))
	for i, p := range paths {
		ns[i] = filepath.Base(p)
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// writeDiff writes the lines of b that are not in a with "+ ", those of a
// not in b with "- ", and a count of the unchanged lines, in order
// (diffLines).
func writeDiff(w io.Writer, a, b []string) {
	same, changed := 0, false
	diffLines(a, b, func(op byte, line string) {
		if op == ' ' {
			same++
			return
		}
		changed = true
		fmt.Fprintln(w, string(op)+" "+line)
	})
	if !changed {
		fmt.Fprintf(w, "   (no change: %d lines)\n", len(a))
		return
	}
	fmt.Fprintf(w, "   (%d lines unchanged)\n", same)
}
