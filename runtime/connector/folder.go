package connector

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// A folder as a table: a 'path' that names a folder reads every file in
// it and in its subfolders, all in the table's format (each one gzip-
// compressed or not by its own name), as Flink's filesystem source reads
// a folder: its enumerator lists the folder recursively and its
// DefaultFileFilter leaves out "hidden files ... where the filename starts
// with '.' or with '_'" (also folders so named, and so files such as
// _SUCCESS, .part-0.inprogress or the parquet sink's .t.ptfsh-tmp). ptfsh
// reads the files one after the other in the order of their paths (byte
// order of the path relative to the folder), so a run is deterministic;
// Flink reads them in parallel splits, in no set order.
//
// Positions: a checkpoint keeps, for every file read so far, its path
// relative to the folder, the position reached in it and the hash of what
// was read of it (the check of the prefix for CSV and JSON, of the
// decompressed prefix for .gz, prefixHasher; the SHA-256 of the size and
// footer for Parquet). A
// statement run again lists the folder anew and reads its files in order,
// each after its checkpointed position: a file finished before yields
// nothing (or the lines appended to it since), the file being read goes
// on, and the files not read yet, those added after the checkpoint among
// them, are read whole. A file read before whose read part changed is an
// error, as for a single file, until SET 'state.source-positions' =
// 'reset' (which reads the whole folder again); a finished file that was
// removed is no longer read, but the file being read may not be removed.

