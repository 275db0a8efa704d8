package format

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// CSVSourceOptions configures OpenCSV. The zero value reads Flink's
// default CSV: fields separated by commas, quoted with '"', no header.
type CSVSourceOptions struct {
	// FieldDelimiter separates fields ('csv.field-delimiter'); 0 means ','.
	FieldDelimiter byte
	// QuoteCharacter encloses fields ('csv.quote-character'); 0 means '"'.
	QuoteCharacter byte
	// DisableQuoteCharacter reads quotes as ordinary characters
	// ('csv.disable-quote-character').
	DisableQuoteCharacter bool
	// EscapeCharacter, when not 0, makes the character after it literal,
	// inside or outside quotes ('csv.escape-character').
	EscapeCharacter byte
	// AllowComments skips lines that start with '#' ('csv.allow-comments').
	AllowComments bool
	// NullLiteral, when not empty, is an unquoted field text that reads as
	// NULL ('csv.null-literal').
	NullLiteral string
	// EmptyIsNull makes an empty unquoted field of a string column NULL
	// ('csv.null-literal' = ''). Without it, such a field is the empty
	// string, as Flink's csv format reads it. An empty unquoted field of
	// any other type is NULL either way (Flink fails to read the row).
	EmptyIsNull bool
	// Header skips the first line and checks that it names the schema's
	// columns, in order ('csv.header', a ptfsh option).
	Header bool
	// IgnoreParseErrors skips bad rows instead of failing; the reader's
	// Skipped method counts them ('csv.ignore-parse-errors').
	IgnoreParseErrors bool
	// Parse says how values are read, timestamps in particular.
	Parse textparse.Options
	// Resume, when its Offset is not 0, starts reading at a position that
	// Position returned earlier (a checkpoint), without the header check.
	Resume SourcePos
	// Input says where the bytes come from when not from the file at the
	// path read to its end: a stream (standard input), or a followed file.
	Input InputOptions
}

// csvReader reads CSV with a hand-written splitter over a bufio.Reader: a
// line without quotes is split in place with bytes.IndexByte, and only
// lines with quotes are copied while unquoting. It is about twice as fast
// as encoding/csv and keeps exact line and column numbers.
type csvReader struct {
	path  string
	f     *sourceInput
	br    *bufio.Reader
	cols  []srcColumn
	vp    *textparse.Parser
	delim byte
	quote byte // 0 when quoting is disabled
	esc   byte // 0 without an escape character
	opts  CSVSourceOptions

	line    int   // lines read so far
	midLine bool  // the last line read had no line end
	offset  int64 // bytes read so far
	rows    int64
	SkipStats
	slab types.RowSlab
	err  error // a final error

	long   []byte // a line longer than the bufio buffer
	rec    []byte // unquoted field contents of a line with quotes
	fields []csvField
}

// csvField locates a field of the current record: its bytes, and where it
// starts and ends in the file.
type csvField struct {
	start, end    int // in the record's data
	line, col     int
	endLine, end1 int // the line and column just after the field
	quoted        bool
}

// OpenCSV opens a CSV file whose fields are the columns of schema, in
// order. Values are read as [textparse.Value] reads text; an empty field
// of a string column is the empty string, as in Flink (NULL with
// EmptyIsNull), an empty unquoted field of another type is NULL. Quoting follows RFC 4180 (quoted
// fields may hold delimiters, line breaks and doubled quotes); lines may end
// in LF or CRLF; a UTF-8 byte order mark at the start is skipped; blank
// lines are skipped, but in a table of one column, where an empty line is
// how a row of NULL is written, it is that row; the last line needs no
// line end. A bad row is a
// *ParseError such as x.csv:3:7: column "score": cannot parse "abc" as
// INT, whose column is the byte column where the field starts. The caller
// closes the reader.
func OpenCSV(path string, schema types.Schema, opts CSVSourceOptions) (RowReader, error) {
	vp, err := textparse.Compile(opts.Parse)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r := &csvReader{path: path, cols: srcColumns(schema), vp: vp, opts: opts,
		delim: opts.FieldDelimiter, quote: opts.QuoteCharacter, esc: opts.EscapeCharacter}
	if r.delim == 0 {
		r.delim = ','
	}
	if r.quote == 0 {
		r.quote = '"'
	}
	if opts.DisableQuoteCharacter {
		r.quote = 0
	}
	if err := r.checkOptions(); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if r.f, err = openSourceInput(path, opts.Resume, opts.Input); err != nil {
		return nil, err
	}
	r.br = bufio.NewReaderSize(r.f, 64<<10)
	if opts.Resume.Offset > 0 {
		r.offset, r.rows = opts.Resume.Offset, opts.Resume.Row
		r.line = max(opts.Resume.Line-1, 0)
		return r, nil
	}
	if b, _ := r.br.Peek(len(Utf8BOM)); string(b) == Utf8BOM {
		r.br.Discard(len(Utf8BOM))
		r.offset = int64(len(Utf8BOM))
	}
	if opts.Header {
		if err := r.checkHeader(schema); err != nil {
			r.f.Close()
			return nil, err
		}
	}
	return r, nil
}

