package connector

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/internal/fault"
	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// Parquet tables: 'format' = 'parquet' (runtime/format/parquet_read.go reads
// and writes the files).
//
// A source reads the declared columns by name; its checkpointed position
// is a row index ([format.SourcePos.Offset] counts rows, not bytes), and
// since a Parquet file cannot grow, the file is the same across runs when
// its size and footer are (the footer holds the offsets, sizes, row counts
// and statistics of every column chunk): the position's hash is of those,
// not of the bytes before the position (source_position.go).
//
// A sink cannot append to a Parquet file: the footer, written last,
// describes every row group. So INSERT INTO a parquet table writes a new
// file beside the table's, '.NAME.ptfsh-tmp', copying the rows the file
// already has first (INSERT INTO adds rows, as for csv and json), then the
// query's, and replaces the table's file with it only when the statement
// has ended. Exactly-once, for a parquet sink, means: the statement is one
// transaction. It takes no checkpoint before its end (the session's
// driver asks the sink, NoCheckpoints), so a statement that fails or is
// killed leaves the table's file as it was, its PTF state and source
// positions at the last statement's end, and running it again writes
// every row once. The end is a two-phase commit: the final checkpoint
// writes the footer, syncs the new file and records in the same store
// transaction as the PTF state that it is to replace the table's file;
// once that transaction commits the file is renamed into place. A run
// killed between the two leaves the record in the state file, and the
// next run that opens the file completes the rename before any statement
// runs (FinishRenames).

// FormatParquet is the 'format' of Parquet tables.
const FormatParquet = "parquet"

// IsParquet reports whether t is a Parquet file table.
func IsParquet(t *catalog.Table) bool { return t.Options["format"] == FormatParquet }

// validateParquet checks the options and columns of a parquet table at
// CREATE TABLE: the options of the text formats and of changelogs do not
// apply, and every column must be of a type a Parquet file holds.
func validateParquet(t *catalog.Table, ct *sqlmini.CreateTable) error {
	keys := make([]string, 0, len(t.Options))
	for k := range t.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch {
		case IsChangelogOption(k) || k == "sink.supports-delete-by-key":
			return sqlmini.Errorf(optionPos(ct, k), "a parquet table holds insert-only rows: option '%s' needs 'format' = 'csv' or 'json'", k)
		case strings.HasPrefix(k, "csv.") || strings.HasPrefix(k, "json.") || k == "timestamp-format.pattern":
			return sqlmini.Errorf(optionPos(ct, k), "option '%s' does not apply to 'format' = 'parquet' (a Parquet file has typed columns)", k)
		}
	}
	for i, c := range t.Schema.Columns {
		if err := format.CheckParquetSchema(types.Schema{Columns: []types.Column{c}}); err != nil {
			return sqlmini.Errorf(columnPos(ct, i), "table '%s': %w", t.Name, err)
		}
	}
	return nil
}

// columnPos is where CREATE TABLE declares its i'th column.
func columnPos(ct *sqlmini.CreateTable, i int) sqlmini.Pos {
	for _, e := range ct.Elements {
		if e.Column != nil {
			if i == 0 {
				return e.Pos
			}
			i--
		}
	}
	return ct.Pos
}

