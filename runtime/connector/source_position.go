package connector

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"hash/fnv"
	"io"
	"os"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/state"
)

// File sources remember, at each checkpoint, how far they read, so that a
// statement stopped without end of input (or killed) goes on after that
// position when it runs again. A file source is the same across runs when
// its table name and path are, and, when one statement reads a table more
// than once (a self-union, a statement set), when it is the same read of
// it: the reads are counted in the order the plan opens them. It resumes
// only when the file grew by appending: a check of every byte already
// read (prefixHasher) must still match. A file that shrinks while it is
// read is an error.
//
// A Parquet file (parquet.go) cannot grow, and its position is a row
// index, not a byte offset: its hash is of the file's size and footer
// ([format.ParquetFooter]), which describe every column chunk, and it
// resumes only when they are the same.
//
// A checkpoint taken while the statement runs also keeps the source's
// watermark generator (the largest time seen, the last watermark, a
// watermark due after the last row), so that a killed statement, run
// again, emits the watermarks an uninterrupted run emits. The final
// checkpoint of a statement stopped without end of input keeps only the
// position: the next statement starts its watermarks afresh, as a Flink
// job restored from a savepoint does.

// sourceRecord is a file source's checkpointed position.
type sourceRecord struct {
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
	Row    int64 `json:"row"`
	// CRC is the check of the file's first Offset bytes (prefixHasher.sum).
	CRC string `json:"crc,omitempty"`
	// Hash is the SHA-256 of the file's first Offset bytes, hex, which
	// state files written before CRC keep; still read. A Parquet file's
	// record keeps its identity here.
	Hash string `json:"sha256,omitempty"`
	// Fingerprint is the older, partial check (the first 64 KiB and the 4
	// KiB before Offset) of state files written before Hash; still read.
	Fingerprint string `json:"fingerprint,omitempty"`
	// WM is the watermark generator of a statement that was still running.
	WM *sourceWM `json:"wm,omitempty"`
	// Finished marks a source whose statement read it to its end: it
	// holds no position (the next run reads the file from its start), only
	// Row, the rows read, for the note that says so.
	Finished bool `json:"finished,omitempty"`
	// Run is the exec.Options.RunID of the run that finished it.
	Run string `json:"run,omitempty"`
	// Files are the files of a folder read so far (folder.go), in order;
	// FilesDone is true when the last one was finished too.
	Files     []folderFile `json:"files,omitempty"`
	FilesDone bool         `json:"files_done,omitempty"`
}

// sourceWM is a running source's watermark state.
type sourceWM struct {
	Gen     exec.WmState `json:"gen"`
	Pending bool         `json:"pending"` // a watermark is due after the last row
	Next    int64        `json:"next"`
}

// sourceKey names the read'th read (from 0) of table t in a statement.
func sourceKey(t *catalog.Table, read int) []byte {
	k := t.Name + "\x00" + t.Options["path"]
	if read > 0 {
		k += "\x00" + strconv.Itoa(read)
	}
	return []byte(k)
}