func (r *csvReader) checkOptions() error {
	bad := func(name string, c byte) error {
		if c == '\n' || c == '\r' || c >= utf8.RuneSelf {
			return fmt.Errorf("%s %q must be an ASCII character other than a line break", name, rune(c))
		}
		return nil
	}
	if err := bad("field delimiter", r.delim); err != nil {
		return err
	}
	if r.quote != 0 {
		if err := bad("quote character", r.quote); err != nil {
			return err
		}
		if r.quote == r.delim {
			return fmt.Errorf("quote character and field delimiter are both %q", rune(r.quote))
		}
	}
	if r.esc != 0 {
		if err := bad("escape character", r.esc); err != nil {
			return err
		}
		if r.esc == r.delim || r.esc == r.quote {
			return fmt.Errorf("escape character %q is also the delimiter or the quote", rune(r.esc))
		}
	}
	return nil
}

// checkHeader reads the first line and compares it with the column names.
func (r *csvReader) checkHeader(schema types.Schema) error {
	var line []byte
	for {
		var err error
		if line, err = r.readLine(); err != nil {
			return r.ioError(err)
		}
		if len(line) == 0 {
			return nil // an empty file has no header and no rows
		}
		if content, _ := cutEOL(line); len(content) > 0 {
			break // blank lines before the header are skipped, as blank lines are
		}
	}
	data, err := r.split(line)
	if err != nil {
		return err
	}
	got := make([]string, len(r.fields))
	for i, f := range r.fields {
		got[i] = string(data[f.start:f.end])
		if !f.quoted {
			got[i] = strings.TrimSpace(got[i])
		}
	}
	want := schema.Names()
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		return &ParseError{File: r.path, Line: r.line, Col: 1,
			Msg: fmt.Sprintf("header (%s) does not match the declared columns (%s)", strings.Join(got, ", "), strings.Join(want, ", "))}
	}
	return nil
}

// Next implements RowReader.
func (r *csvReader) Next() (types.Row, error) {
	if r.err != nil {
		return types.Row{}, r.err
	}
	for {
		row, err := r.next()
		if err == nil {
			r.rows++
			return row, nil
		}
		if pe, ok := err.(*ParseError); ok && r.opts.IgnoreParseErrors {
			r.SkipStats.Add(pe)
			continue
		}
		return types.Row{}, err
	}
}

// Position implements RowReader.
func (r *csvReader) Position() SourcePos {
	line := r.line + 1
	if r.midLine {
		line = r.line
	}
	return SourcePos{File: r.path, Line: line, Offset: r.offset, Row: r.rows}
}

// Close implements RowReader.
func (r *csvReader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	r.err = fmt.Errorf("read %s: reader closed", r.path)
	return err
}

func (r *csvReader) ioError(err error) error {
	if _, ok := err.(*gzipErr); ok {
		r.err = err // it names the file
		return r.err
	}
	if _, ok := err.(*LineTooLongError); ok {
		r.err = err // it names the file
		return r.err
	}
	r.err = fmt.Errorf("read %s: %w", r.path, err)
	return r.err
}

// readLine returns the next line with its line end; an empty line and no
// error at the end of the file. The line is valid until the next call.
func (r *csvReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.long = append(r.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.br.ReadSlice('\n')
			r.long = append(r.long, line...)
			if len(r.long) > MaxLineBytes {
				return nil, LineTooLong(r.path, r.line+1)
			}
		}
		line = r.long
	}
	if err == io.EOF {
		err = nil // the end, or a last line without a line end
	}
	if err != nil || len(line) == 0 {
		return nil, err
	}
	r.line++
	r.offset += int64(len(line))
	r.midLine = line[len(line)-1] != '\n'
	return line, nil
}

// cutEOL splits a line into its content and its line end: LF, CRLF, or a
// CR at the very end of the file.
func cutEOL(line []byte) (content, eol []byte) {
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
	}
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	return line[:n], line[n:]
}

