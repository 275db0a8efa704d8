package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// RowReader reads the rows of a table source, one at a time. A RowReader
// is not safe for concurrent use.
type RowReader interface {
	// Next returns the next row, or io.EOF after the last one. A
	// *ParseError reports a bad row that has been consumed: Next may be
	// called again to read the rows after it. Other errors (reading the
	// file) are final. After io.EOF, Next returns rows appended to the file
	// since, if any, so a file that grows can be followed (CSV and JSON; a
	// Parquet file cannot grow).
	Next() (types.Row, error)
	// Position returns where the reader stands: just after the last row
	// returned, skipped or reported bad.
	Position() SourcePos
	// Close releases the file. It is safe to call more than once.
	Close() error
}

// RowBatchReader is a RowReader that can also read its rows a batch at a
// time (Parquet's): a read-ahead that decodes on a goroutine of its own
// hands them over without a call and a position per row.
type RowBatchReader interface {
	RowReader
	// NextRows reads up to len(rows) good rows into rows and returns how
	// many, at least one with a nil error; or 0 and what Next would have
	// returned for the next row, an error: io.EOF, a bad row's
	// *ParseError (consumed, as Next consumes it) or a final error. Each
	// row read moves Position on by one in both its Offset and its Row.
	NextRows(rows []types.Row) (int, error)
}

// SourcePos is a position in a file source, as checkpoints record it.
type SourcePos struct {
	// File is the path the source was opened with.
	File string
	// Line is the 1-based number of the line that holds byte Offset: the
	// line where reading resumes.
	Line int
	// Offset is the byte offset just after the last row consumed: after its
	// line end for CSV and JSON lines, after its closing brace inside a JSON
	// array. For Parquet it is a row index, not a byte offset: the number
	// of rows consumed from the start of the file (Line is then 0).
	Offset int64
	// Row is the number of rows returned so far (bad rows not counted).
	Row int64
}

// String renders the position as file:line (offset N, row N).
func (p SourcePos) String() string {
	return p.File + ":" + strconv.Itoa(p.Line) + " (offset " + strconv.FormatInt(p.Offset, 10) + ", row " + strconv.FormatInt(p.Row, 10) + ")"
}

// ParseError is a row of a file that cannot be read: bad syntax, a wrong
// number of fields, or a value that does not parse as its column's type.
// Its Error() is one line: file:line:col: column "score": cannot parse
// "abc" as INT (file: row N: ... for a Parquet file).
type ParseError struct {
	File string
	// Line and Col are 1-based; Col counts bytes from the start of the line
	// to the start of the offending field or value.
	Line, Col int
	// Row is the 1-based row of a file that has no lines (Parquet), when
	// Line is 0. Both 0: an error of the whole file (its schema).
	Row int64
	// Column is the name of the column concerned, empty for an error of the
	// whole row.
	Column string
	// Value is the offending text, when there is one.
	Value string
	// Msg says what is wrong, without the position or the column.
	Msg string
}

func (e *ParseError) Error() string {
	s := e.File + ": "
	switch {
	case e.Line > 0:
		s = e.File + ":" + strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col) + ": "
	case e.Row > 0:
		s = e.File + ": row " + strconv.FormatInt(e.Row, 10) + ": "
	}
	if e.Column != "" {
		s += "column " + strconv.Quote(e.Column) + ": "
	}
	return s + e.Msg
}

// SkipReporter is implemented by readers that can skip bad rows (the
// readers of OpenCSV and OpenJSON, when told to ignore parse errors).
type SkipReporter interface {
	// Skipped returns how many rows were skipped so far and the errors of
	// the first MaxSkippedKept of them, in file order.
	Skipped() (n int64, first []ParseError)
}

// MaxSkippedKept is how many skipped rows a SkipReporter describes.
const MaxSkippedKept = 5

// SkipStats counts skipped rows for SkipReporter.
type SkipStats struct {
	n     int64
	first []ParseError
}

func (s *SkipStats) Add(e *ParseError) {
	s.n++
	if len(s.first) < MaxSkippedKept {
		s.first = append(s.first, *e)
	}
}

// Skipped implements SkipReporter.
func (s *SkipStats) Skipped() (int64, []ParseError) {
	return s.n, append([]ParseError(nil), s.first...)
}

var errIsDir = errors.New("is a directory, not a file")

// notRegularFile is the error of a table file that is a named pipe, a
// device or another special file: reading a named pipe blocks until
// something writes to it, and /dev/zero never ends, so a file table reads
// only regular files (a symbolic link to one is followed).
func notRegularFile(m fs.FileMode) error {
	what := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return errors.New("is " + what + ", not a regular file")
}

// MaxLineBytes is the longest line (a CSV record, a JSON line, a JSON
// array element) a file table should read: the readers are to stop at a
// longer one with LineTooLong, so that a file without line ends cannot
// grow their buffers without bound.
const MaxLineBytes = 64 << 20

// LineTooLongError is the error of a line longer than MaxLineBytes, line
// Line of File: "line 3 of big.csv is longer than 64 MiB, the longest
// line a file table reads". It is final: the rest of the line is not
// read, and a reader returns it as it is (it names the file).
type LineTooLongError struct {
	File string
	Line int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d of %s is longer than %d MiB, the longest line a file table reads", e.Line, e.File, MaxLineBytes>>20)
}