// isFolder reports whether path is a folder (following a symbolic link).
func isFolder(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// hiddenName reports whether a file or folder is left out of a folder
// table, as Flink's DefaultFileFilter leaves it out.
func hiddenName(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// OptPathRegex is Flink's 'source.path.regex-pattern': a folder table
// reads only the files whose absolute path (with slashes) the regular
// expression matches whole, as Flink's RegexFileFilter matches
// path.getPath(); hidden files stay out, and folders are not matched
// (Flink's NonSplittingRecursiveAllDirEnumerator). The expression is Go's
// RE2, which has no backreferences or lookaround, unlike Java's.
const OptPathRegex = "source.path.regex-pattern"

// pathRegex compiles a table's 'source.path.regex-pattern', nil without
// one.
func pathRegex(t *catalog.Table) (*regexp.Regexp, error) {
	p, ok := t.Options[OptPathRegex]
	if !ok {
		return nil, nil
	}
	if _, err := regexp.Compile(p); err != nil {
		return nil, fmt.Errorf("option '%s': '%s' is not a regular expression: %v", OptPathRegex, p, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return regexp.Compile("^(?:" + p + ")$")
}

// tableFiles lists the files table t reads (folderFiles), filtered by its
// 'source.path.regex-pattern'.
func tableFiles(t *catalog.Table) ([]string, error) {
	re, err := pathRegex(t)
	if err != nil {
		return nil, err
	}
	return folderFiles(TablePath(t), re)
}

// folderFiles lists the files a table with path reads: path itself when it
// is not a folder; for a folder, its regular files and those of its
// subfolders but hidden ones (hiddenName) and, with re, those whose
// absolute path re does not match, sorted by path.
func folderFiles(path string, re *regexp.Regexp) ([]string, error) {
	if !isFolder(path) {
		return []string{path}, nil
	}
	var files []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == path {
			return nil
		}
		if hiddenName(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Stat(p) // follows a symbolic link
		if err != nil {
			return err
		}
		if fi.Mode().IsRegular() && (re == nil || re.MatchString(filepath.ToSlash(p))) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// folderMember is the name of file, in folder root, as messages show it:
// under the folder's path as the table declares it.
func folderMember(written, root, file string) string {
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return file
	}
	return filepath.ToSlash(filepath.Join(written, rel))
}

// folderFile is what a checkpoint keeps of one file of a folder.
type folderFile struct {
	Name   string `json:"name"` // relative to the folder, with slashes
	Offset int64  `json:"offset"`
	Line   int    `json:"line,omitempty"`
	Row    int64  `json:"row"`
	CRC    string `json:"crc,omitempty"` // prefixHasher.sum
	// Hash is a Parquet file's identity, or the SHA-256 of the prefix that
	// state files written before CRC keep.
	Hash string `json:"sha256,omitempty"`
}

// folderReader reads the files of a folder table one after the other. It
// is a [format.RowReader] whose Position is that of the file being read,
// with Row counting the rows of every file.
type folderReader struct {
	t      *catalog.Table // the table, for names in messages
	ft     *catalog.Table // the table with the columns its files hold
	root   string
	files  []string // full paths, sorted
	i      int      // the file being read, or the next
	cur    format.RowReader
	hash   prefixHasher // of the file being read (CSV, JSON)
	ident  string       // of the file being read (Parquet)
	resume map[string]folderFile
	done   []folderFile // the files finished, in order
	rows   int64        // rows of the files before the current one
	last   format.SourcePos
	skips  format.SkipStats
	nskip  int64
}

// openFolder opens the reader of folder table t (ft has the columns its
// files hold: a changelog source's op column among them), resuming after
// the checkpoint rec (nil: from the start).
func openFolder(ex *exec.Execution, t, ft *catalog.Table, rec *sourceRecord) (*folderReader, error) {
	root := TablePath(t)
	files, err := tableFiles(t)
	if err != nil {
		return nil, err
	}
	r := &folderReader{t: t, ft: ft, root: root, files: files, resume: map[string]folderFile{}}
	if rec == nil || len(rec.Files) == 0 {
		return r, nil
	}
	present := map[string]bool{}
	for _, f := range files {
		present[r.rel(f)] = true
	}
	var rows int64
	for k, e := range rec.Files {
		current := k == len(rec.Files)-1 && !rec.FilesDone
		if !present[e.Name] {
			if !current {
				continue // a finished file removed: nothing more to read of it
			}
			if ex.Opts.ResetSources {
				return &folderReader{t: t, ft: ft, root: root, files: files, resume: map[string]folderFile{}}, nil
			}
			return nil, fmt.Errorf("table '%s': the file '%s', which was being read at the last checkpoint (row %d), is gone; SET '%s' = 'reset' to read the folder again from the start",
				t.Name, folderMember(t.Options["path"], root, filepath.Join(root, e.Name)), e.Row, exec.SetSourcePositions)
		}
		path := filepath.Join(root, filepath.FromSlash(e.Name))
		same := false
		if IsParquet(t) {
			id, err := parquetIdentity(path)
			same = err == nil && id == e.Hash
		} else {
			var ph prefixHasher
			same = ph.matches(path, e.Offset, e.CRC, e.Hash)
			ph.close()
		}
		if !same {
			if ex.Opts.ResetSources {
				return &folderReader{t: t, ft: ft, root: root, files: files, resume: map[string]folderFile{}}, nil
			}
			return nil, fmt.Errorf("table '%s': the file '%s' changed since the last checkpoint (at %s %d, row %d), other than by growing; SET '%s' = 'reset' to read the folder again from the start",
				t.Name, folderMember(t.Options["path"], root, path), r.unit(), e.Offset, e.Row, exec.SetSourcePositions)
		}
		r.resume[e.Name] = e
		rows += e.Row
	}
	ex.Notes = append(ex.Notes, fmt.Sprintf("note: table '%s' goes on after row %d of the folder '%s' (%d files read before), where the last run stopped", t.Name, rows, t.Options["path"], len(r.resume)))
	return r, nil
}

func (r *folderReader) unit() string {
	if IsParquet(r.t) {
		return "row"
	}
	return "byte"
}

func (r *folderReader) rel(path string) string {
	rel, err := filepath.Rel(r.root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

// Next implements [format.RowReader].
func (r *folderReader) Next() (types.Row, error) {
	for {
		if r.cur == nil {
			if r.i >= len(r.files) {
				return types.Row{}, io.EOF
			}
			if err := r.open(); err != nil {
				return types.Row{}, err
			}
		}
		row, err := r.cur.Next()
		if err == io.EOF {
			if err := r.finish(); err != nil {
				return types.Row{}, err
			}
			continue
		}
		return row, err
	}
}

// open opens file r.i after its checkpointed position.
func (r *folderReader) open() error {
	path := r.files[r.i]
	var pos format.SourcePos
	if e, ok := r.resume[r.rel(path)]; ok {
		pos = format.SourcePos{File: path, Offset: e.Offset, Line: e.Line, Row: e.Row}
		if !IsParquet(r.t) {
			if err := r.hash.extend(path, e.Offset); err != nil {
				return err
			}
		}
	}
	rr, err := openTableReaderAt(r.ft, path, pos)
	if err != nil {
		r.hash.close()
		r.hash = prefixHasher{}
		return err
	}
	if IsParquet(r.t) {
		if r.ident, err = parquetIdentity(path); err != nil {
			rr.Close()
			return err
		}
	}
	r.cur = rr
	return nil
}

// finish closes the file being read at its end and records it.
func (r *folderReader) finish() error {
	pos := r.cur.Position()
	path := r.files[r.i]
	if fi, err := os.Stat(path); err == nil && !IsParquet(r.t) && !format.IsGzip(path) && fi.Size() < pos.Offset {
		return fmt.Errorf("the file '%s' was cut shorter while it was read (row %d); run the statement again on the whole file",
			folderMember(r.t.Options["path"], r.root, path), pos.Row)
	}
	e, err := r.record(pos)
	if err != nil {
		return err
	}
	if sr, ok := r.cur.(format.SkipReporter); ok {
		n, first := sr.Skipped()
		r.nskip += n
		for i := range first {
			r.skips.Add(&first[i])
		}
	}
	r.cur.Close()
	r.cur = nil
	r.hash.close()
	r.hash = prefixHasher{}
	r.done = append(r.done, e)
	r.rows += pos.Row
	r.last = pos
	r.i++
	return nil
}

// record is the checkpoint entry of the file being read, at pos.
func (r *folderReader) record(pos format.SourcePos) (folderFile, error) {
	path := r.files[r.i]
	e := folderFile{Name: r.rel(path), Offset: pos.Offset, Line: pos.Line, Row: pos.Row, Hash: r.ident}
	if !IsParquet(r.t) {
		if err := r.hash.extend(path, pos.Offset); err != nil {
			if errors.Is(err, errShrank) {
				return e, fmt.Errorf("the file '%s' was cut shorter while it was read (row %d); run the statement again on the whole file",
					folderMember(r.t.Options["path"], r.root, path), pos.Row)
			}
			return e, err
		}
		e.CRC = r.hash.sum()
	}
	return e, nil
}

// checkpoint returns the entries of the files read so far: those finished
// and the one being read. finished is false when the last entry is of a
// file being read.
func (r *folderReader) checkpoint() ([]folderFile, bool, error) {
	files := append([]folderFile(nil), r.done...)
	if r.cur == nil {
		return files, true, nil
	}
	e, err := r.record(r.cur.Position())
	if err != nil {
		return nil, false, err
	}
	return append(files, e), false, nil
}

// Position implements [format.RowReader]: the position in the file being
// read (or the last one read), with Row counting the rows of all files.
func (r *folderReader) Position() format.SourcePos {
	p := r.last
	base := r.rows - p.Row
	if r.cur != nil {
		p, base = r.cur.Position(), r.rows
	}
	p.Row += base
	return p
}

// Skipped implements [format.SkipReporter].
func (r *folderReader) Skipped() (int64, []format.ParseError) {
	n, first := r.nskip, append([]format.ParseError(nil), r.skipsFirst()...)
	if sr, ok := r.cur.(format.SkipReporter); ok && r.cur != nil {
		m, more := sr.Skipped()
		n += m
		for _, e := range more {
			if len(first) < format.MaxSkippedKept {
				first = append(first, e)
			}
		}
	}
	return n, first
}

func (r *folderReader) skipsFirst() []format.ParseError {
	_, first := r.skips.Skipped()
	return first
}

// Close implements [format.RowReader].
func (r *folderReader) Close() error {
	r.hash.close()
	if r.cur == nil {
		return nil
	}
	err := r.cur.Close()
	r.cur = nil
	return err
}

// openFolder opens the stream of a folder table for the read'th read of
// it in the statement.
func (n *fileNode) openFolder(ex *exec.Execution, read int) (exec.Stream, error) {
	rec, err := loadSourceRecord(ex, n.t, read)
	if err != nil {
		return nil, types.At(n.pos, err)
	}
	if rec != nil && rec.Finished {
		noteReadAgain(ex, n.t, rec)
		rec = nil
	}
	if rec != nil && rec.Offset > 0 { // a single file's record, and the path is a folder now
		if !ex.Opts.ResetSources {
			return nil, types.At(n.pos, fmt.Errorf("table '%s': '%s' was a file at the last checkpoint and is a folder now; SET '%s' = 'reset' to read it from the start",
				n.t.Name, n.t.Options["path"], exec.SetSourcePositions))
		}
		rec = nil
	}
	var fr *folderReader
	r, err := withChangelog(n.t, func(ft *catalog.Table) (format.RowReader, error) {
		var err error
		fr, err = openFolder(ex, n.t, ft, rec)
		return fr, err
	})
	if err != nil {
		return nil, types.At(n.pos, fileError(n.t, err))
	}
	fs := &fileStream{r: r, ex: ex, wm: exec.NewWMGen(n.t.Watermark, n.every), n: n, read: read, folder: fr}
	every, err := monitorInterval(n.t)
	if err != nil {
		r.Close()
		return nil, types.At(n.pos, err)
	}
	if every > 0 {
		ex.Live().AddSource()
		fs.follow = &following{every: every, idle: newIdleTimer(ex, n.idleTimeout), pace: wmPace{every: n.wmEvery}, listed: time.Now()}
	}
	if rec != nil && len(fr.resume) > 0 && rec.WM != nil && fs.wm != nil {
		fs.resumeWatermark(rec.WM)
	}
	ex.Sources = append(ex.Sources, fs)
	return fs, nil
}
