package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// JSONSourceOptions configures OpenJSON.
type JSONSourceOptions struct {
	// FailOnMissingField makes an object without a field for every column
	// a bad row ('json.fail-on-missing-field'); by default the column is
	// NULL.
	FailOnMissingField bool
	// IgnoreParseErrors skips bad rows instead of failing; the reader's
	// Skipped method counts them ('json.ignore-parse-errors').
	IgnoreParseErrors bool
	// Parse says how values are read: Parse.TimestampFormat is Flink's
	// 'json.timestamp-format.standard', Parse.TimestampPattern ptfsh's
	// pattern.
	Parse textparse.Options
	// Resume, when its Offset is not 0, starts reading at a position that
	// Position returned earlier (a checkpoint).
	Resume SourcePos
	// LinesOnly refuses a JSON array over several lines, as Flink's json
	// format reads one JSON value per line (SET 'ptfsh.dialect' =
	// 'flink'); an array on one line reads, a row for each element, in
	// both.
	LinesOnly bool
	// Input says where the bytes come from when not from the file at the
	// path read to its end: a stream (standard input), or a followed file.
	Input InputOptions
}

// jsonReader reads JSON lines or one top-level array of objects. It keeps
// its own buffer rather than a bufio.Reader because an array may be one
// long line (flights-20k.json is 1.7 MB without a line break): each object
// is framed in the buffer, which grows to hold the largest, then parsed in
// place by [textparse.JSON].
type jsonReader struct {
	path string
	f    *sourceInput
	cols []srcColumn
	// byName finds columns of a wide schema; narrow ones are searched.
	byName map[string]int
	opts   JSONSourceOptions
	p      textparse.JSON

	buf       []byte
	pos, end  int   // unread bytes are buf[pos:end]
	base      int64 // file offset of buf[0]
	line      int   // the line of buf[pos]
	lineStart int64 // file offset of the start of that line
	mode      byte  // see the jsonMode constants

	rows int64
	SkipStats
	slab types.RowSlab
	seen []bool
	// utf8OK: the record being decoded is valid UTF-8 as a whole, so its
	// strings need no check of their own.
	utf8OK bool
	err    error // a final error
}

// The reader's modes.
const (
	jsonDetect      = 0   // nothing read yet
	jsonLines       = 'l' // JSON lines
	jsonArrayFirst  = 'a' // in an array, before its first element
	jsonArrayNext   = 'A' // in an array, after an element
	jsonArrayClosed = 'e' // after the array
)

