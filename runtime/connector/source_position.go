package connector

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/state"
)

// File sources remember, at each checkpoint, how far they read, so that a
// statement stopped without end of input (or killed) goes on after that
// position when it runs again. A file source is the same across runs when
// its table name and path are. It resumes only when the file grew by
// appending: a fingerprint of the part already read must still match.

// SetSourcePositions = 'reset' makes file sources start again from the
// beginning instead of failing when a file changed other than by growing.
const SetSourcePositions = "state.source-positions"

// sourceRecord is a file source's checkpointed position.
type sourceRecord struct {
	Offset      int64  `json:"offset"`
	Line        int    `json:"line"`
	Row         int64  `json:"row"`
	Fingerprint string `json:"fingerprint"`
}

func sourceKey(t *catalog.Table) []byte { return []byte(t.Name + "\x00" + t.Options["path"]) }

// fingerprint hashes what identifies the first n bytes of a file: its
// first 64 KiB and the 4 KiB before n. Cheap at every checkpoint, and it
// catches a file rewritten or cut (not a change in its middle).
func fingerprint(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	head := min(n, 64<<10)
	if _, err := io.CopyN(h, io.NewSectionReader(f, 0, head), head); err != nil {
		return "", err
	}
	if n > head {
		from := max(head, n-4<<10)
		if _, err := io.CopyN(h, io.NewSectionReader(f, from, n-from), n-from); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(h, "%d", n)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkpoint records the source's position; at the end of a finished
// statement it forgets it (the next run reads the file from the start).
func (s *fileStream) Checkpoint(tx state.Tx, finished bool) error {
	key := sourceKey(s.n.t)
	if finished {
		return tx.Delete(exec.SourceNamespace, key)
	}
	pos := s.r.Position()
	fp, err := fingerprint(TablePath(s.n.t), pos.Offset)
	if err != nil {
		return fmt.Errorf("table '%s': %w", s.n.t.Name, err)
	}
	b, err := json.Marshal(sourceRecord{Offset: pos.Offset, Line: pos.Line, Row: pos.Row, Fingerprint: fp})
	if err != nil {
		return err
	}
	return tx.Put(exec.SourceNamespace, key, b)
}

// resumePosition returns where a file table's source goes on, or the zero
// position to read it from the start.
func resumePosition(ex *exec.Execution, t *catalog.Table) (format.SourcePos, error) {
	var rec *sourceRecord
	err := ex.Store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.SourceNamespace, sourceKey(t))
		if err != nil || b == nil {
			return err
		}
		rec = &sourceRecord{}
		return json.Unmarshal(b, rec)
	})
	if err != nil {
		return format.SourcePos{}, fmt.Errorf("table '%s': reading its checkpointed position: %w", t.Name, err)
	}
	if rec == nil || rec.Offset == 0 {
		return format.SourcePos{}, nil
	}
	path := TablePath(t)
	fi, err := os.Stat(path)
	fp := ""
	if err == nil && fi.Size() >= rec.Offset {
		fp, err = fingerprint(path, rec.Offset)
	}
	if err != nil || fp != rec.Fingerprint {
		if ex.ResetSources {
			return format.SourcePos{}, nil
		}
		return format.SourcePos{}, fmt.Errorf("table '%s': the file '%s' changed since the last checkpoint (at byte %d, row %d), other than by growing; SET '%s' = 'reset' to read it again from the start",
			t.Name, t.Options["path"], rec.Offset, rec.Row, SetSourcePositions)
	}
	ex.Notes = append(ex.Notes, fmt.Sprintf("note: table '%s' goes on after row %d (byte %d) of '%s', where the last run stopped", t.Name, rec.Row, rec.Offset, t.Options["path"]))
	return format.SourcePos{File: path, Offset: rec.Offset, Line: rec.Line, Row: rec.Row}, nil
}
