package connector

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// fileNode reads a file table.
type fileNode struct {
	t           *catalog.Table
	every       int64
	idleTimeout time.Duration
	wmEvery     time.Duration // 'pipeline.auto-watermark-interval', for a followed file
	pos         sqlmini.Pos   // where the query names the table
}

// NewFileNode returns the node that reads file table t, which the query
// names at pos; every is the number of rows between generated watermarks.
func NewFileNode(t *catalog.Table, every int64, pos sqlmini.Pos) exec.Node {
	return &fileNode{t: t, every: every, pos: pos}
}

func (n *fileNode) Schema() types.Schema { return n.t.Schema }
func (n *fileNode) Changelog() types.ChangelogMode {
	if n.t.Changelog.IsEmpty() {
		return types.InsertOnly
	}
	return n.t.Changelog
}

// UpsertKey is the table's primary key when it produces updates.
func (n *fileNode) UpsertKey() []int {
	if n.Changelog().IsInsertOnly() {
		return nil
	}
	return n.t.PrimaryKey
}
func (n *fileNode) Children() []exec.Node { return nil }
func (n *fileNode) Explain() string {
	return "TableSourceScan(table=[[" + n.t.Name + "]], fields=" + n.t.Schema.ColumnList() + ")"
}

// Open opens the file's read; the INSERTs of a statement set that read the
// same file, with the same options and columns, share one (exec.Scan).
func (n *fileNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if follow, err := monitorInterval(n.t); err == nil && follow == 0 && !isFolder(TablePath(n.t)) {
		return ex.Scan(n.scanKey(), n.t.Name, func() (exec.Stream, error) { return n.open(ex) })
	}
	return n.open(ex)
}

// scanKey says which reads are the same: the table, its options (a
// table hint changes them), its columns and its watermarks.
func (n *fileNode) scanKey() string {
	keys := slices.Sorted(maps.Keys(n.t.Options))
	var b strings.Builder
	b.WriteString(sourceKeyOf(n.t))
	for _, k := range keys {
		fmt.Fprintf(&b, "\x00%s=%s", k, n.t.Options[k])
	}
	fmt.Fprintf(&b, "\x00%s\x00%d", n.Explain(), n.every)
	return b.String()
}

func (n *fileNode) open(ex *exec.Execution) (exec.Stream, error) {
	if base := filepath.Base(TablePath(n.t)); n.t.FlinkReaders && hiddenName(base) {
		// Flink's enumerator tests the path itself with its
		// DefaultFileFilter (folder.go).
		return nil, types.At(n.pos, fmt.Errorf("table '%s': reading the path '%s' is a ptfsh extension: its name starts with '%c', and Flink's file enumerator leaves such files and folders out as hidden, so Flink reads nothing from it; rename it", n.t.Name, n.t.Options["path"], base[0]))
	}
	read := ex.SourceReads[sourceKeyOf(n.t)]
	ex.SourceReads[sourceKeyOf(n.t)]++
	if isFolder(TablePath(n.t)) {
		return n.openFolder(ex, read) // folder.go
	}
	resume, hash, wm, err := resumePosition(ex, n.t, read)
	if err != nil {
		return nil, types.At(n.pos, err)
	}
	follow, err := monitorInterval(n.t)
	if err != nil {
		hash.close()
		return nil, types.At(n.pos, err)
	}
	var in format.InputOptions
	var opened os.FileInfo
	if follow > 0 {
		in.Follow = true
		if opened, err = os.Stat(TablePath(n.t)); err != nil {
			hash.close()
			return nil, types.At(n.pos, fileError(n.t, err))
		}
	}
	r, err := withChangelog(n.t, func(ft *catalog.Table) (format.RowReader, error) {
		return openTableReaderIn(ft, TablePath(ft), resume, in)
	})
	if err != nil {
		hash.close()
		return nil, types.At(n.pos, fileError(n.t, err))
	}
	if follow == 0 && readAhead(n.t) {
		r = newPrefetchReader(r) // prefetch.go
	}
	fs := &fileStream{r: r, ex: ex, wm: exec.NewWMGen(n.t.Watermark, n.every), n: n, read: read, hash: hash}
	if follow > 0 {
		ex.Live().AddSource()
		fs.follow = &following{every: follow, file: opened, idle: newIdleTimer(ex, n.idleTimeout), pace: wmPace{every: n.wmEvery}}
	}
	if IsParquet(n.t) {
		// What checkpoints hash: the file as it was opened.
		if fs.identity, err = parquetIdentity(TablePath(n.t)); err != nil {
			r.Close()
			return nil, types.At(n.pos, fileError(n.t, err))
		}
	}
	if wm != nil && fs.wm != nil {
		fs.resumeWatermark(wm)
	}
	ex.Sources = append(ex.Sources, fs)
	return fs, nil
}