// OpenJSON opens a file of JSON objects whose fields are the columns of
// schema, matched by name: unknown fields are ignored and a missing field
// is NULL. The file holds JSON lines (one object per line, blank lines
// skipped) or a single JSON array of objects; the first byte that is not
// white space tells which. Values follow Flink's JSON format: numbers keep
// their exact text (no BIGINT loses precision), a string is read as
// [textparse.Value] reads text, a string column takes any value as its JSON text,
// timestamps follow the Parse options and also take epoch milliseconds as
// numbers. A bad value is a *ParseError at the line and column of the
// value; a JSON array that is not well formed between its elements cannot
// be skipped and stops the reader. The caller closes the reader.
func OpenJSON(path string, schema types.Schema, opts JSONSourceOptions) (RowReader, error) {
	vp, err := textparse.Compile(opts.Parse)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r := &jsonReader{path: path, cols: srcColumns(schema), opts: opts, line: 1,
		buf: make([]byte, 64<<10), seen: make([]bool, len(schema.Columns))}
	r.p.SetParser(vp)
	if len(r.cols) > 16 {
		r.byName = make(map[string]int, len(r.cols))
		for i := len(r.cols) - 1; i >= 0; i-- {
			r.byName[r.cols[i].name] = i
		}
	}
	if r.f, err = openSourceInput(path, opts.Resume, opts.Input); err != nil {
		return nil, err
	}
	if res := opts.Resume; res.Offset > 0 {
		r.base, r.rows = res.Offset, res.Row
		r.line = max(res.Line, 1)
		if r.lineStart, err = r.f.lineStartBefore(res.Offset); err != nil {
			r.f.Close()
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
		return r, nil
	}
	if _, err := r.fill(); err != nil {
		r.f.Close()
		return nil, err
	}
	if bytes.HasPrefix(r.buf[:r.end], []byte(Utf8BOM)) {
		r.pos = len(Utf8BOM)
		r.lineStart = int64(r.pos)
	}
	return r, nil
}

// Next implements RowReader.
func (r *jsonReader) Next() (types.Row, error) {
	if r.err != nil {
		return types.Row{}, r.err
	}
	for {
		row, err := r.next()
		if err == nil {
			r.rows++
			return row, nil
		}
		if pe, ok := err.(*ParseError); ok && r.opts.IgnoreParseErrors && r.err == nil {
			r.SkipStats.Add(pe)
			continue
		}
		return types.Row{}, err
	}
}

// Position implements RowReader.
func (r *jsonReader) Position() SourcePos {
	return SourcePos{File: r.path, Line: r.line, Offset: r.base + int64(r.pos), Row: r.rows}
}

// Close implements RowReader.
func (r *jsonReader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	r.err = fmt.Errorf("read %s: reader closed", r.path)
	return err
}

// fill reads more of the file, keeping buf[pos:end]; it returns false at
// the end of the file.
func (r *jsonReader) fill() (bool, error) {
	if r.pos > 0 {
		copy(r.buf, r.buf[r.pos:r.end])
		r.base += int64(r.pos)
		r.end -= r.pos
		r.pos = 0
	}
	if r.end == len(r.buf) {
		if r.end >= MaxLineBytes { // one line, or one array element, holds it all
			r.err = LineTooLong(r.path, r.line)
			return false, r.err
		}
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.end])
		r.buf = nb
	}
	for {
		n, err := r.f.Read(r.buf[r.end:])
		r.end += n
		switch {
		case n > 0:
			return true, nil
		case err == io.EOF:
			return false, nil
		case err != nil:
			r.err = fmt.Errorf("read %s: %w", r.path, err)
			if _, ok := err.(*gzipErr); ok {
				r.err = err // it names the file
			}
			return false, r.err
		}
	}
}

// arrayOnOneLine is the check of LinesOnly at a '[': Flink's json format
// reads a file line by line, each line one JSON value, and an array of
// objects on one line gives a row for each (as ptfsh reads it); an array
// over several lines fails at its first line.
func (r *jsonReader) arrayOnOneLine() error {
	for {
		if i := bytes.IndexByte(r.buf[r.pos:r.end], '\n'); i >= 0 {
			return r.checkArrayLine(r.buf[r.pos : r.pos+i])
		}
		more, err := r.fill()
		if err != nil {
			return err
		}
		if !more {
			return r.checkArrayLine(r.buf[r.pos:r.end])
		}
	}
}

func (r *jsonReader) checkArrayLine(line []byte) error {
	line = bytes.TrimRight(line, " \t\r")
	if json.Valid(line) {
		return nil
	}
	text := string(line)
	if len(text) > 40 {
		text = text[:40] + "..."
	}
	return r.here(fmt.Sprintf("a JSON array over several lines is a ptfsh extension: Flink's json format reads a file line by line, one JSON value (an object, or an array of objects) on each, and fails here: Failed to deserialize JSON '%s'; write one object per line (jq -c '.[]' does)", text))
}

// peek skips white space and returns the next byte; false at the end of
// the file.
func (r *jsonReader) peek() (byte, bool, error) {
	for {
		for r.pos < r.end {
			c := r.buf[r.pos]
			if !jsonSpace(c) {
				return c, true, nil
			}
			r.pos++
			if c == '\n' {
				r.line++
				r.lineStart = r.base + int64(r.pos)
			}
		}
		if more, err := r.fill(); !more {
			return 0, false, err
		}
	}
}

