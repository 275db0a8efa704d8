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
// (`want.state`, `want.timers`, `want.counts`), and `-- hint --` is text
// that a failing test shows. The processing-time clock is pinned at
// assembly.TestProcessingTime unless the test sets its own. A failing
// test shows a diff; -update rewrites want.out and the checks it has.
func runTests(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	update := fs.Bool("update", false, "rewrite the want.out section of each test with what it printed (and its want.state, want.timers, want.counts)")
	shuffle := fs.Int("shuffle", 0, "run each test that passes `N` more times with its input in other orders Flink may give it (see shuffle.go)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh test [-update] [-shuffle N] [PATH...]   (PATH: a .txtar test file or a folder of them; default .)\n"+
			"sections: query.sql, want.out, optional want.state, want.timers, want.counts and hint; others are files of the test\n"+
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
		ok, msg := runTestFile(f, *update, *shuffle)
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

// runTestFile runs one test file and reports whether it passed, with a
// diff or an error when it did not. Function files that are not sections
// of the test are looked for beside it.
func runTestFile(file string, update bool, shuffle int) (bool, string) {
	home, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return false, fmt.Sprintf("  %v\n", err)
	}
	return runTestFileWith(file, home, update, shuffle)
}

// runTestFileWith is runTestFile with the folder, home, where the test
// finds function files that are not its sections (a lesson's solutions).
func runTestFileWith(file, home string, update bool, shuffle int) (bool, string) {
	test, err := testarchive.Read(file)
	if err != nil {
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
	if update {
		test.SetSection("want.out", got)
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
	if !ok {
		return false, "  no -- want.out -- section (run ptfsh test -update to write it, then check it)\n"
	}
	var msg strings.Builder
	if want != got {
		msg.WriteString(lineDiff(want, got))
	}
	for _, name := range testarchive.Checks {
		want, ok := test.Section(name)
		if !ok {
			continue
		}
		if got := clean(checks[name]); want != got {
			fmt.Fprintf(&msg, "  %s (%s):\n%s", name, checkWhat[name], lineDiff(want, got))
		}
	}
	if msg.Len() == 0 && shuffle > 0 {
		msg.WriteString(shuffleCheck(test, home, shuffle))
	}
	if msg.Len() == 0 {
		return true, ""
	}
	if hint, ok := test.Section("hint"); ok && strings.TrimSpace(hint) != "" {
		lines := strings.Split(strings.TrimRight(hint, "\n"), "\n")
		for i, l := range lines {
			prefix := "        "
			if i == 0 {
				prefix = "  hint: "
			}
			msg.WriteString(strings.TrimRight(prefix+l, " ") + "\n")
		}
	}
	return false, msg.String()
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
