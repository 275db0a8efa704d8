package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/internal/testarchive"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// runTests is `ptfsh test [-update] [PATH...]` (flags anywhere on the
// line: ptfsh test x.txtar -update): each PATH is a test file
// (.txtar) or a folder of them. A test file holds the files a test needs
// (functions, data), a `-- query.sql --` section whose statements run one
// by one (an error is printed and the next runs, as in the shell), and a
// `-- want.out --` section with what they must print, results and errors
// together. Optional sections check what the store holds after the run
// (`want.state`, `want.timers`, `want.counts`). An exercise keeps what
// it must print in `-- want.hidden --` instead (encoded), and a failing
// one says how far the output is from it without showing it: the lines
// printed that are not expected, how many expected ones are missing;
// -reveal shows the difference. `-- hint --` (or `-- hint 1 --`, `--
// hint 2 --`, ...) is text a failing test shows, one hint at first and
// more with -hint N. The processing-time clock is pinned at
// [assembly.TestProcessingTime] unless the test sets its own. A failing
// test shows a diff; -update rewrites want.out (or want.hidden) and the
// checks it has.
func runTests(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o testOptions
	fs.BoolVar(&o.update, "update", false, "rewrite the want.out (or want.hidden) section of each test with what it printed (and its want.state, want.timers, want.counts)")
	fs.IntVar(&o.shuffle, "shuffle", 0, "run each test that passes `N` more times with its input in other orders Flink may give it (see shuffle.go)")
	fs.IntVar(&o.hints, "hint", 1, "show the first `N` hints of a failing test")
	fs.BoolVar(&o.reveal, "reveal", false, "show what an exercise must print (its hidden want) as a diff when it fails")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh test [-update] [-shuffle N] [-hint N] [-reveal] [PATH...]   (PATH: a .txtar test file or a folder of them; default .)\n"+
			"sections: query.sql, want.out (or want.hidden), optional want.state, want.timers, want.counts and hint (or hint 1, hint 2, ...); others are files of the test\n"+
			"the processing-time clock is %s unless a test sets 'ptfsh.processing-time'\n", assembly.TestProcessingTime)
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(stderr, "ptfsh test: %v\n", err)
			return 2
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		_ = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".txtar") {
				files = append(files, path)
			}
			return err
		})
	}
	sort.Strings(files)
	if len(files) == 0 {
		fmt.Fprintf(stderr, "ptfsh test: no .txtar test files in %s\n", strings.Join(paths, ", "))
		return 2
	}
	failed := 0
	for _, f := range files {
		ok, msg := runTestFile(f, o)
		if ok {
			fmt.Fprintf(stdout, "ok    %s\n", f)
			continue
		}
		failed++
		fmt.Fprintf(stdout, "FAIL  %s\n%s", f, msg)
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", len(files)-failed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// testOptions are the flags of ptfsh test that change how a test runs
// and what its failure shows.
type testOptions struct {
	update  bool
	shuffle int
	hints   int  // how many hints a failing test shows (at least 1)
	reveal  bool // a failing exercise shows its hidden want as a diff
}

// runTestFile runs one test file and reports whether it passed, with a
// diff or an error when it did not. Function files that are not sections
// of the test are looked for beside it.
func runTestFile(file string, o testOptions) (bool, string) {
	home, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return false, fmt.Sprintf("  %v\n", err)
	}
	return runTestFileWith(file, home, o)
}