// here returns a final *ParseError at the reader's position.
func (r *jsonReader) here(msg string) error {
	r.err = &ParseError{File: r.path, Line: r.line, Col: int(r.base+int64(r.pos)-r.lineStart) + 1, Msg: msg}
	return r.err
}

func (r *jsonReader) next() (types.Row, error) {
	for {
		switch r.mode {
		case jsonDetect:
			c, ok, err := r.peek()
			if !ok {
				if err == nil {
					err = io.EOF // maybe the file grows: detect again next time
				}
				return types.Row{}, err
			}
			switch c {
			case '[':
				if r.opts.LinesOnly {
					if err := r.arrayOnOneLine(); err != nil {
						return types.Row{}, err
					}
				}
				r.pos++
				r.mode = jsonArrayFirst
			case ',', ']':
				r.mode = jsonArrayNext // resuming inside an array
			default:
				r.mode = jsonLines
			}
		case jsonLines:
			rec, line, col0, ok, err := r.nextLine()
			if !ok {
				return types.Row{}, err
			}
			if len(bytes.TrimLeft(rec, " \t\r\n")) == 0 {
				continue
			}
			return r.parseRecord(rec, line, col0, true)
		case jsonArrayFirst, jsonArrayNext:
			c, ok, err := r.peek()
			if err != nil {
				return types.Row{}, err
			}
			if !ok {
				return types.Row{}, r.here("unexpected end of file: the JSON array is not closed")
			}
			if c == ']' {
				r.pos++
				r.mode = jsonArrayClosed
				continue
			}
			if r.mode == jsonArrayNext {
				if c != ',' {
					return types.Row{}, r.here(fmt.Sprintf("invalid JSON: unexpected %s, expected ',' or ']' in the array", showByte(c)))
				}
				r.pos++
				if c, ok, err = r.peek(); err != nil {
					return types.Row{}, err
				} else if !ok {
					return types.Row{}, r.here("unexpected end of file: the JSON array is not closed")
				}
			}
			if c == ',' || c == ']' {
				return types.Row{}, r.here(fmt.Sprintf("invalid JSON: unexpected %s, expected an object", showByte(c)))
			}
			r.mode = jsonArrayNext
			return r.element()
		case jsonArrayClosed:
			if c, ok, err := r.peek(); err != nil {
				return types.Row{}, err
			} else if ok {
				return types.Row{}, r.here(fmt.Sprintf("invalid JSON: unexpected %s after the top-level array", showByte(c)))
			}
			return types.Row{}, io.EOF
		}
	}
}

func showByte(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", rune(c))
}

// nextLine returns the next line without its line end, and where it
// starts; ok is false at the end of the file.
func (r *jsonReader) nextLine() (rec []byte, line int, col0 int64, ok bool, err error) {
	scanned := 0
	for {
		if i := bytes.IndexByte(r.buf[r.pos+scanned:r.end], '\n'); i >= 0 {
			n := scanned + i
			rec, line, col0 = r.buf[r.pos:r.pos+n], r.line, r.base+int64(r.pos)-r.lineStart
			r.pos += n + 1
			r.line++
			r.lineStart = r.base + int64(r.pos)
			return rec, line, col0, true, nil
		}
		scanned = r.end - r.pos
		more, err := r.fill()
		if err != nil {
			return nil, 0, 0, false, err
		}
		if !more {
			if r.end == r.pos {
				return nil, 0, 0, false, io.EOF
			}
			rec, line, col0 = r.buf[r.pos:r.end], r.line, r.base+int64(r.pos)-r.lineStart
			r.pos = r.end // a last line without a line end
			return rec, line, col0, true, nil
		}
	}
}

