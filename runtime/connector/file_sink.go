package connector

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ptfsh/ptfsh/internal/fault"
	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// FileSink writes the rows of an INSERT INTO to its table's file. It is a
// CheckpointSink.
type FileSink struct {
	t         *catalog.Table
	path      string
	pos       sqlmini.Pos  // the table's name in the INSERT, where errors point
	query     types.Schema // the query's columns
	op        int          // the op column's place in the file's rows, or -1
	store     state.Store
	errOut    io.Writer
	dropNulls bool

	f         *os.File
	w         *bufio.Writer
	gz        *gzipMembers // between w and f for a .gz file, else nil
	p         format.Printer
	committed int64 // the file's length at the last checkpoint
	pending   int64 // the length a checkpoint under way records (Committed makes it committed)
	ended     bool  // End was called
	done      bool  // and the final checkpoint made the rows durable
	special   bool  // not a regular file (/dev/null, a pipe): no sync, nothing to cut back
	fields    []any
	pq        *parquetSink // the part that rewrites the file: parquet, or INSERT OVERWRITE (parquet.go)
	rows      int64        // rows written
}

// SetOverwrite makes the sink replace the table's rows (INSERT OVERWRITE)
// instead of adding to them. The new file is written beside the table's
// and renamed over it when the statement's final checkpoint has
// committed, as a parquet table's is: a statement that fails or is killed
// leaves the file as it was, and running it again writes the same file.
// Call it before Begin.
func (k *FileSink) SetOverwrite() {
	if k.pq == nil {
		k.pq = &parquetSink{k: k, text: true}
	}
	k.pq.overwrite = true
}

// Rows is the number of rows the sink has written (a changelog's rows
// each count, -U and -D included; a row dropped for a NULL does not).
func (k *FileSink) Rows() int64 { return k.rows }

// Overwrite reports whether the sink replaces the table's rows.
func (k *FileSink) Overwrite() bool { return k.pq != nil && k.pq.overwrite }

// NewFileSink returns the sink of INSERT INTO file table t, named at pos
// in the statement, for a query with the given columns. Its checkpointed
// length lives in store; notes (a file cut back) go to notes; dropNulls is
// 'table.exec.sink.not-null-enforcer' = 'DROP'.
func NewFileSink(t *catalog.Table, pos sqlmini.Pos, query types.Schema, store state.Store, notes io.Writer, dropNulls bool) *FileSink {
	path := TablePath(t)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() {
			// A link to a file: the file is written (and replaced, by
			// INSERT OVERWRITE or a parquet sink), the link stays.
			path = real
		}
	}
	k := &FileSink{t: t, path: path, pos: pos, query: query, store: store, errOut: notes, dropNulls: dropNulls, op: -1}
	if opName, ok := t.Options[OptOpColumn]; ok {
		k.op = t.SourceSchema.Index(opName)
	}
	if IsParquet(t) {
		k.pq = &parquetSink{k: k}
	}
	return k
}

// Table is the table the sink writes.
func (k *FileSink) Table() *catalog.Table { return k.t }

// Path is the file the sink writes, resolved (a symbolic link to a
// regular file is followed).
func (k *FileSink) Path() string { return k.path }

// sinkRecord is a file sink's checkpointed length.
type sinkRecord struct {
	Offset int64 `json:"offset"`
}

func (k *FileSink) key() []byte { return []byte(k.t.Name + "\x00" + k.t.Options["path"]) }