func (r *csvReader) next() (types.Row, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return types.Row{}, r.ioError(err)
		}
		if len(line) == 0 {
			return types.Row{}, io.EOF
		}
		content, _ := cutEOL(line)
		if len(content) == 0 && len(r.cols) != 1 || len(content) > 0 && r.opts.AllowComments && content[0] == '#' {
			continue
		}
		data, err := r.split(line)
		if err != nil {
			return types.Row{}, err
		}
		return r.decode(data)
	}
}

// split finds the fields of the record that starts with line, reading more
// lines while a quoted field goes on. It returns the bytes that
// r.fields index.
func (r *csvReader) split(line []byte) ([]byte, error) {
	content, _ := cutEOL(line)
	if (r.quote == 0 || bytes.IndexByte(content, r.quote) < 0) &&
		(r.esc == 0 || bytes.IndexByte(content, r.esc) < 0) {
		r.fields = r.fields[:0]
		for start := 0; ; {
			j := bytes.IndexByte(content[start:], r.delim)
			if j < 0 {
				r.fields = append(r.fields, csvField{start: start, end: len(content), line: r.line, col: start + 1, endLine: r.line, end1: len(content) + 1})
				return content, nil
			}
			r.fields = append(r.fields, csvField{start: start, end: start + j, line: r.line, col: start + 1, endLine: r.line, end1: start + j + 1})
			start += j + 1
		}
	}
	return r.splitQuoted(line)
}

// splitQuoted is split for a line with quotes or escapes: field contents
// are copied to r.rec, unquoted.
func (r *csvReader) splitQuoted(line []byte) ([]byte, error) {
	content, eol := cutEOL(line)
	r.rec, r.fields = r.rec[:0], r.fields[:0]
	pos := 0
	// nextLine continues a field on the next line, its line break kept.
	nextLine := func(f *csvField) error {
		if len(r.rec) > MaxLineBytes { // a quoted field over many lines
			return r.ioError(LineTooLong(r.path, f.line))
		}
		r.rec = append(r.rec, eol...)
		if len(eol) == 0 {
			return r.fieldError(f, len(r.fields), "unterminated quoted field")
		}
		l, err := r.readLine()
		if err != nil {
			return r.ioError(err)
		}
		if len(l) == 0 {
			return r.fieldError(f, len(r.fields), "unterminated quoted field")
		}
		content, eol = cutEOL(l)
		pos = 0
		return nil
	}
	for {
		f := csvField{start: len(r.rec), line: r.line, col: pos + 1}
		if r.quote != 0 && pos < len(content) && content[pos] == r.quote {
			f.quoted = true
			pos++
			for {
				i := indexByte2(content[pos:], r.quote, r.esc)
				if i < 0 {
					r.rec = append(r.rec, content[pos:]...)
					if err := nextLine(&f); err != nil {
						return nil, err
					}
					continue
				}
				c := content[pos+i]
				r.rec = append(r.rec, content[pos:pos+i]...)
				pos += i + 1
				if c == r.esc && c != 0 {
					if pos < len(content) {
						r.rec = append(r.rec, content[pos])
						pos++
					} else if err := nextLine(&f); err != nil {
						return nil, err
					}
					continue
				}
				if pos < len(content) && content[pos] == r.quote {
					r.rec = append(r.rec, r.quote) // a doubled quote
					pos++
					continue
				}
				break // the closing quote
			}
			f.end, f.endLine, f.end1 = len(r.rec), r.line, pos+1
			r.fields = append(r.fields, f)
			if pos == len(content) {
				return r.rec, nil
			}
			if content[pos] != r.delim {
				g := csvField{line: r.line, col: pos + 1}
				return nil, r.fieldError(&g, len(r.fields)-1, fmt.Sprintf("unexpected %q after the closing quote of the field at column %d", rune(content[pos]), f.col))
			}
			pos++
			continue
		}
		last := true
		for {
			i := indexByte2(content[pos:], r.delim, r.esc)
			if i < 0 {
				r.rec = append(r.rec, content[pos:]...)
				pos = len(content)
				break
			}
			c := content[pos+i]
			r.rec = append(r.rec, content[pos:pos+i]...)
			pos += i + 1
			if c == r.delim {
				last = false
				break
			}
			if pos < len(content) { // an escaped character
				r.rec = append(r.rec, content[pos])
				pos++
			} else if err := nextLine(&f); err != nil {
				return nil, err
			}
		}
		f.end, f.endLine, f.end1 = len(r.rec), r.line, pos+1
		if !last {
			f.end1 = pos
		}
		r.fields = append(r.fields, f)
		if last {
			return r.rec, nil
		}
	}
}

// indexByte2 returns the index of the first a or b (b may be 0: none).
func indexByte2(s []byte, a, b byte) int {
	if b == 0 {
		return bytes.IndexByte(s, a)
	}
	for i, c := range s {
		if c == a || c == b {
			return i
		}
	}
	return -1
}