// element reads the array element at buf[pos]. It parses the element in
// place, and frames it (finds its end without parsing it) only when that
// fails: for an element that goes past the buffer or one that is bad.
func (r *jsonReader) element() (types.Row, error) {
	line, col0 := r.line, r.base+int64(r.pos)-r.lineStart
	if rec := r.buf[r.pos:r.end]; rec[0] == '{' {
		row, n, err := r.decodeObject(rec, line, col0, false)
		if err == nil && utf8.Valid(rec[:n]) {
			r.advance(n)
			return row, nil
		}
	}
	n, err := r.frame()
	if err != nil {
		return types.Row{}, err
	}
	rec := r.buf[r.pos : r.pos+n]
	r.advance(n)
	return r.parseRecord(rec, line, col0, false)
}

// advance consumes n bytes, counting the line ends among them.
func (r *jsonReader) advance(n int) {
	rec := r.buf[r.pos : r.pos+n]
	if k := bytes.Count(rec, []byte{'\n'}); k > 0 {
		r.line += k
		r.lineStart = r.base + int64(r.pos+bytes.LastIndexByte(rec, '\n')+1)
	}
	r.pos += n
}

// frame returns the length of the JSON value at buf[pos], reading more of
// the file until it is whole. It only balances brackets and strings;
// [textparse.JSON] checks the rest.
func (r *jsonReader) frame() (int, error) {
	first := r.buf[r.pos]
	scalar := first != '{' && first != '[' && first != '"'
	inStr := first == '"'
	i, depth := 0, 0
	if inStr {
		i = 1
	}
	for {
		for r.pos+i < r.end {
			c := r.buf[r.pos+i]
			switch {
			case inStr:
				if c == '\\' {
					i += 2
					continue
				}
				if c == '"' {
					inStr = false
					if depth == 0 {
						return i + 1, nil
					}
				}
			case scalar:
				if c == ',' || c == ']' || c == '}' || jsonSpace(c) {
					return i, nil
				}
			case c == '"':
				inStr = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth <= 0 {
					return i + 1, nil
				}
			}
			i++
		}
		more, err := r.fill()
		if err != nil {
			return 0, err
		}
		if !more {
			if scalar {
				return r.end - r.pos, nil
			}
			return 0, r.here("unexpected end of file inside a JSON value")
		}
	}
}