// readAhead reports whether a file table's rows are decoded ahead on a
// goroutine of their own (prefetch.go): a regular file of CSV, JSON or
// Parquet (whose rows own their values: nothing of a page outlives it),
// while the process may use another core. A parallel call gains from it
// too: its coordinator, which reads the inputs, hands the rows out to
// the workers and then their outputs on to the printer, is the longest
// of its goroutines; with the decoding on a goroutine of its own it
// spends half as long (B at two workers), and the workers wait less.
func readAhead(t *catalog.Table) bool {
	if goruntime.GOMAXPROCS(0) < 2 {
		return false
	}
	fi, err := os.Stat(TablePath(t))
	return err == nil && fi.Mode().IsRegular()
}

// sourceKeyOf names a file table among the reads of one statement.
func sourceKeyOf(t *catalog.Table) string { return t.Name + "\x00" + t.Options["path"] }

type fileStream struct {
	n    *fileNode
	read int          // which read of the table in the statement (sourceKey)
	hash prefixHasher // of the bytes read up to the last checkpoint
	// hashing, when not nil, is a hash.extend running on a goroutine of
	// its own (PrepareCheckpoint) while the PTF calls write their state;
	// it owns hash until its result is taken (waitHash).
	hashing chan error
	// identity is the hash of a Parquet file's footer, which its
	// checkpoints keep instead (source_position.go).
	identity string
	// folder reads a table whose path is a folder (folder.go); its
	// checkpoints keep a position per file.
	folder *folderReader
	// follow, when not nil, keeps reading what is appended to the file
	// ('source.monitor-interval'), or the files added to the folder.
	follow  *following
	r       format.RowReader
	ex      *exec.Execution
	wm      *exec.WmGen
	pending bool
	wmNext  int64
	// resumed: the pending watermark is the one the source had emitted
	// before the checkpoint it resumes from; it goes out before any row.
	resumed bool
	held    *types.Row // a row that waits for the status event before it
}

func (s *fileStream) Next() (exec.Event, error) {
	if s.held != nil {
		r := *s.held
		s.held = nil
		return exec.Event{Kind: exec.EvRow, Row: r}, nil
	}
	if s.pending && (s.resumed || s.follow == nil || s.follow.pace.due() || s.ex.Stopping()) {
		restored := s.resumed
		s.pending, s.resumed = false, false
		if s.follow != nil {
			s.follow.pace.emitted()
		}
		return exec.WatermarkEvent(s.wmNext, restored), nil
	}
	r, err := s.r.Next()
	for err == nil && r.Kind == kindWatermarkStep {
		// A watermark step written into the file (its op column says WATERMARK).
		ms, ok := s.n.t.Watermark.Time(r)
		if ok && s.wm.Explicit(ms) {
			return exec.Event{Kind: exec.EvWatermark, Wm: ms}, nil
		}
		r, err = s.r.Next() // a step without a time, or one going back
	}
	if err == io.EOF && s.follow != nil {
		return s.waitMore()
	}
	if err == nil && s.follow != nil {
		if ev, ok := s.follow.idle.active(s.ex); ok {
			held := r      // a copy, so that r itself stays off the heap
			s.held = &held // the input is active again before its row
			s.ex.RowsIn++
			if w, ok := s.wm.Observe(r); ok {
				s.pending, s.wmNext = true, w
			}
			return ev, nil
		}
	}
	if err == io.EOF {
		if fi, serr := os.Stat(TablePath(s.n.t)); serr == nil && fi.Mode().IsRegular() && fi.Size() < s.r.Position().Offset && !IsParquet(s.n.t) && !format.IsGzip(TablePath(s.n.t)) {
			return exec.Event{}, types.At(s.n.pos, s.changed(errShrank))
		}
		s.reportSkipped() // skips.go
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	if err != nil {
		return exec.Event{}, types.At(s.n.pos, fileError(s.n.t, err))
	}
	s.ex.RowsIn++
	if s.ex.RowsIn&1023 == 0 {
		if err := s.ex.CheckCancelled(); err != nil {
			return exec.Event{}, err
		}
	}
	if w, ok := s.wm.Observe(r); ok {
		s.pending, s.wmNext = true, w
	}
	return exec.Event{Kind: exec.EvRow, Row: r}, nil
}

func (s *fileStream) Close() error {
	_ = s.waitHash()
	s.hash.close()
	return s.r.Close()
}

// openTableReaderAt opens the file at path with the format and options of
// table t: t's file, or a file of its folder.
func openTableReaderAt(t *catalog.Table, path string, resume format.SourcePos) (format.RowReader, error) {
	return openTableReaderIn(t, path, resume, format.InputOptions{})
}

// openTableReaderIn is openTableReaderAt reading from in: a stream
// (standard input, whose name path is) or a followed file.
func openTableReaderIn(t *catalog.Table, path string, resume format.SourcePos, in format.InputOptions) (format.RowReader, error) {
	parse := textparse.Options{
		TimestampPattern: t.Options["timestamp-format.pattern"],
		TimestampFormat:  t.Options["json.timestamp-format.standard"],
	}
	switch t.Options["format"] {
	case "csv":
		// Flink's csv format reads TIMESTAMP as yyyy-MM-dd HH:mm:ss[.S]
		// and TIMESTAMP_LTZ as the same followed by Z, nothing else.
		parse.FlinkCSV = t.FlinkReaders
		nl, nlSet := t.Options["csv.null-literal"]
		opts := format.CSVSourceOptions{Parse: parse, NullLiteral: nl, EmptyIsNull: nlSet && nl == "", Resume: resume, Input: in}
		var err error
		if opts.Header, err = BoolOption(t, "csv.header"); err != nil {
			return nil, err
		}
		if opts.IgnoreParseErrors, err = BoolOption(t, "csv.ignore-parse-errors"); err != nil {
			return nil, err
		}
		if opts.AllowComments, err = BoolOption(t, "csv.allow-comments"); err != nil {
			return nil, err
		}
		if opts.FieldDelimiter, err = charOption(t, "csv.field-delimiter"); err != nil {
			return nil, err
		}
		if opts.QuoteCharacter, err = charOption(t, "csv.quote-character"); err != nil {
			return nil, err
		}
		return format.OpenCSV(path, t.Schema, opts)
	case "json":
		opts := format.JSONSourceOptions{Parse: parse, Resume: resume, LinesOnly: t.FlinkReaders, Input: in}
		var err error
		if opts.IgnoreParseErrors, err = BoolOption(t, "json.ignore-parse-errors"); err != nil {
			return nil, err
		}
		return format.OpenJSON(path, t.Schema, opts)
	case FormatParquet:
		if in != (format.InputOptions{}) {
			return nil, fmt.Errorf("table %s: a Parquet file is read whole: it cannot be followed or read from a stream", t.Name)
		}
		return format.OpenParquet(path, t.Schema, format.ParquetSourceOptions{Resume: resume})
	}
	return nil, fmt.Errorf("table %s: unsupported format %q", t.Name, t.Options["format"])
}

// TablePath is a file table's path, resolved against its script's folder.
func TablePath(t *catalog.Table) string {
	path := t.Options["path"]
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.BaseDir, path)
	}
	return path
}