// prefixHasher hashes the first bytes of a file as a source reads it. For
// a gzip file they are the decompressed bytes, read from a stream it keeps
// open (gzip cannot seek).
//
// The check is the CRC-32C and the CRC-32 (IEEE) of the bytes, 64 bits
// in all: enough to tell a file that changed other than by growing,
// which is all it is for, at about fifty times the speed of the SHA-256
// it replaces (a checkpoint every 100k rows hashed what was read since,
// 2–3 % of a keyed count's CPU). With sha set, it hashes the bytes with
// SHA-256 as well, to check the position of an older state file.
type prefixHasher struct {
	crcC, crcI uint32
	sha        hash.Hash
	hashed     int64         // bytes hashed so far
	gz         io.ReadCloser // the decompressed stream of a gzip file, at hashed
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Write adds b to the hashes.
func (p *prefixHasher) Write(b []byte) (int, error) {
	p.crcC = crc32.Update(p.crcC, castagnoli, b)
	p.crcI = crc32.Update(p.crcI, crc32.IEEETable, b)
	if p.sha != nil {
		p.sha.Write(b)
	}
	return len(b), nil
}

// hashBuf is the size of the reads of a file being hashed.
const hashBuf = 256 << 10

// extend hashes the file's bytes up to n.
func (p *prefixHasher) extend(path string, n int64) error {
	if n <= p.hashed {
		return nil
	}
	var src io.Reader
	if format.IsGzip(path) {
		if p.gz == nil {
			if p.hashed > 0 {
				return fmt.Errorf("internal: a gzip prefix hash cannot go on from byte %d", p.hashed)
			}
			in, err := format.OpenStream(path)
			if err != nil {
				return err
			}
			p.gz = in
		}
		src = io.LimitReader(p.gz, n-p.hashed)
	} else {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		src = io.NewSectionReader(f, p.hashed, n-p.hashed)
	}
	got, err := io.CopyBuffer(p, src, make([]byte, min(n-p.hashed, hashBuf)))
	if err == nil && got < n-p.hashed {
		err = errShrank
	}
	if err != nil {
		p.close()
		return err
	}
	p.hashed = n
	return nil
}

// sum is the check of the bytes hashed: the two CRCs, 16 hex digits.
func (p *prefixHasher) sum() string {
	return fmt.Sprintf("%08x%08x", p.crcC, p.crcI)
}

// matches hashes the file's first n bytes (p is new) and reports whether
// they are what a checkpoint recorded: crc (sum), or, from an older state
// file, sha, the SHA-256. p then goes on with the CRCs only.
func (p *prefixHasher) matches(path string, n int64, crc, sha string) bool {
	if crc == "" {
		p.sha = sha256.New()
	}
	ok := p.extend(path, n) == nil
	if crc == "" {
		ok = ok && sha != "" && hex.EncodeToString(p.sha.Sum(nil)) == sha
		p.sha = nil
		return ok
	}
	return ok && p.sum() == crc
}

// close releases the stream of a gzip file.
func (p *prefixHasher) close() {
	if p.gz != nil {
		p.gz.Close()
		p.gz = nil
	}
}

var errShrank = errors.New("the file is shorter than what was read of it")

// fingerprint hashes what identifies the first n bytes of a file the old
// way: its first 64 KiB and the 4 KiB before n.
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

// Checkpoint records the source's position; at the end of a finished
// statement it forgets it (the next run reads the file from the start).
// final marks the last checkpoint of a statement (finished or stopped).
func (s *fileStream) Checkpoint(tx state.Tx, finished, final bool) error {
	key := sourceKey(s.n.t, s.read)
	hashErr := s.waitHash()
	if finished && s.ex.Opts.Scratch {
		return tx.Delete(exec.SourceNamespace, key)
	}
	if finished {
		rec := sourceRecord{Finished: true, Run: s.ex.Opts.RunID, Row: s.r.Position().Row}
		if s.folder == nil {
			rec.Fingerprint = fileHead(TablePath(s.n.t))
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return tx.Put(exec.SourceNamespace, key, b)
	}
	if s.folder != nil {
		files, done, err := s.folder.checkpoint()
		if err != nil {
			return fmt.Errorf("table '%s': %w", s.n.t.Name, err)
		}
		rec := sourceRecord{Files: files, FilesDone: done, Offset: -1}
		if !final && s.wm != nil {
			rec.WM = &sourceWM{Gen: s.wm.State(), Pending: s.pending, Next: s.wmNext}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		return tx.Put(exec.SourceNamespace, key, b)
	}
	pos := s.r.Position()
	// A Parquet file's record keeps the hash of its footer, taken when it
	// was opened.
	rec := sourceRecord{Offset: pos.Offset, Line: pos.Line, Row: pos.Row, Hash: s.identity}
	if !IsParquet(s.n.t) {
		if hashErr != nil {
			return s.changed(hashErr)
		}
		if err := s.hash.extend(TablePath(s.n.t), pos.Offset); err != nil {
			return s.changed(err)
		}
		rec.CRC = s.hash.sum()
	}
	if !final && s.wm != nil {
		rec.WM = &sourceWM{Gen: s.wm.State(), Pending: s.pending, Next: s.wmNext}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.Put(exec.SourceNamespace, key, b)
}

// PrepareCheckpoint starts hashing the bytes read since the last
// checkpoint on a goroutine of its own, while the PTF calls write their
// state; Checkpoint takes the result. B with checkpoints spent a fifth of
// their time on the statement's goroutine hashing.
func (s *fileStream) PrepareCheckpoint() {
	if s.folder != nil || IsParquet(s.n.t) || s.hashing != nil {
		return
	}
	path, upTo := TablePath(s.n.t), s.r.Position().Offset
	done := make(chan error, 1)
	s.hashing = done
	go func() { done <- s.hash.extend(path, upTo) }()
}

// waitHash waits for the hashing PrepareCheckpoint started, if any, and
// returns its error.
func (s *fileStream) waitHash() error {
	if s.hashing == nil {
		return nil
	}
	err := <-s.hashing
	s.hashing = nil
	return err
}

// changed words an error of a file that changed while it was read.
func (s *fileStream) changed(err error) error {
	if errors.Is(err, errShrank) {
		return fmt.Errorf("table '%s': the file '%s' was cut shorter while it was read (row %d); run the statement again on the whole file",
			s.n.t.Name, s.n.t.Options["path"], s.r.Position().Row)
	}
	return fmt.Errorf("table '%s': %w", s.n.t.Name, err)
}

// resumePosition returns where the read'th read of a file table goes on
// (the zero position: from the start), with the hash of what it read and
// the watermark state of a statement that was running.
func resumePosition(ex *exec.Execution, t *catalog.Table, read int) (format.SourcePos, prefixHasher, *sourceWM, error) {
	rec, err := loadSourceRecord(ex, t, read)
	if err != nil {
		return format.SourcePos{}, prefixHasher{}, nil, err
	}
	if rec != nil && rec.Offset < 0 { // a folder's record, and the path is a file now
		if ex.Opts.ResetSources {
			return format.SourcePos{}, prefixHasher{}, nil, nil
		}
		return format.SourcePos{}, prefixHasher{}, nil, fmt.Errorf("table '%s': '%s' was a folder at the last checkpoint and is a file now; SET '%s' = 'reset' to read it from the start",
			t.Name, t.Options["path"], exec.SetSourcePositions)
	}
	if rec != nil && rec.Finished {
		if rec.Fingerprint == fileHead(TablePath(t)) { // not a file written anew
			noteReadAgain(ex, t, rec)
		}
		return format.SourcePos{}, prefixHasher{}, nil, nil
	}
	if rec == nil || rec.Offset == 0 {
		return format.SourcePos{}, prefixHasher{}, nil, nil
	}
	path := TablePath(t)
	var ph prefixHasher
	same := false
	if IsParquet(t) {
		return resumeParquet(ex, t, rec) // parquet.go: a row index and the footer's hash
	}
	if fi, err := os.Stat(path); err == nil && (fi.Size() >= rec.Offset || format.IsGzip(path)) {
		if rec.CRC != "" || rec.Hash != "" {
			same = ph.matches(path, rec.Offset, rec.CRC, rec.Hash)
		} else {
			fp, err := fingerprint(path, rec.Offset)
			same = err == nil && fp == rec.Fingerprint && ph.extend(path, rec.Offset) == nil
		}
	}
	if !same {
		ph.close()
		if ex.Opts.ResetSources {
			return format.SourcePos{}, prefixHasher{}, nil, nil
		}
		return format.SourcePos{}, prefixHasher{}, nil, fmt.Errorf("table '%s': the file '%s' changed since the last checkpoint (at byte %d, row %d), other than by growing; SET '%s' = 'reset' to read it again from the start",
			t.Name, t.Options["path"], rec.Offset, rec.Row, exec.SetSourcePositions)
	}
	ex.Notes = append(ex.Notes, fmt.Sprintf("note: table '%s' goes on after row %d (byte %d) of '%s', where the last run stopped", t.Name, rec.Row, rec.Offset, t.Options["path"]))
	return format.SourcePos{File: path, Offset: rec.Offset, Line: rec.Line, Row: rec.Row}, ph, rec.WM, nil
}

// noteReadAgain says that a statement reads a file table from its start
// although a run over the same state file read it to its end: a script
// run again appends what it wrote before again, unless its statements
// stop without the end of input or follow the file.
func noteReadAgain(ex *exec.Execution, t *catalog.Table, rec *sourceRecord) {
	if rec.Run == ex.Opts.RunID {
		return // an earlier statement of this run read it: nothing to say
	}
	ex.Notes = append(ex.Notes, fmt.Sprintf("note: table '%s' reads '%s' from its start again: an earlier run with this state file read it to its end (%s); to go on after what a run read, stop it with SET '%s' = 'false' or follow the file with '%s'",
		t.Name, t.Options["path"], exec.Plural(rec.Row, "row"), exec.SetEndOfInput, OptMonitorInterval))
}

// loadSourceRecord reads the checkpointed position of the read'th read of
// file table t; nil when there is none.
func loadSourceRecord(ex *exec.Execution, t *catalog.Table, read int) (*sourceRecord, error) {
	var rec *sourceRecord
	err := ex.Store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.SourceNamespace, sourceKey(t, read))
		if err != nil || b == nil {
			return err
		}
		rec = &sourceRecord{}
		return json.Unmarshal(b, rec)
	})
	if err != nil {
		return nil, fmt.Errorf("table '%s': reading its checkpointed position: %w", t.Name, err)
	}
	return rec, nil
}

// fileHead identifies a file by a hash of its first 4 KiB, so that a note
// says a file is read again only when it begins as it did; "" when it
// cannot be read.
func fileHead(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := fnv.New64a()
	if _, err := io.CopyN(h, f, 4096); err != nil && err != io.EOF {
		return ""
	}
	return fmt.Sprintf("head:%x", h.Sum64())
}
