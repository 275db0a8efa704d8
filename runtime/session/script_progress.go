package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// A script run with a state file can be resumed as a whole. The session
// records in the state file, after each statement of the script finishes,
// a hash of that statement's text; the record goes when the script has run
// to its end. When the same script runs again over the same state file
// after a run that did not complete (killed, or stopped by an error), its
// statements are matched with the record from the first one on: a query or
// an INSERT that finished in the earlier run is skipped, with a note;
// every other statement (CREATE, SET, ...) runs again, since it builds the
// session the later statements need; the statement that was running when
// the run stopped resumes from its last checkpoint; the rest run as usual.
//
// The same script is the same file (its absolute path; -e scripts count as
// one file) whose statements are the same text, byte for byte, up to the
// statement where the earlier run stopped. When a statement before that
// changed, the match ends there: it and every statement after it run, as
// in a first run (an INSERT among them appends its rows again).

// scriptRecord is the progress of a script in the state file.
type scriptRecord struct {
	// Done are the SHA-256 hashes of the texts of the statements that
	// finished, in order.
	Done []string `json:"done"`
}

// scriptProgress follows one run of a script.
type scriptProgress struct {
	store state.Store
	key   []byte
	rec   scriptRecord
	match int // statements of the earlier run still matched, from the start
}

// scriptKey names a script's progress record in the meta namespace.
func scriptKey(filename string) []byte {
	if filename == "" {
		filename = "(-e)"
	} else if abs, err := filepath.Abs(filename); err == nil {
		filename = abs
	}
	return []byte("script/" + filename)
}

func statementHash(st *sqlmini.Statement) string {
	h := sha256.Sum256([]byte(st.Text))
	return hex.EncodeToString(h[:])
}

// startScript reads the progress of the script's earlier run, if any.
func (s *Session) startScript(filename string) (*scriptProgress, error) {
	p := &scriptProgress{store: s.cfg.Store, key: scriptKey(filename)}
	err := p.store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.MetaNamespace, p.key)
		if err != nil || b == nil {
			return err
		}
		return json.Unmarshal(b, &p.rec)
	})
	if err != nil {
		return nil, fmt.Errorf("reading the progress of the script in the state file: %w", err)
	}
	p.match = len(p.rec.Done)
	return p, nil
}

// skip reports whether statement i of the script finished in the earlier
// run and is not to run again (a query or an INSERT). A statement that
// differs from the earlier run's ends the matching.
func (p *scriptProgress) skip(i int, st *sqlmini.Statement) bool {
	if i >= p.match {
		return false
	}
	if p.rec.Done[i] != statementHash(st) {
		p.match = i
		p.rec.Done = p.rec.Done[:i]
		return false
	}
	return st.Query != nil || st.Insert != nil || st.StatementSet != nil
}

// finished records that statement i finished, in a transaction of its
// own: for a statement whose final checkpoint recorded it already (a query
// or an INSERT, see recordTx) it changes nothing in the file.
func (p *scriptProgress) finished(i int, st *sqlmini.Statement) error {
	if i < len(p.rec.Done) {
		return nil // matched: recorded already
	}
	p.rec.Done = append(p.rec.Done, statementHash(st))
	return p.store.Update(func(tx state.Tx) error { return p.put(tx, p.rec) })
}

// failed notes that statement i failed and the script went on (SET
// 'ptfsh.on-error' = 'continue'): an empty entry keeps Done indexed by
// statement, and a rerun runs the statement again.
func (p *scriptProgress) failed(i int) {
	for len(p.rec.Done) <= i {
		p.rec.Done = append(p.rec.Done, "")
	}
}

// recordTx records in tx that statement i finished, without changing p.
// The session calls it in the statement's final checkpoint, so that the
// rows a statement wrote and the record that it finished commit together:
// a run killed between the two would otherwise run a finished INSERT
// again and append its rows twice.
func (p *scriptProgress) recordTx(tx state.Tx, i int, st *sqlmini.Statement) error {
	if i < len(p.rec.Done) {
		return nil // matched: recorded already
	}
	rec := scriptRecord{Done: append(p.rec.Done[:i:i], statementHash(st))}
	return p.put(tx, rec)
}

func (p *scriptProgress) put(tx state.Tx, rec scriptRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.Put(exec.MetaNamespace, p.key, b)
}

// complete forgets the record: the script ran to its end, and running it
// again runs it afresh.
func (p *scriptProgress) complete() error {
	return p.store.Update(func(tx state.Tx) error { return tx.Delete(exec.MetaNamespace, p.key) })
}