// parquetIdentity is the hash that a checkpoint of a parquet source keeps:
// the SHA-256 of the file's size and footer.
func parquetIdentity(path string) (string, error) {
	b, err := format.ParquetFooter(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// resumeParquet returns where a parquet source goes on after the
// checkpoint rec (source_position.go's resumePosition): after its row,
// when the file's size and footer are what the checkpoint saw.
func resumeParquet(ex *exec.Execution, t *catalog.Table, rec *sourceRecord) (format.SourcePos, prefixHasher, *sourceWM, error) {
	path := TablePath(t)
	if id, err := parquetIdentity(path); err != nil || id != rec.Hash {
		if ex.Opts.ResetSources {
			return format.SourcePos{}, prefixHasher{}, nil, nil
		}
		return format.SourcePos{}, prefixHasher{}, nil, fmt.Errorf("table '%s': the file '%s' changed since the last checkpoint (after row %d); SET '%s' = 'reset' to read it again from the start",
			t.Name, t.Options["path"], rec.Offset, exec.SetSourcePositions)
	}
	ex.Notes = append(ex.Notes, fmt.Sprintf("note: table '%s' goes on after row %d of '%s', where the last run stopped", t.Name, rec.Offset, t.Options["path"]))
	return format.SourcePos{File: path, Offset: rec.Offset, Row: rec.Row}, prefixHasher{}, rec.WM, nil
}

// parquetSink is the part of a FileSink that writes the table's file
// whole, to a new file renamed over it at the end: a parquet table's, and
// a csv or json table's in INSERT OVERWRITE (text).
type parquetSink struct {
	k         *FileSink
	text      bool   // a csv or json table (INSERT OVERWRITE)
	overwrite bool   // the query's rows replace the file's
	tmp       string // the new file, renamed over the table's at the end
	f         *os.File
	bw        *bufio.Writer
	w         *format.ParquetWriter
	special   bool // the table's path is not a regular file (/dev/null): written directly
	staged    bool // the final checkpoint recorded the rename
	begun     bool // the query's rows are being written
}

// parquetRecord is what the store keeps of a parquet sink: a new file
// whose statement's final checkpoint committed, to be renamed over the
// table's file.
type parquetRecord struct {
	Rename string `json:"rename"`
}

func (p *parquetSink) key() []byte { return append(p.k.key(), renameSuffix...) }

// NoCheckpoints implements the session's question to a sink: a parquet
// sink writes its file whole at the end, so the statement takes no
// checkpoint before (see above).
func (k *FileSink) NoCheckpoints() string {
	switch {
	case k.pq != nil && k.pq.text:
		return "INSERT OVERWRITE writes its file whole at the end of the statement"
	case k.pq != nil:
		return "a parquet sink writes its file whole at the end of the statement"
	}
	return ""
}

// tmpPath is the new file written beside the table's.
func (k *FileSink) tmpPath() string {
	return filepath.Join(filepath.Dir(k.path), "."+filepath.Base(k.path)+tmpSuffix)
}

// tmpSuffix ends the name of a sink's new file.
const tmpSuffix = ".ptfsh-tmp"

func (p *parquetSink) begin() error {
	k := p.k
	if err := p.recover(); err != nil {
		return err
	}
	file := k.t.Schema
	if k.t.SourceSchema.Len() > 0 {
		file = k.t.SourceSchema
	}
	st, err := os.Stat(k.path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return k.fail(err)
	}
	p.special = exists && !st.Mode().IsRegular()
	if p.special {
		p.f, err = os.OpenFile(k.path, os.O_WRONLY, 0)
	} else {
		p.f, err = os.OpenFile(p.tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	}
	if err != nil {
		return k.fail(err)
	}
	p.bw = bufio.NewWriterSize(p.f, 256<<10)
	k.fields = make([]any, file.Len())
	if p.text {
		header, _ := BoolOption(k.t, "csv.header")
		if k.t.Options["format"] == "json" {
			k.p = format.NewJSONPrinter(p.bw, format.JSONOptions{})
		} else {
			k.p = format.NewCSVPrinter(p.bw, format.CSVOptions{OmitHeader: !header})
		}
		p.begun = true
		return k.p.Begin(file)
	}
	if p.w, err = format.NewParquetWriter(p.bw, file); err != nil {
		return fmt.Errorf("table '%s': %w", k.t.Name, err)
	}
	k.p = parquetPrinter{p.w}
	if exists && !p.special && st.Size() > 0 && !p.overwrite {
		if err := p.copyExisting(file); err != nil {
			return err
		}
	}
	p.begun = true
	return nil
}

// recover finishes the commit of a statement killed between its final
// checkpoint and the rename (FinishRenames does it when the state file is
// opened; this is for a rename that failed since), or removes the new file
// of one that did not end.
func (p *parquetSink) recover() error {
	k := p.k
	p.tmp = k.tmpPath()
	var rec *parquetRecord
	err := k.store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.SinkNamespace, p.key())
		if err != nil || b == nil {
			return err
		}
		rec = &parquetRecord{}
		return json.Unmarshal(b, rec)
	})
	if err != nil {
		return fmt.Errorf("table '%s': reading its checkpointed sink: %w", k.t.Name, err)
	}
	if rec != nil {
		if err := finishRename(k.store, p.key(), rec, k.errOut, k.t.Name, k.t.Options["path"]); err != nil {
			return fmt.Errorf("table '%s': %w", k.t.Name, err)
		}
		return nil
	}
	fault.Point(fault.SinkUnlink)
	if err := os.Remove(p.tmp); err == nil {
		fmt.Fprintf(k.errOut, "note: table '%s': removed '%s', the unfinished file of an INSERT that did not end\n", k.t.Name, filepath.Base(p.tmp))
	}
	return nil
}

