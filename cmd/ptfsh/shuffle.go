package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/internal/testarchive"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// ptfsh test --shuffle N runs each test that passed N more times, each
// with another shuffle seed (SET 'ptfsh.shuffle-seed'): rows of different
// keys between two watermarks, rows of tables with row semantics and the
// turns of several table arguments come in another order, as Flink may
// hand them. A function written as Flink promises writes the same rows,
// in another order; one that depends on an order Flink does not promise
// fails here first.
//
// Each statement's output is compared as a multiset of lines with that of
// an unshuffled run, trace lines aside (they follow the order of the
// calls). A statement that fails unshuffled must fail shuffled, with any
// message: which row fails first is up to the order, on Flink too.

// stmtResult is what one statement printed and whether it failed.
type stmtResult struct {
	out    string
	failed bool
}

// shuffleCheck runs the test unshuffled and with seeds 1..n, each run in
// a fresh copy of its files, and returns "" when every run printed the
// same, else what changed.
func shuffleCheck(test *testarchive.Test, home string, n int) string {
	base := runStatements(test, home, 0)
	for seed := int64(1); seed <= int64(n); seed++ {
		got := runStatements(test, home, seed)
		for i := range base {
			var g stmtResult
			if i < len(got) {
				g = got[i]
			}
			b := base[i]
			switch {
			case b.failed && g.failed:
				continue
			case b.failed != g.failed:
				what := map[bool]string{true: "fails", false: "succeeds"}
				return fmt.Sprintf("  statement %d %s unshuffled and %s with its input in another order Flink may give it\n  (ptfsh test --shuffle: SET 'ptfsh.shuffle-seed' = '%d'):\n%s", i+1, what[b.failed], what[g.failed], seed, indent(g.out))
			}
			if bs, gs := comparable(b.out), comparable(g.out); bs != gs {
				return fmt.Sprintf("  statement %d prints other rows when its input comes in another order Flink may give it\n  (ptfsh test --shuffle: SET 'ptfsh.shuffle-seed' = '%d'): does the function depend on the order of\n  rows of different keys, or of different tables? The lines that differ, in sorted order:\n%s",
					i+1, seed, lineDiff(bs, gs))
			}
		}
	}
	return ""
}

// runStatements runs the test's query statement by statement in a fresh
// session and folder (shuffled with seed, unless 0) and returns what each
// printed.
func runStatements(test *testarchive.Test, home string, seed int64) []stmtResult {
	dir, err := os.MkdirTemp("", "ptfsh-test-")
	if err != nil {
		return []stmtResult{{out: err.Error() + "\n", failed: true}}
	}
	defer os.RemoveAll(dir)
	if err := test.Extract(dir); err != nil {
		return []stmtResult{{out: err.Error() + "\n", failed: true}}
	}
	clean := func(out string) string {
		out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
		return strings.ReplaceAll(out, home+string(filepath.Separator), "")
	}
	var out bytes.Buffer
	o := scriptOptions(dir, home, "", &out, &out)
	o.ProcessingTime, o.ShuffleSeed = assembly.TestProcessingTime, seed
	sh, err := assembly.New(o)
	if err != nil {
		return []stmtResult{{out: err.Error() + "\n", failed: true}}
	}
	defer sh.Close()
	var res []stmtResult
	for _, p := range sqlmini.ParseEach("query.sql", test.Query) {
		start := out.Len()
		err := p.Err
		if err == nil {
			err = sh.Session.ExecStatement(context.Background(), p.Stmt)
			if errors.Is(err, session.ErrQuit) {
				break
			}
		}
		res = append(res, stmtResult{out: clean(out.String()[start:]), failed: err != nil})
	}
	return res
}

// comparable is an output's lines, trace lines aside, sorted.
func comparable(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if !strings.HasPrefix(l, "trace ") {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}
