package session

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/state"
)

// recordOnlyFails is a store whose failAt-th transaction that writes
// nothing but a script's progress record fails: it stands for a run killed
// after a statement's final checkpoint and before any later transaction.
type recordOnlyFails struct {
	state.Store
	failAt, seen int
}

// countingTx counts the writes of a transaction and, of them, the puts of
// a script's progress record.
type countingTx struct {
	state.Tx
	writes, recordPuts int
}

func (t *countingTx) Delete(ns string, key []byte) error {
	t.writes++
	return t.Tx.Delete(ns, key)
}

func (t *countingTx) DeleteNamespace(ns string) error {
	t.writes++
	return t.Tx.DeleteNamespace(ns)
}

func (t *countingTx) Put(ns string, key, value []byte) error {
	t.writes++
	if ns == exec.MetaNamespace && strings.HasPrefix(string(key), "script/") {
		t.recordPuts++
	}
	return t.Tx.Put(ns, key, value)
}

func (s *recordOnlyFails) Update(fn func(state.Tx) error) error {
	return s.Store.Update(func(tx state.Tx) error {
		ct := &countingTx{Tx: tx}
		if err := fn(ct); err != nil {
			return err
		}
		if ct.writes > 0 && ct.writes == ct.recordPuts {
			if s.seen++; s.seen == s.failAt {
				return errors.New("killed")
			}
		}
		return nil
	})
}

// TestScriptProgress_recordedWithFinalCheckpoint: an INSERT's rows and the
// record that it finished commit in one transaction, so a run stopped
// right after the INSERT's final checkpoint does not run it again when
// the script reruns.
func TestScriptProgress_recordedWithFinalCheckpoint(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "job.sql")
	src := `CREATE TABLE in_t (x INT) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE out_t (x INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT INTO out_t SELECT x FROM in_t;
`
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), []byte("1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first two such transactions record the CREATEs; the third, the
	// INSERT, after its final checkpoint (which writes the source's
	// progress too).
	store := &recordOnlyFails{Store: state.NewMem(), failAt: 3}
	run := func() (string, error) {
		var out bytes.Buffer
		s, err := NewSession(Config{Out: &out, Err: &out, Store: store, Format: "rows"})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Exec(context.Background(), script, src)
		return out.String(), err
	}
	if _, err := run(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("first run: %v, want the record's own transaction to fail", err)
	}
	msgs, err := run()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msgs, "skipped: it finished in an earlier run") {
		t.Errorf("the rerun did not skip the finished INSERT:\n%s", msgs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "1\n2\n" {
		t.Errorf("out.csv = %q, want the INSERT's rows once", got)
	}
}
