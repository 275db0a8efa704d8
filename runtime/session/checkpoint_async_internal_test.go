package session

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// failingCommits is a store whose UpdateAsync commits in the background,
// and whose failAt-th background commit fails, leaving the store as it
// was (a full disk, say).
type failingCommits struct {
	state.Store
	failAt, seen int
}

var errRolledBack = errors.New("rolled back")

func (s *failingCommits) UpdateAsync(fn func(state.Tx) error) (*state.Commit, error) {
	s.seen++
	fail := s.seen == s.failAt
	err := s.Store.Update(func(tx state.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if fail {
			return errRolledBack
		}
		return nil
	})
	if err != nil && !errors.Is(err, errRolledBack) {
		return nil, err
	}
	c, end := state.NewCommit()
	go func() {
		if fail {
			end(errors.New("disk full"))
			return
		}
		end(nil)
	}()
	return c, nil
}

// TestCheckpoint_asyncCommitFails: a periodic checkpoint's commit that
// fails in the background fails the statement at the next checkpoint,
// with the statement's position (script:line:col), and
// the file sink is cut back to the last checkpoint that committed; run
// again with a healthy store, the script resumes from there and the file
// holds every row once.
func TestCheckpoint_asyncCommitFails(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sql")
	src := `SET 'execution.checkpointing.interval-rows' = '3';
CREATE TABLE in_t (x INT) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE out_t (x INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT INTO out_t SELECT x FROM in_t;
`
	var in strings.Builder
	for i := 1; i <= 10; i++ {
		in.WriteString(strings.Repeat("1", i) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	mem := state.NewMem()
	run := func(st state.Store) error {
		var out bytes.Buffer
		s, err := NewSession(Config{Out: &out, Err: &out, Store: st, Format: "rows"})
		if err != nil {
			t.Fatal(err)
		}
		return s.Exec(context.Background(), script, src)
	}
	// The CREATEs take no checkpoint; the INSERT's first periodic one (3
	// rows) commits, its second (6 rows) fails.
	err := run(&failingCommits{Store: mem, failAt: 2})
	if err == nil || !strings.HasPrefix(err.Error(), script+":4:1: writing a checkpoint") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("first run: %v, want the failed commit at the INSERT's position", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "1\n11\n111\n"; got != want {
		t.Errorf("out.csv after the failed commit = %q, want the rows of the committed checkpoint %q", got, want)
	}
	if err := run(&failingCommits{Store: mem}); err != nil {
		t.Fatal(err)
	}
	b, err = os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != in.String() {
		t.Errorf("out.csv after the rerun = %q, want every row once", got)
	}
}