// runTestFileWith is runTestFile with the folder, home, where the test
// finds function files that are not its sections (a lesson's solutions).
func runTestFileWith(file, home string, o testOptions) (bool, string) {
	test, err := testarchive.Read(file)
	if err != nil {
		return false, fmt.Sprintf("  %v\n", err)
	}
	hidden, isExercise, err := test.Hidden()
	if err != nil && !o.update { // -update writes it anew
		return false, fmt.Sprintf("  %v\n", err)
	}
	dir, err := os.MkdirTemp("", "ptfsh-test-")
	if err != nil {
		return false, fmt.Sprintf("  %v\n", err)
	}
	defer os.RemoveAll(dir)
	if err := test.Extract(dir); err != nil {
		return false, fmt.Sprintf("  %v\n", err)
	}
	got, checks := runTestQuery(dir, home, test.Query)
	clean := func(s string) string {
		s = strings.ReplaceAll(s, dir+string(filepath.Separator), "")
		return strings.ReplaceAll(s, home+string(filepath.Separator), "")
	}
	got = clean(got)
	if o.update {
		if isExercise {
			test.SetHidden(got)
		} else {
			test.SetSection("want.out", got)
		}
		for _, name := range testarchive.Checks {
			if _, ok := test.Section(name); ok {
				test.SetSection(name, clean(checks[name]))
			}
		}
		if err := test.Save(); err != nil {
			return false, fmt.Sprintf("  %v\n", err)
		}
		return true, ""
	}
	want, ok := test.Want()
	if isExercise {
		want, ok = hidden, true
	}
	if !ok {
		return false, "  no -- want.out -- section (run ptfsh test -update to write it, then check it)\n"
	}
	var msg strings.Builder
	if want != got {
		if isExercise && !o.reveal {
			msg.WriteString(hiddenDiff(want, got))
		} else {
			msg.WriteString(lineDiff(want, got))
		}
	}
	for _, name := range testarchive.Checks {
		want, ok := test.Section(name)
		if !ok {
			continue
		}
		if got := clean(checks[name]); want != got {
			if isExercise && !o.reveal {
				fmt.Fprintf(&msg, "  %s (%s) is not as expected (ptfsh test -reveal shows how)\n", name, checkWhat[name])
				continue
			}
			fmt.Fprintf(&msg, "  %s (%s):\n%s", name, checkWhat[name], lineDiff(want, got))
		}
	}
	if msg.Len() == 0 && o.shuffle > 0 {
		msg.WriteString(shuffleCheck(test, home, o.shuffle))
	}
	if msg.Len() == 0 {
		return true, ""
	}
	msg.WriteString(showHints(test.Hints(), max(o.hints, 1)))
	return false, msg.String()
}

// showHints shows the first n hints, and says how to see the next.
func showHints(hints []string, n int) string {
	var b strings.Builder
	for i, h := range hints[:min(n, len(hints))] {
		lines := strings.Split(strings.TrimRight(h, "\n"), "\n")
		label := "  hint: "
		if len(hints) > 1 {
			label = fmt.Sprintf("  hint %d of %d: ", i+1, len(hints))
		}
		for j, l := range lines {
			prefix := strings.Repeat(" ", len(label))
			if j == 0 {
				prefix = label
			}
			b.WriteString(strings.TrimRight(prefix+l, " ") + "\n")
		}
	}
	if n < len(hints) {
		fmt.Fprintf(&b, "  (ptfsh test -hint %d shows the next hint)\n", n+1)
	}
	return b.String()
}

// hiddenDiff says how output got differs from an exercise's hidden want
// without showing it: the lines got has that want has not (they are the
// learner's own), how many of want's are missing, or that the lines are
// right in another order.
func hiddenDiff(want, got string) string {
	lines := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	w, g := lines(want), lines(got)
	left := map[string]int{}
	for _, l := range w {
		left[l]++
	}
	var extra []string
	for _, l := range g {
		if left[l] > 0 {
			left[l]--
			continue
		}
		extra = append(extra, l)
	}
	missing := 0
	for _, n := range left {
		missing += n
	}
	var b strings.Builder
	right := len(g) - len(extra)
	if len(extra) == 0 && missing == 0 {
		fmt.Fprintf(&b, "  all %d lines are right, but not in the order expected\n", len(g))
	} else {
		fmt.Fprintf(&b, "  %s printed, %d as expected; %s missing\n", plural(len(g), "line"), right, plural(missing, "expected line"))
	}
	if len(extra) > 0 {
		b.WriteString("  printed but not expected:\n")
		for i, l := range extra {
			if i == 12 {
				fmt.Fprintf(&b, "    ... and %d more\n", len(extra)-i)
				break
			}
			b.WriteString("    " + l + "\n")
		}
	}
	b.WriteString("  (the expected lines stay hidden until the exercise passes: ptfsh test -reveal shows them)\n")
	return b.String()
}