// renameSuffix ends the key of a parquetRecord in the sinks' namespace:
// the key of the table's FileSink, then this.
const renameSuffix = "\x00parquet"

// FinishRenames completes the commits that a run left half done: a
// parquet sink or INSERT OVERWRITE whose final checkpoint committed (the
// statement counts as finished, and a script run again skips it) but
// whose new file was not yet renamed over the table's when the process
// died. The store records each such rename; FinishRenames makes them and
// forgets the records, with a note on notes for each. The session calls
// it when it opens a state file, before any statement reads a table, so
// that no query reads the old file and no INSERT appends to it.
func FinishRenames(st state.Store, notes io.Writer) error {
	type pending struct {
		key         []byte
		rec         parquetRecord
		table, path string
	}
	var todo []pending
	err := st.View(func(tx state.Tx) error {
		return tx.Scan(exec.SinkNamespace, nil, func(key, value []byte) error {
			if !bytes.HasSuffix(key, []byte(renameSuffix)) {
				return nil
			}
			p := pending{key: bytes.Clone(key)}
			if err := json.Unmarshal(value, &p.rec); err != nil || p.rec.Rename == "" {
				return fmt.Errorf("the record of a sink's new file is damaged: %q", value)
			}
			parts := strings.SplitN(string(key[:len(key)-len(renameSuffix)]), "\x00", 2)
			p.table, p.path = parts[0], parts[len(parts)-1]
			todo = append(todo, p)
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("reading the sinks' records: %w", err)
	}
	for _, p := range todo {
		if err := finishRename(st, p.key, &p.rec, notes, p.table, p.path); err != nil {
			return fmt.Errorf("table '%s': %w", p.table, err)
		}
	}
	return nil
}

// finishRename renames the new file rec names over the file it replaces,
// if it is still there (a run killed after the rename has no new file
// left), and forgets the record. table and shown name the table and its
// path in the note.
func finishRename(st state.Store, key []byte, rec *parquetRecord, notes io.Writer, table, shown string) error {
	if _, err := os.Lstat(rec.Rename); err == nil {
		if err := renameInto(rec.Rename, renameTarget(rec.Rename)); err != nil {
			return fmt.Errorf("cannot replace '%s' with the file its last INSERT wrote: %w", shown, RootCause(err))
		}
		fmt.Fprintf(notes, "note: table '%s': '%s' is now the file that the last INSERT wrote (it stopped after its final checkpoint, before replacing the file)\n", table, shown)
	}
	if err := st.Update(func(tx state.Tx) error { return tx.Delete(exec.SinkNamespace, key) }); err != nil {
		return err
	}
	return nil
}

// renameTarget is the file that tmp, a new file of tmpPath's naming,
// replaces: '.NAME.ptfsh-tmp' replaces 'NAME' in the same folder.
func renameTarget(tmp string) string {
	base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(tmp), "."), tmpSuffix)
	return filepath.Join(filepath.Dir(tmp), base)
}

// renameInto renames tmp over target and syncs their folder, so that the
// rename outlasts a crash of the machine too.
func renameInto(tmp, target string) error {
	fault.Point(fault.SinkRename)
	if err := os.Rename(tmp, target); err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(target)); err == nil {
		fault.Point(fault.SinkFsync)
		d.Sync()
		d.Close()
	}
	return nil
}