// Begin opens the file for appending, first cutting it back to the last
// checkpoint of a statement that did not end, and records its length: a
// statement killed before its first checkpoint is cut back to it too.
func (k *FileSink) Begin(types.Schema) error {
	if k.pq != nil {
		return k.pq.begin()
	}
	// An INSERT OVERWRITE killed between its final checkpoint and its
	// rename is completed first: its rows are the table's.
	if err := (&parquetSink{k: k}).recover(); err != nil {
		return err
	}
	var rec *sinkRecord
	err := k.store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.SinkNamespace, k.key())
		if err != nil || b == nil {
			return err
		}
		rec = &sinkRecord{}
		return json.Unmarshal(b, rec)
	})
	if err != nil {
		return fmt.Errorf("table '%s': reading its checkpointed length: %w", k.t.Name, err)
	}
	if k.f, err = os.OpenFile(k.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return k.fail(err)
	}
	st, err := k.f.Stat()
	if err != nil {
		return k.fail(err)
	}
	k.special = !st.Mode().IsRegular()
	size := st.Size()
	if rec != nil && size > rec.Offset && !k.special {
		fault.Point(fault.SinkFtruncate)
		if err := k.f.Truncate(rec.Offset); err != nil {
			return k.fail(err)
		}
		fmt.Fprintf(k.errOut, "note: table '%s': '%s' cut back to byte %d, where the last checkpoint of an unfinished INSERT left it\n", k.t.Name, k.t.Options["path"], rec.Offset)
		size = rec.Offset
	}
	k.committed = size
	if err := k.store.Update(func(tx state.Tx) error { return k.record(tx) }); err != nil {
		return fmt.Errorf("table '%s': recording its length: %w", k.t.Name, err)
	}
	header, _ := BoolOption(k.t, "csv.header")
	file := k.t.Schema
	if k.t.SourceSchema.Len() > 0 {
		file = k.t.SourceSchema
	}
	k.w = bufio.NewWriterSize(k.f, 64<<10)
	if format.IsGzip(k.path) {
		k.gz = &gzipMembers{f: k.f}
		k.w = bufio.NewWriterSize(k.gz, 64<<10)
	}
	if k.t.Options["format"] == "json" {
		k.p = format.NewJSONPrinter(k.w, format.JSONOptions{})
	} else {
		k.p = format.NewCSVPrinter(k.w, format.CSVOptions{OmitHeader: !header || size > 0})
	}
	k.fields = make([]any, file.Len())
	return k.p.Begin(file)
}

func (k *FileSink) fail(err error) error {
	return fmt.Errorf("table '%s': cannot write '%s': %w", k.t.Name, k.t.Options["path"], RootCause(err))
}

// Row writes one row: cast to the table's columns, with its kind in the
// op column.
func (k *FileSink) Row(r types.Row) error { return types.At(k.pos, k.row(r)) }

func (k *FileSink) row(r types.Row) error {
	f := k.fields[:0]
	for i, c := range k.t.Schema.Columns {
		if len(f) == k.op {
			f = append(f, r.Kind.ShortString())
		}
		v, err := expr.CastValue(r.Fields[i], c.Type.Nullable())
		if err != nil {
			return fmt.Errorf("table '%s', column '%s': %w", k.t.Name, c.Name, err)
		}
		if v == nil && c.Type.NotNull && !(r.Kind == types.Delete && k.t.Changelog.KeyOnlyDeletes) {
			if k.dropNulls {
				return nil
			}
			return fmt.Errorf("Column '%s' is NOT NULL, however, a null value is being written into it. You can set job configuration '%s'='DROP' to suppress this exception and drop such records silently.", c.Name, SetNotNullEnforcer)
		}
		f = append(f, v)
	}
	if len(f) == k.op {
		f = append(f, r.Kind.ShortString())
	}
	if err := k.p.Row(types.Row{Kind: types.Insert, Fields: f}); err != nil {
		return k.fail(err)
	}
	k.rows++
	return nil
}

// End finishes the file's rows; the final checkpoint makes them durable.
func (k *FileSink) End() error {
	k.ended = true
	if err := k.p.End(); err != nil {
		return k.fail(err)
	}
	return nil
}