// charOption reads a one-character option; '\t' is accepted for a tab.
func charOption(t *catalog.Table, key string) (byte, error) {
	v, ok := t.Options[key]
	if !ok {
		return 0, nil
	}
	if v == `\t` {
		return '\t', nil
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("option '%s' must be one character, not '%s'", key, v)
	}
	return v[0], nil
}

// fileError words a source error with the path as the table declares it,
// not the resolved one, so messages read the same on every machine.
func fileError(t *catalog.Table, err error) error {
	written := t.Options["path"]
	root := TablePath(t)
	// shown is a file's name as messages show it: the table's path as
	// written, or a file of its folder under it.
	shown := func(file string) string {
		if file != root && strings.HasPrefix(file, root+string(filepath.Separator)) {
			return folderMember(written, root, file)
		}
		return written
	}
	var pe *format.ParseError
	if errors.As(err, &pe) {
		c := *pe
		c.File = shown(pe.File)
		return &c
	}
	var ge *format.GzipError
	if errors.As(err, &ge) {
		return fmt.Errorf("table '%s': cannot read '%s': %s", t.Name, shown(ge.Path), ge.Detail())
	}
	var lt *format.LineTooLongError
	if errors.As(err, &lt) {
		c := *lt
		c.File = shown(lt.File)
		return fmt.Errorf("table '%s': %w", t.Name, &c)
	}
	var oe *os.PathError
	if errors.As(err, &oe) {
		if errors.Is(oe.Err, fs.ErrNotExist) && !filepath.IsAbs(written) {
			// Where a relative path led: it starts at the script's folder
			// (the current one at the prompt and for -e).
			looked := oe.Path
			if abs, err := filepath.Abs(looked); err == nil {
				looked = abs
			}
			return fmt.Errorf("table '%s': cannot read '%s': %w (looked for %s)", t.Name, shown(oe.Path), oe.Err, looked)
		}
		return fmt.Errorf("table '%s': cannot read '%s': %w", t.Name, shown(oe.Path), oe.Err)
	}
	return fmt.Errorf("table '%s': %w", t.Name, err)
}

func BoolOption(t *catalog.Table, key string) (bool, error) {
	switch strings.ToLower(t.Options[key]) {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, fmt.Errorf("option '%s' must be 'true' or 'false', not '%s'", key, t.Options[key])
}

// resumeWatermark takes the watermark generator back to a checkpoint's.
// The watermark the source had emitted then goes out again before the
// first row read after it: the operators that keep no watermark in their
// state then see the rows read again as late, or not, as the run before
// the restart saw them, and a restarted run gives what one without a
// restart gives.
func (s *fileStream) resumeWatermark(wm *sourceWM) {
	s.wm.Restore(wm.Gen)
	s.pending, s.wmNext = wm.Pending, wm.Next
	if !s.pending && wm.Gen.Has {
		s.pending, s.wmNext, s.resumed = true, wm.Gen.Emitted, true
	}
}