// copyExisting writes the rows of the table's file to the new file first:
// INSERT INTO adds rows. The file must have exactly the table's columns,
// or rewriting it would lose the others.
func (p *parquetSink) copyExisting(file types.Schema) error {
	k := p.k
	cantAppend := func(err error) error {
		return fmt.Errorf("table '%s': cannot add rows to '%s': %w", k.t.Name, k.t.Options["path"], err)
	}
	have, err := format.ParquetColumns(k.path)
	if err != nil {
		return cantAppend(fileError(k.t, err))
	}
	want := file.Names()
	if !sameNames(have, want) {
		return cantAppend(fmt.Errorf("its columns (%s) are not the table's (%s), and a Parquet file is rewritten to add rows; INSERT INTO another file",
			strings.Join(have, ", "), strings.Join(want, ", ")))
	}
	r, err := format.OpenParquet(k.path, file, format.ParquetSourceOptions{})
	if err != nil {
		return cantAppend(fileError(k.t, err))
	}
	defer r.Close()
	for {
		row, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return cantAppend(fileError(k.t, err))
		}
		if err := p.w.Write(row.Fields); err != nil {
			return k.fail(err)
		}
	}
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkpoint writes the footer (End has closed the writer) and records the
// rename in the checkpoint's transaction. There is no checkpoint before
// the end (NoCheckpoints).
func (p *parquetSink) checkpoint(tx state.Tx) error {
	k := p.k
	if !k.ended {
		return fmt.Errorf("table '%s': %s, and takes no checkpoint before", k.t.Name, k.NoCheckpoints())
	}
	if err := p.bw.Flush(); err != nil {
		return k.fail(err)
	}
	if p.special {
		return nil
	}
	fault.Point(fault.SinkFsync)
	if err := p.f.Sync(); err != nil {
		return k.fail(err)
	}
	b, err := json.Marshal(parquetRecord{Rename: p.tmp})
	if err != nil {
		return err
	}
	p.staged = true
	if p.overwrite {
		// The file is replaced: the length an unfinished INSERT INTO left
		// no longer applies.
		if err := tx.Delete(exec.SinkNamespace, k.key()); err != nil {
			return err
		}
	}
	return tx.Put(exec.SinkNamespace, p.key(), b)
}

// committed renames the new file over the table's once the final
// checkpoint has committed, then forgets the record.
func (p *parquetSink) committed() {
	k := p.k
	k.done = k.ended
	if !p.staged {
		return
	}
	p.f.Close()
	p.f = nil
	if err := renameInto(p.tmp, k.path); err != nil {
		fmt.Fprintf(k.errOut, "note: table '%s': cannot replace '%s' with the file the INSERT wrote (%v); the next run will\n", k.t.Name, k.t.Options["path"], RootCause(err))
		return
	}
	_ = k.store.Update(func(tx state.Tx) error { return tx.Delete(exec.SinkNamespace, p.key()) })
}

// close removes the new file of a statement that did not end: the table's
// file stays as it was.
func (p *parquetSink) close() {
	if p.f == nil {
		return
	}
	p.f.Close()
	p.f = nil
	// Not done: the final checkpoint's transaction, if any, did not commit,
	// so no record names the new file.
	if !p.k.done && !p.special {
		fault.Point(fault.SinkUnlink)
		if os.Remove(p.tmp) == nil && p.begun {
			why := "a parquet sink writes its file only when the statement ends"
			if p.text {
				why = "INSERT OVERWRITE writes its file only when the statement ends"
			}
			fmt.Fprintf(p.k.errOut, "note: table '%s': '%s' is unchanged: %s\n", p.k.t.Name, p.k.t.Options["path"], why)
		}
	}
}

// parquetPrinter hands a FileSink's rows to a ParquetWriter.
type parquetPrinter struct{ w *format.ParquetWriter }

func (parquetPrinter) Begin(types.Schema) error { return nil }
func (p parquetPrinter) Row(r types.Row) error  { return p.w.Write(r.Fields) }
func (p parquetPrinter) End() error             { return p.w.Close() }
