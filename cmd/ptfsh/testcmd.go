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
)

// runTests is `ptfsh test [-update] [PATH...]` (flags anywhere on the
// line: ptfsh test x.txtar -update): each PATH is a test file
// (.txtar) or a folder of them. A test file holds the files a test needs
// (functions, data), a `-- query.sql --` section whose statements run one
// by one (an error is printed and the next runs, as in the shell), and a
// `-- want.out --` section with what they must print, results and errors
// together. A failing test shows a diff; -update rewrites want.out.
func runTests(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	update := fs.Bool("update", false, "rewrite the want.out section of each test with what it printed")
	shuffle := fs.Int("shuffle", 0, "run each test that passes `N` more times with its input in other orders Flink may give it (see shuffle.go)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ptfsh test [-update] [-shuffle N] [PATH...]   (PATH: a .txtar test file or a folder of them; default .)\n")
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
// diff or an error when it did not.
func runTestFile(file string, update bool, shuffle int) (bool, string) {
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
	home, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		return false, fmt.Sprintf("  %v\n", err)
	}
	clean := func(out string) string {
		out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
		return strings.ReplaceAll(out, home+string(filepath.Separator), "")
	}
	got := clean(runTestQuery(dir, home, test.Query))
	if update {
		if err := test.Update(got); err != nil {
			return false, fmt.Sprintf("  %v\n", err)
		}
		return true, ""
	}
	want, ok := test.Want()
	if !ok {
		return false, "  no -- want.out -- section (run ptfsh test -update to write it, then check it)\n"
	}
	if want != got {
		return false, lineDiff(want, got)
	}
	if shuffle > 0 {
		if msg := shuffleCheck(test, home, shuffle); msg != "" {
			return false, msg
		}
	}
	return true, ""
}

// runTestQuery runs a test's statements in a fresh session over a memory
// store, with a fixed seed, and returns what they printed. Relative paths
// resolve in dir, where the test's files are; a function file that is not
// there is looked for in home, the test file's folder.
func runTestQuery(dir, home, query string) string {
	var out bytes.Buffer
	sh, err := newScriptSession(dir, home, "", &out, &out)
	if err != nil {
		return err.Error() + "\n"
	}
	defer sh.Close()
	sh.RunEach(context.Background(), "query.sql", query, &out)
	return out.String()
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
	return newScriptSessionShuffled(dir, functionDir, format, out, console, 0)
}

// newScriptSessionShuffled is newScriptSession with its input shuffled
// with seed (0: not shuffled; see shuffle.go).
func newScriptSessionShuffled(dir, functionDir, format string, out, console io.Writer, shuffle int64) (*assembly.Shell, error) {
	seed := int64(1)
	return assembly.New(assembly.Options{Out: out, Err: out, Console: console, Memory: true,
		BaseDir: dir, FunctionDir: functionDir, Format: format, Seed: &seed, EvalTimeout: assembly.DefaultEvalTimeout, ShuffleSeed: shuffle})
}

// lineDiff shows how got differs from want, line by line: "-" lines are
// wanted and missing, "+" lines printed and not wanted.
func lineDiff(want, got string) string {
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	// Longest common subsequence of lines; test outputs are small.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var d strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			d.WriteString("     " + a[i] + "\n")
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			d.WriteString("  -  " + a[i] + "\n")
			i++
		default:
			d.WriteString("  +  " + b[j] + "\n")
			j++
		}
	}
	return d.String()
}