// Checkpoint implements CheckpointSink: the rows written so far go to the
// disk and the file's length to the store. After End the record goes: the
// statement ended, and a later INSERT appends to what is there. The length
// counts as committed only once the store's transaction commits
// (Committed): a checkpoint that fails leaves the last one in force, and
// the rows after it are cut out when the statement fails.
func (k *FileSink) Checkpoint(tx state.Tx) error {
	if k.pq != nil {
		return k.pq.checkpoint(tx)
	}
	if err := k.w.Flush(); err != nil {
		return k.fail(err)
	}
	if err := k.gz.closeMember(); err != nil {
		return k.fail(err)
	}
	if k.special {
		return nil
	}
	fault.Point(fault.SinkFsync)
	if err := k.f.Sync(); err != nil {
		return k.fail(err)
	}
	st, err := k.f.Stat()
	if err != nil {
		return k.fail(err)
	}
	k.pending = st.Size()
	if k.ended {
		return tx.Delete(exec.SinkNamespace, k.key())
	}
	b, err := json.Marshal(sinkRecord{Offset: k.pending})
	if err != nil {
		return err
	}
	return tx.Put(exec.SinkNamespace, k.key(), b)
}

// Committed is called when the transaction of the last Checkpoint has
// committed.
func (k *FileSink) Committed() {
	if k.pq != nil {
		k.pq.committed()
		return
	}
	k.committed = k.pending
	k.done = k.ended
}

func (k *FileSink) record(tx state.Tx) error {
	b, err := json.Marshal(sinkRecord{Offset: k.committed})
	if err != nil {
		return err
	}
	return tx.Put(exec.SinkNamespace, k.key(), b)
}

// Close closes the file. A statement that failed has its rows since the
// last checkpoint taken back out, as its state goes back to that
// checkpoint: running it again writes them once.
func (k *FileSink) Close() {
	if k.pq != nil {
		k.pq.close()
		return
	}
	if k.f == nil {
		return
	}
	if !k.done && !k.special {
		if st, err := k.f.Stat(); err == nil && st.Size() > k.committed && truncate(k.f, k.committed) == nil {
			fmt.Fprintf(k.errOut, "note: table '%s': the rows written to '%s' since the last checkpoint were taken out again\n", k.t.Name, k.t.Options["path"])
		}
	}
	k.f.Close()
	k.f = nil
}

// truncate cuts f back to size.
func truncate(f *os.File, size int64) error {
	fault.Point(fault.SinkFtruncate)
	return f.Truncate(size)
}

// SetNotNullEnforcer is Flink's option for NULLs in NOT NULL sink columns:
// ERROR (the default) or DROP.
const SetNotNullEnforcer = "table.exec.sink.not-null-enforcer"

// RootCause drops the path from an *os.PathError (the caller names the
// file as the user wrote it): "no such file or directory".
func RootCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// CheckWritable refuses INSERT INTO a table the sink cannot write: a
// folder of files, or a gzip Parquet file.
func CheckWritable(t *catalog.Table) error {
	path := TablePath(t)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("table '%s' cannot be written: its path '%s' is a folder, which ptfsh reads but does not write; INSERT INTO a table whose path is a file", t.Name, t.Options["path"])
	}
	if format.IsGzip(path) && IsParquet(t) {
		return fmt.Errorf("table '%s' cannot be written: a Parquet file compresses its own pages, and '%s' names a gzip file; drop the .gz", t.Name, t.Options["path"])
	}
	return nil
}

// gzipMembers compresses what a sink writes to a .gz file as a series of
// gzip members, one per checkpoint: a checkpoint ends the member, so the
// committed length the store records is always at a member's end, and a
// file cut back to it (a restart after a kill, a failed statement) is a
// whole gzip file, to which the next rows add members. gzip readers
// (ptfsh's, gzip -d, Flink's) read the members as one stream.
type gzipMembers struct {
	f  io.Writer
	gz *gzip.Writer
	on bool // a member is open
}

func (m *gzipMembers) Write(p []byte) (int, error) {
	if !m.on {
		if m.gz == nil {
			m.gz = gzip.NewWriter(m.f)
		} else {
			m.gz.Reset(m.f)
		}
		m.on = true
	}
	return m.gz.Write(p)
}

// closeMember ends the open member, if any (nil m: nothing to do).
func (m *gzipMembers) closeMember() error {
	if m == nil || !m.on {
		return nil
	}
	m.on = false
	return m.gz.Close()
}