// fieldError reports a problem at f, in field i (named when it is a
// column).
func (r *csvReader) fieldError(f *csvField, i int, msg string) error {
	e := &ParseError{File: r.path, Line: f.line, Col: f.col, Msg: msg}
	if i < len(r.cols) {
		e.Column = r.cols[i].name
	}
	return e
}

// decode turns the fields of a record into a row.
func (r *csvReader) decode(data []byte) (types.Row, error) {
	n := len(r.cols)
	if len(r.fields) != n {
		e := &ParseError{File: r.path}
		fields := "fields"
		if n == 1 {
			fields = "field"
		}
		count := fmt.Sprintf("expected %d %s%s, found %d", n, fields, r.columnList(), len(r.fields))
		if len(r.fields) > n {
			extra := &r.fields[n]
			e.Line, e.Col, e.Value = extra.line, extra.col, string(data[extra.start:extra.end])
			e.Msg = "unexpected extra field " + textparse.QuoteText(e.Value) + ": " + count
		} else {
			last := r.fields[len(r.fields)-1]
			e.Line, e.Col, e.Column = last.endLine, last.end1, r.cols[len(r.fields)].name
			e.Msg = "missing value: " + count
		}
		return types.Row{}, e
	}
	out := r.slab.Fields(n)
	for i := range r.fields {
		f := &r.fields[i]
		c := &r.cols[i]
		raw := data[f.start:f.end]
		if !f.quoted && (len(raw) == 0 && (r.opts.EmptyIsNull || !c.typ.IsString()) || r.opts.NullLiteral != "" && string(raw) == r.opts.NullLiteral) {
			if c.typ.NotNull {
				what := "an empty field"
				if len(raw) > 0 {
					what = "the null literal"
				}
				return types.Row{}, &ParseError{File: r.path, Line: f.line, Col: f.col, Column: c.name, Value: string(raw),
					Msg: "null value (" + what + ") for " + c.typ.String()}
			}
			continue // out[i] is nil
		}
		v, err := r.value(c, raw)
		if err != nil {
			return types.Row{}, &ParseError{File: r.path, Line: f.line, Col: f.col, Column: c.name, Value: string(raw), Msg: err.Error()}
		}
		out[i] = v
	}
	return types.Row{Kind: types.Insert, Fields: out}, nil
}

// columnList names the columns for a message about the number of fields:
// " (name, score)", or "" for a wide table.
func (r *csvReader) columnList() string {
	if len(r.cols) > 8 {
		return ""
	}
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		names[i] = c.name
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// validUTF8 is utf8.Valid with a shorter way for the usual field, ASCII
// of 8 bytes or more: its 8-byte words (the last one overlapping the one
// before) OR-ed together and tested once. utf8.Valid tests a word at a
// time and the bytes after the last whole word one by one, which for the
// short strings of a CSV line (keys, URLs) cost about 120 instructions a
// field.
func validUTF8(b []byte) bool {
	n := len(b)
	if n < 8 {
		return utf8.Valid(b)
	}
	var or uint64
	for i := 0; i+8 <= n; i += 8 {
		or |= binary.LittleEndian.Uint64(b[i:])
	}
	or |= binary.LittleEndian.Uint64(b[n-8:])
	if or&0x8080808080808080 == 0 {
		return true
	}
	return utf8.Valid(b)
}

// value reads one non-NULL field, with fast paths for the common types.
func (r *csvReader) value(c *srcColumn, raw []byte) (any, error) {
	switch c.typ.Kind {
	case types.KindChar, types.KindVarChar:
		if !validUTF8(raw) {
			return nil, fmt.Errorf("invalid UTF-8 in %s", textparse.QuoteText(string(raw)))
		}
		return c.intern.get(raw), nil
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		if n, ok := textparse.FastInt(raw); ok {
			if lo, hi := c.typ.Kind.IntegerRange(); n >= lo && n <= hi {
				return boxInt(n), nil
			}
		}
	case types.KindDouble:
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return f, nil
		}
	case types.KindDate, types.KindTime, types.KindTimestamp, types.KindTimestampLTZ:
		// A time's value holds nothing of its text, so the parse reads
		// the bytes in place; only its error keeps the text, and that
		// one parses a copy. (ParseScalar's errors quote the text, so a
		// string(raw) handed to it is always copied to the heap.)
		if v, err := r.vp.ParseScalar(unsafe.String(unsafe.SliceData(raw), len(raw)), &c.typ); err == nil {
			return v, nil
		}
	}
	return r.vp.ParseScalar(string(raw), &c.typ)
}