// LineTooLong returns a *LineTooLongError.
func LineTooLong(file string, line int) error { return &LineTooLongError{File: file, Line: line} }

// openSourceFile opens path for reading and moves to resume.Offset. The
// errors name the path: open x.csv: no such file or directory. path must
// be a regular file, or a symbolic link to one.
func openSourceFile(path string, resume SourcePos) (*os.File, error) {
	// Stat before opening: opening a named pipe blocks until a writer
	// comes.
	if st, err := os.Stat(path); err == nil && !st.IsDir() && !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: notRegularFile(st.Mode())}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errIsDir}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: notRegularFile(st.Mode())}
	}
	if resume.Offset < 0 || resume.Line < 0 || resume.Row < 0 {
		f.Close()
		return nil, fmt.Errorf("open %s: invalid resume position %s", path, resume)
	}
	if resume.Offset > 0 {
		if st.Mode().IsRegular() && resume.Offset > st.Size() {
			f.Close()
			return nil, fmt.Errorf("open %s: cannot resume at offset %d: the file has only %d bytes (truncated or replaced?)", path, resume.Offset, st.Size())
		}
		if _, err := f.Seek(resume.Offset, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// LineStartBefore returns the offset of the start of the line that holds
// byte off, reading backwards from it. Resuming readers use it to number
// columns on their first line.
func LineStartBefore(f *os.File, off int64) (int64, error) {
	var buf [4096]byte
	for end := off; end > 0; {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				return end - n + i + 1, nil
			}
		}
		end -= n
	}
	return 0, nil
}

// Utf8BOM starts some files written on Windows; readers skip it.
const Utf8BOM = "\xef\xbb\xbf"

// interner shares the strings of a column whose values repeat (country
// codes, airport names), saving the allocations of a value: its bytes and
// the interface that holds it in a row (get returns the string boxed
// once). It gives up on a column whose values rarely repeat.
//
// In front of its map sits a small direct-mapped cache, indexed by a
// cheap hash of the bytes: a column of a few hundred values (airports,
// countries) is mostly found there, with one comparison and no map
// lookup.
type interner struct {
	m      map[string]any
	misses int
	off    bool
	cache  *[internCacheSize]any // nil or a string
}

const (
	internMaxLen     = 32   // longer strings are not shared
	internMaxEntries = 4096 // distinct values kept per column
	internCacheBits  = 10
	internCacheSize  = 1 << internCacheBits
)

// internSlot hashes b (at most internMaxLen bytes) to a slot of the cache:
// its first and last eight bytes and its length, multiplied.
func internSlot(b []byte) int {
	var lo, hi uint64
	n := len(b)
	if n >= 8 {
		lo = binary.LittleEndian.Uint64(b)
		hi = binary.LittleEndian.Uint64(b[n-8:])
	} else {
		for i := n - 1; i >= 0; i-- {
			lo = lo<<8 | uint64(b[i])
		}
	}
	h := (lo ^ hi*0xff51afd7ed558ccd ^ uint64(n)) * 0x9e3779b97f4a7c15
	return int(h >> (64 - internCacheBits))
}

// get returns string(b), as an interface value.
func (in *interner) get(b []byte) any {
	if in.off || len(b) > internMaxLen {
		return string(b)
	}
	if in.cache == nil {
		in.cache = new([internCacheSize]any)
	}
	slot := &in.cache[internSlot(b)]
	if s, ok := (*slot).(string); ok && s == string(b) {
		return *slot
	}
	if v, ok := in.m[string(b)]; ok {
		*slot = v
		return v
	}
	var v any = string(b)
	if in.m == nil {
		in.m = make(map[string]any)
	}
	if len(in.m) < internMaxEntries {
		in.m[v.(string)] = v
		*slot = v
		return v
	}
	if in.misses++; in.misses > internMaxEntries {
		in.off, in.m, in.cache = true, nil, nil // mostly distinct values: stop looking
	}
	return v
}

// smallInts holds the integers smallIntMin to smallIntMax-1 as interface
// values, made once: counts, delays, distances and scores in that range
// then cost a row no allocation (Go itself boxes only 0 to 255 for free).
var smallInts = sync.OnceValue(func() *[smallIntMax - smallIntMin]any {
	var t [smallIntMax - smallIntMin]any
	for i := range t {
		t[i] = int64(i + smallIntMin)
	}
	return &t
})

const smallIntMin, smallIntMax = -1024, 4096

// boxInt returns n as an interface value, shared for small integers.
func boxInt(n int64) any {
	if n >= smallIntMin && n < smallIntMax {
		return smallInts()[n-smallIntMin]
	}
	return n
}

// srcColumn is what a reader knows of one column of its schema.
type srcColumn struct {
	name   string
	typ    types.Type
	intern *interner // string columns only
	// key is the name as a JSON key is written, quotes included (nil
	// when it needs escapes); integer: TINYINT to BIGINT.
	key     []byte
	integer bool
}

func srcColumns(schema types.Schema) []srcColumn {
	cols := make([]srcColumn, len(schema.Columns))
	for i, c := range schema.Columns {
		cols[i] = srcColumn{name: c.Name, typ: c.Type, key: textparse.QuoteKey(c.Name)}
		switch c.Type.Kind {
		case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
			cols[i].integer = true
		}
		if c.Type.IsString() {
			cols[i].intern = &interner{}
		}
	}
	return cols
}