// parseRecord decodes one object. rec starts on line at byte col0 (0-based)
// of that line. In JSON lines, only white space may follow the object.
func (r *jsonReader) parseRecord(rec []byte, line int, col0 int64, lines bool) (types.Row, error) {
	valid := utf8.Valid(rec)
	r.utf8OK = valid
	row, _, err := r.decodeObject(rec, line, col0, lines)
	r.utf8OK = false
	if err != nil || valid {
		return row, err
	}
	// Invalid UTF-8 outside the values of string columns (those are
	// checked with their column): in a key or a field no column reads.
	i := 0
	for i < len(rec) {
		c, size := utf8.DecodeRune(rec[i:])
		if c == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return types.Row{}, r.recordError(rec, line, col0, -1, &textparse.JSONError{Pos: i, Msg: fmt.Sprintf("invalid UTF-8 (byte 0x%02x)", rec[min(i, len(rec)-1)])})
}

// decodeObject decodes the object at the start of rec (after white space)
// and returns the bytes it took. The UTF-8 of rec is not checked.
func (r *jsonReader) decodeObject(rec []byte, line int, col0 int64, lines bool) (types.Row, int, error) {
	p := &r.p
	p.Reset(rec, 0)
	p.SkipWS()
	if c, ok := p.Peek(); !ok || c != '{' {
		return types.Row{}, 0, r.recordError(rec, line, col0, -1, p.Unexpected(p.Pos(), "a JSON object"))
	}
	objPos := p.Pos()
	p.Advance()
	n := len(r.cols)
	out := r.slab.Fields(n)
	clear(r.seen)
	p.SkipWS()
	if c, ok := p.Peek(); ok && c == '}' {
		p.Advance()
	} else {
		hint := 0
		for {
			// The key the schema's order expects, written plainly, needs
			// no reading and matching of its own.
			i := hint
			if i >= n || !p.KeyIs(r.cols[i].key) {
				k, err := p.KeyBytes()
				if err != nil {
					return types.Row{}, 0, r.recordError(rec, line, col0, -1, err)
				}
				i = r.lookup(k, hint)
			}
			var err error
			if i < 0 {
				err = p.SkipValue()
			} else {
				out[i], err = r.value(&r.cols[i])
				r.seen[i] = true
				hint = i + 1
			}
			if err != nil {
				return types.Row{}, 0, r.recordError(rec, line, col0, i, err)
			}
			done, err := p.More('}')
			if err != nil {
				return types.Row{}, 0, r.recordError(rec, line, col0, -1, err)
			}
			if done {
				break
			}
		}
	}
	if lines {
		p.SkipWS()
		if p.Pos() < len(rec) {
			return types.Row{}, 0, r.recordError(rec, line, col0, -1, p.Unexpected(p.Pos(), "the end of the line after the object"))
		}
	}
	for i, seen := range r.seen {
		c := &r.cols[i]
		switch {
		case seen:
		case r.opts.FailOnMissingField || c.typ.NotNull:
			e := r.recordError(rec, line, col0, -1, &textparse.JSONError{Pos: objPos, Msg: "missing field"}).(*ParseError)
			if c.typ.NotNull {
				e.Msg += " for " + c.typ.String()
			}
			e.Column = c.name
			return types.Row{}, 0, e
		}
	}
	return types.Row{Kind: types.Insert, Fields: out}, p.Pos(), nil
}

// lookup returns the column of key k, trying hint (the column after the
// previous key) first, or -1.
func (r *jsonReader) lookup(k []byte, hint int) int {
	if hint < len(r.cols) && r.cols[hint].name == string(k) {
		return hint
	}
	if r.byName != nil {
		if i, ok := r.byName[string(k)]; ok {
			return i
		}
		return -1
	}
	for i := range r.cols {
		if r.cols[i].name == string(k) {
			return i
		}
	}
	return -1
}

// value reads the value of column c; strings of string columns are shared
// through the column's interner.
func (r *jsonReader) value(c *srcColumn) (any, error) {
	p := &r.p
	p.SkipWS()
	b, ok := p.Peek()
	switch {
	case c.intern != nil && ok && b == '"':
		start := p.Pos()
		b, err := p.Str()
		if err != nil {
			return nil, err
		}
		if !r.utf8OK && !utf8.Valid(b) {
			return nil, &textparse.JSONError{Pos: start, Msg: "invalid UTF-8 in " + textparse.QuoteText(string(b))}
		}
		return c.intern.get(b), nil
	case c.integer && ok && (b == '-' || b >= '0' && b <= '9'):
		if n, ok := p.IntNumber(&c.typ); ok {
			return boxInt(n), nil // small integers shared, as the CSV reader does
		}
	}
	return p.Value(&c.typ)
}

// recordError turns a [textparse.JSONError] at a byte of rec into a *ParseError with
// the line and column of that byte, naming column i when i >= 0.
func (r *jsonReader) recordError(rec []byte, line int, col0 int64, i int, err error) error {
	je, ok := err.(*textparse.JSONError)
	if !ok {
		return err
	}
	at := min(je.Pos, len(rec))
	e := &ParseError{File: r.path, Line: line, Col: int(col0) + at + 1, Msg: je.Msg}
	if k := bytes.Count(rec[:at], []byte{'\n'}); k > 0 {
		e.Line += k
		e.Col = at - bytes.LastIndexByte(rec[:at], '\n')
	}
	if i >= 0 {
		e.Column = r.cols[i].name
		if je.Pos < len(rec) {
			var q textparse.JSON
			q.Reset(rec, je.Pos)
			if raw, err := q.RawValue(); err == nil {
				e.Value = string(raw)
				if len(raw) > 0 && raw[0] == '"' {
					q.Reset(rec, je.Pos)
					if s, err := q.Str(); err == nil {
						e.Value = string(s)
					}
				}
			}
		}
	}
	return e
}