// checkWhat says in a failing test's message what each check compares.
var checkWhat = map[string]string{
	"want.state":  "the state left after the run: uid key entry value",
	"want.timers": "the timers left after the run: uid key timer time",
	"want.counts": "per uid: keys with state, timers",
}

// runTestQuery runs a test's statements in a fresh session over a memory
// store, with a fixed seed and processing time, and returns what they
// printed and the text of each check section (want.state, want.timers,
// want.counts) for what the store holds after them. Relative paths
// resolve in dir, where the test's files are; a function file that is not
// there is looked for in home, the test file's folder.
func runTestQuery(dir, home, query string) (string, map[string]string) {
	var out bytes.Buffer
	o := scriptOptions(dir, home, "", &out, &out)
	o.ProcessingTime = assembly.TestProcessingTime
	sh, err := assembly.New(o)
	if err != nil {
		return err.Error() + "\n", nil
	}
	defer sh.Close()
	sh.RunEach(context.Background(), "query.sql", query, &out)
	stored, err := sh.Session.StoredState()
	if err != nil {
		msg := "error: " + err.Error() + "\n"
		return out.String(), map[string]string{"want.state": msg, "want.timers": msg, "want.counts": msg}
	}
	return out.String(), storedChecks(stored)
}

// storedChecks renders what the store holds as the check sections show
// it: want.state a line per state entry (uid, key, entry, value, as SHOW
// STATE shows them, without the time written), want.timers a line per
// timer (uid, key, name, time), want.counts a line per uid.
func storedChecks(stored []session.Stored) map[string]string {
	var st, tm, counts strings.Builder
	for _, u := range stored {
		keys := map[string]bool{}
		for _, r := range u.State {
			fmt.Fprintf(&st, "%s %s %s %s\n", u.UID, r[0], r[1], r[2])
			keys[r[0]] = true
		}
		for _, t := range u.Timers {
			fmt.Fprintf(&tm, "%s %s %s %s\n", u.UID, t.Key, t.Name, types.FormatValue(types.Instant{Millis: t.Millis}, types.TypeTimestampLTZ))
		}
		fmt.Fprintf(&counts, "%s: %s with state, %s\n", u.UID, plural(len(keys), "key"), plural(len(u.Timers), "timer"))
	}
	return map[string]string{"want.state": st.String(), "want.timers": tm.String(), "want.counts": counts.String()}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// parseInterspersed parses the flags of args wherever they stand among
// the other arguments, which it returns in order (all that follows "--"
// is taken as it is).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// newScriptSession returns a shell as ptfsh test and ptfsh export run
// scripts in: a memory store, Math.random and Date.now seeded with 1,
// relative paths resolved in dir (function files also in functionDir,
// when set), results and errors to out, console.log to console, in
// format (the default when empty).
func newScriptSession(dir, functionDir, format string, out, console io.Writer) (*assembly.Shell, error) {
	return assembly.New(scriptOptions(dir, functionDir, format, out, console))
}

// scriptOptions are the options of newScriptSession.
func scriptOptions(dir, functionDir, format string, out, console io.Writer) assembly.Options {
	seed := int64(1)
	return assembly.Options{Out: out, Err: out, Console: console, Memory: true,
		BaseDir: dir, FunctionDir: functionDir, Format: format, Seed: &seed, EvalTimeout: assembly.DefaultEvalTimeout}
}

// lineDiff shows how got differs from want, line by line: "-" lines are
// wanted and missing, "+" lines printed and not wanted.
func lineDiff(want, got string) string {
	var d strings.Builder
	diffLines(strings.Split(want, "\n"), strings.Split(got, "\n"), func(op byte, line string) {
		d.WriteString("  " + string(op) + "  " + line + "\n")
	})
	return d.String()
}
