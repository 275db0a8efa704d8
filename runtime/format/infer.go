package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Schema inference: CREATE TABLE t WITH (...) without columns (a ptfsh
// extension) reads the first InferSampleRows rows of its file and takes
// the columns from them. A CSV file's names come from its header, a JSON
// file's from the keys of its objects (in the order they first appear),
// and each column's type is the narrowest that reads every sampled value:
//
//	empty field, JSON null       no evidence (a column with none is STRING)
//	true, false (any case)       BOOLEAN
//	an integer that fits         BIGINT (a CSV integer with a leading 0, as a
//	                             zip code, is STRING: BIGINT would drop the 0)
//	a decimal or exponent number DOUBLE
//	yyyy-MM-dd                   DATE
//	a timestamp without a zone   TIMESTAMP(3) (as the table's reader reads it:
//	                             ISO-8601, SQL, or 'timestamp-format.pattern')
//	a timestamp with Z or ±hh:mm TIMESTAMP_LTZ(3)
//	anything else                STRING
//
// A column whose values disagree widens: BIGINT and DOUBLE to DOUBLE, DATE
// and TIMESTAMP(3) to TIMESTAMP(3), any other mix to STRING. In JSON a
// nested object is a ROW of its keys (inferred alike) and an array an
// ARRAY of its elements' type; a column that is an object in one row and a
// scalar in another is STRING, which reads any JSON value as its text.
// JSON strings are typed by their text as CSV fields are, but a string
// that looks like a number stays STRING (Flink reads "12" as a STRING).

// InferSampleRows is how many rows inference reads.
const InferSampleRows = 1000

type ikind uint8

const (
	iNull ikind = iota
	iBool
	iBigInt
	iDouble
	iDate
	iTimestamp
	iTimestampLTZ
	iRow
	iArray
	iString
)

// inferred is what the sampled values of a column say of its type.
type inferred struct {
	kind   ikind
	names  []string // a ROW's fields, in order
	fields map[string]*inferred
	elem   *inferred // an ARRAY's elements
}

// merge widens a by b.
func (a *inferred) merge(b *inferred) {
	switch {
	case b.kind == iNull:
	case a.kind == iNull:
		*a = *b
	case a.kind == b.kind && a.kind == iRow:
		for _, n := range b.names {
			if f, ok := a.fields[n]; ok {
				f.merge(b.fields[n])
			} else {
				a.names = append(a.names, n)
				a.fields[n] = b.fields[n]
			}
		}
	case a.kind == b.kind && a.kind == iArray:
		a.elem.merge(b.elem)
	case a.kind == b.kind:
	case (a.kind == iBigInt || a.kind == iDouble) && (b.kind == iBigInt || b.kind == iDouble):
		a.kind = iDouble
	case (a.kind == iDate || a.kind == iTimestamp) && (b.kind == iDate || b.kind == iTimestamp):
		a.kind = iTimestamp
	default:
		*a = inferred{kind: iString}
	}
}

// typ is the SQL type of the column.
func (a *inferred) typ() types.Type {
	switch a.kind {
	case iBool:
		return types.TypeBoolean
	case iBigInt:
		return types.Type{Kind: types.KindBigInt}
	case iDouble:
		return types.Type{Kind: types.KindDouble}
	case iDate:
		return types.Type{Kind: types.KindDate}
	case iTimestamp:
		return types.Type{Kind: types.KindTimestamp, Length: 3}
	case iTimestampLTZ:
		return types.Type{Kind: types.KindTimestampLTZ, Length: 3}
	case iRow:
		fields := make([]types.Field, len(a.names))
		for i, n := range a.names {
			fields[i] = types.Field{Name: n, Type: a.fields[n].typ()}
		}
		return types.NewRowType(fields...)
	case iArray:
		return types.ArrayOf(a.elem.typ())
	}
	return types.TypeString
}

// classify types one text value (a CSV field, a JSON string).
func (vp inferrer) classify(text string, csv bool) ikind {
	s := strings.TrimSpace(text)
	if s == "" {
		return iString // white space only (an empty field is NULL before this)
	}
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return iBool
	}
	if len(s) == 10 && s[4] == '-' && s[7] == '-' {
		if _, err := vp.ParseDate(text, s, &types.Type{Kind: types.KindDate}); err == nil {
			return iDate
		}
	}
	if isNumberText(s) {
		if !csv {
			return iString
		}
		digits := strings.TrimLeft(s, "+-")
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			if len(digits) > 1 && digits[0] == '0' {
				return iString
			}
			return iBigInt
		}
		if strings.ContainsAny(s, ".eE") {
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				return iDouble
			}
		}
		return iString // an integer beyond BIGINT: its exact text
	}
	if strings.IndexByte(s, ':') < 0 && !vp.HasPattern() {
		return iString
	}
	if _, err := vp.ParseTimestamp(text, s, &types.Type{Kind: types.KindTimestamp, Length: 3}); err == nil {
		if hasZone(s) {
			if _, err := vp.ParseTimestamp(text, s, &types.Type{Kind: types.KindTimestampLTZ, Length: 3}); err == nil {
				return iTimestampLTZ
			}
			return iString
		}
		return iTimestamp
	}
	return iString
}

// isNumberText reports whether s is made of a number's characters and
// holds a digit.
func isNumberText(s string) bool {
	digit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E':
		default:
			return false
		}
	}
	return digit
}

// hasZone reports whether a timestamp's text ends with a zone: Z or ±hh:mm.
func hasZone(s string) bool {
	n := len(s)
	if n > 0 && (s[n-1] == 'Z' || s[n-1] == 'z') {
		return true
	}
	return n > 16 && (s[n-6] == '+' || s[n-6] == '-') && s[n-3] == ':'
}

// InferCSV reads the header and the first InferSampleRows records of a
// CSV file (opts as for OpenCSV; Header must be set) and returns its
// columns, typed by their values. A file without a header line, a header
// with an empty or repeated name, or a record whose number of fields is
// not the header's is a *ParseError at its line and column (a bad record
// is skipped with IgnoreParseErrors, as the reader skips it).
func InferCSV(path string, opts CSVSourceOptions) ([]types.Column, error) {
	if !opts.Header {
		return nil, fmt.Errorf("open %s: a CSV file without a header cannot name its columns", path)
	}
	opts.Header, opts.Resume = false, SourcePos{}
	rr, err := OpenCSV(path, types.Schema{}, opts)
	if err != nil {
		return nil, err
	}
	r := rr.(*csvReader)
	defer r.Close()
	if b, _ := r.br.Peek(len(Utf8BOM)); string(b) == Utf8BOM {
		r.br.Discard(len(Utf8BOM))
	}
	var names []string
	var cols []*inferred
	for n := 0; n <= InferSampleRows; {
		line, err := r.readLine()
		if err != nil {
			return nil, r.ioError(err)
		}
		if len(line) == 0 {
			break
		}
		content, _ := cutEOL(line)
		if len(content) == 0 || opts.AllowComments && content[0] == '#' && names != nil {
			continue
		}
		data, err := r.split(line)
		if err != nil {
			if _, bad := err.(*ParseError); bad && opts.IgnoreParseErrors && names != nil {
				continue // a bad row, skipped as the reader will skip it
			}
			return nil, err
		}
		if names == nil {
			if names, err = r.headerNames(data); err != nil {
				return nil, err
			}
			cols = make([]*inferred, len(names))
			for i := range cols {
				cols[i] = &inferred{}
			}
			continue
		}
		n++
		if len(r.fields) != len(names) && opts.IgnoreParseErrors {
			continue
		}
		if len(r.fields) != len(names) {
			f := r.fields[min(len(r.fields), len(names))-1]
			return nil, &ParseError{File: r.path, Line: f.line, Col: f.col,
				Msg: fmt.Sprintf("this row has %d fields, the header %d (%s); fix the row or declare the columns", len(r.fields), len(names), strings.Join(names, ", "))}
		}
		for i, f := range r.fields {
			raw := data[f.start:f.end]
			if !f.quoted && (len(raw) == 0 || opts.NullLiteral != "" && string(raw) == opts.NullLiteral) {
				continue
			}
			k := iString
			if utf8.Valid(raw) && !(f.quoted && len(raw) == 0) {
				k = inferrer{r.vp}.classify(string(raw), true)
			}
			cols[i].merge(&inferred{kind: k})
		}
	}
	if names == nil {
		return nil, &ParseError{File: r.path, Msg: "the file is empty: there is no header to name the columns; declare them"}
	}
	out := make([]types.Column, len(names))
	for i, n := range names {
		out[i] = types.Column{Name: n, Type: cols[i].typ()}
	}
	return out, nil
}

// headerNames reads the names of a header line: trimmed unless quoted,
// none empty or repeated.
func (r *csvReader) headerNames(data []byte) ([]string, error) {
	names := make([]string, len(r.fields))
	seen := map[string]bool{}
	for i, f := range r.fields {
		n := string(data[f.start:f.end])
		if !f.quoted {
			n = strings.TrimSpace(n)
		}
		switch {
		case n == "":
			return nil, &ParseError{File: r.path, Line: f.line, Col: f.col, Msg: fmt.Sprintf("field %d of the header is empty: a column needs a name; name it or declare the columns", i+1)}
		case !utf8.ValidString(n):
			return nil, &ParseError{File: r.path, Line: f.line, Col: f.col, Msg: fmt.Sprintf("field %d of the header is not UTF-8", i+1)}
		case seen[n]:
			return nil, &ParseError{File: r.path, Line: f.line, Col: f.col, Msg: fmt.Sprintf("the header names column %q twice; fix the header or declare the columns", n)}
		}
		seen[n] = true
		names[i] = n
	}
	return names, nil
}

// InferJSON reads the first InferSampleRows objects of a JSON file (JSON
// lines or one array of objects) and returns its columns: the objects'
// keys in the order they first appear, typed by their values. A value
// that is not an object, or JSON that is not well formed, is a
// *ParseError at its line and column; with IgnoreParseErrors a bad line
// of JSON lines is skipped, as the reader skips it (an array that is not
// well formed cannot be read past).
func InferJSON(path string, opts JSONSourceOptions) ([]types.Column, error) {
	p, err := textparse.Compile(opts.Parse)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	vp := inferrer{p}
	in, err := openSourceInput(path, SourcePos{})
	if err != nil {
		return nil, err
	}
	defer in.Close()
	cr := &countingReader{r: bufio.NewReaderSize(in, 64<<10)}
	dec := json.NewDecoder(cr)
	dec.UseNumber()
	var base int64 // bytes read before the decoder's first (a BOM, white space)
	at := func(off int64, msg string) error {
		line, col := cr.lineCol(base + off)
		return &ParseError{File: path, Line: line, Col: col, Msg: msg}
	}
	fail := func(err error) error {
		var ge *GzipError
		if errors.As(err, &ge) {
			return err
		}
		var deep *errTooDeep
		if errors.As(err, &deep) {
			return at(deep.off, fmt.Sprintf("JSON nested deeper than %d levels", textparse.MaxJSONDepth))
		}
		var ek *emptyKeyError
		if errors.As(err, &ek) {
			return at(ek.off-2, "an empty key cannot name a column or a field; fix the file or declare the columns")
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return at(se.Offset, "invalid JSON: "+se.Error())
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return at(dec.InputOffset(), "unexpected end of file: the JSON array is not closed")
		}
		return fmt.Errorf("read %s: %w", path, err)
	}
	row := &inferred{kind: iRow, fields: map[string]*inferred{}}
	array := false
	first := true
	for n := 0; n < InferSampleRows; n++ {
		if first {
			first = false
			if b, _ := cr.r.Peek(3); string(b) == Utf8BOM {
				cr.r.Discard(3)
				cr.n += 3
			}
			for {
				b, err := cr.r.Peek(1)
				if err != nil || !jsonSpace(b[0]) {
					array = err == nil && b[0] == '['
					break
				}
				cr.r.ReadByte()
				cr.n++
				if b[0] == '\n' {
					cr.dropped, cr.lastDropped = cr.dropped+1, cr.n
				}
				if cr.n > maxInferBytes {
					return nil, fmt.Errorf("read %s: the file starts with more than %d MiB of white space", path, maxInferBytes>>20)
				}
			}
			base = cr.n
			if !array {
				col0 := cr.n - cr.lastDropped // bytes before the first row on its line
				if err := vp.inferJSONLines(cr.r, path, 1+cr.dropped, int(col0), opts.IgnoreParseErrors, row); err != nil {
					return nil, err
				}
				break
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
		}
		if array && !dec.More() {
			break
		}
		start := dec.InputOffset()
		v, err := vp.inferValue(dec)
		if err == io.EOF && !array {
			break
		}
		if err != nil {
			return nil, fail(err)
		}
		if v.kind != iRow {
			if v.kind == iNull {
				continue
			}
			return nil, at(cr.valueStart(base+start)-base, "a row must be a JSON object to name columns; fix the row or declare the columns")
		}
		row.merge(v)
	}
	if len(row.names) == 0 {
		return nil, &ParseError{File: path, Msg: "no object with a key among the first rows: there is nothing to name the columns; declare them"}
	}
	out := make([]types.Column, len(row.names))
	for i, n := range row.names {
		out[i] = types.Column{Name: n, Type: row.fields[n].typ()}
	}
	return out, nil
}

// inferJSONLines types the objects of JSON lines read from br, the first
// at line line, after col0 bytes of it, into row: one object per line as
// the reader reads them, blank lines skipped. A bad line is a *ParseError
// at its line and column, or skipped with ignore.
func (vp inferrer) inferJSONLines(br *bufio.Reader, path string, line, col0 int, ignore bool, row *inferred) error {
	var long []byte
	read := 0
	for n := 0; n < InferSampleRows; line, col0 = line+1, 0 {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], b...)
			for err == bufio.ErrBufferFull {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
				if len(long) > MaxLineBytes {
					return LineTooLong(path, line)
				}
			}
			b = long
		}
		if err != nil && err != io.EOF {
			var ge *GzipError
			if errors.As(err, &ge) {
				return err
			}
			return fmt.Errorf("read %s: %w", path, err)
		}
		if read += len(b); read > maxInferBytes {
			return fmt.Errorf("read %s: the first %d rows hold more than %d MiB: declare the columns", path, InferSampleRows, maxInferBytes>>20)
		}
		if len(bytes.TrimLeft(b, " \t\r\n")) > 0 {
			n++
			if perr := vp.inferJSONLine(b, path, line, col0, row); perr != nil && !ignore {
				return perr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
	return nil
}

// inferJSONLine types the object on one line into row.
func (vp inferrer) inferJSONLine(b []byte, path string, line, col0 int, row *inferred) error {
	at := func(off int64, msg string) error {
		return &ParseError{File: path, Line: line, Col: col0 + int(off) + 1, Msg: msg}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := vp.inferValue(dec)
	if err == nil {
		end := dec.InputOffset()
		if rest := bytes.TrimLeft(b[end:], " \t\r\n"); len(rest) > 0 {
			return at(int64(len(b)-len(rest)), "invalid JSON: more after the value; one object per line")
		}
	}
	var deep *errTooDeep
	var ek *emptyKeyError
	var se *json.SyntaxError
	switch {
	case err == nil:
	case errors.As(err, &deep):
		return at(deep.off, fmt.Sprintf("JSON nested deeper than %d levels", textparse.MaxJSONDepth))
	case errors.As(err, &ek):
		return at(ek.off-2, "an empty key cannot name a column or a field; fix the file or declare the columns")
	case errors.As(err, &se):
		return at(se.Offset, "invalid JSON: "+se.Error())
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return at(int64(len(bytes.TrimRight(b, " \t\r\n"))), "invalid JSON: the line ends inside a value; one object per line")
	default:
		return at(0, "invalid JSON: "+err.Error())
	}
	if v.kind == iNull {
		return nil
	}
	if v.kind != iRow {
		return at(int64(len(b)-len(bytes.TrimLeft(b, " \t"))), "a row must be a JSON object to name columns; fix the row or declare the columns")
	}
	row.merge(v)
	return nil
}

// emptyKeyError is an object key "", which ends at offset off.
type emptyKeyError struct{ off int64 }

func (e *emptyKeyError) Error() string { return "empty key" }

// inferValue reads one JSON value from dec and types it.
func (vp inferrer) inferValue(dec *json.Decoder) (*inferred, error) {
	return vp.inferNested(dec, 0)
}

// errTooDeep is JSON nested deeper than the readers read ([textparse.MaxJSONDepth]).
type errTooDeep struct{ off int64 }

func (e *errTooDeep) Error() string { return "too deep" }

func (vp inferrer) inferNested(dec *json.Decoder, depth int) (*inferred, error) {
	if depth > textparse.MaxJSONDepth {
		return nil, &errTooDeep{off: dec.InputOffset()}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &inferred{}, nil
	case bool:
		return &inferred{kind: iBool}, nil
	case json.Number:
		if _, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return &inferred{kind: iBigInt}, nil
		}
		if strings.ContainsAny(string(t), ".eE") {
			return &inferred{kind: iDouble}, nil
		}
		return &inferred{kind: iString}, nil // an integer beyond BIGINT: its text
	case string:
		return &inferred{kind: vp.classify(t, false)}, nil
	case json.Delim:
		switch t {
		case '{':
			v := &inferred{kind: iRow, fields: map[string]*inferred{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				if k == "" {
					return nil, &emptyKeyError{off: dec.InputOffset()}
				}
				f, err := vp.inferNested(dec, depth+1)
				if err != nil {
					return nil, err
				}
				if old, ok := v.fields[k]; ok {
					old.merge(f)
					continue
				}
				v.names = append(v.names, k)
				v.fields[k] = f
			}
			_, err := dec.Token()
			return v, err
		case '[':
			v := &inferred{kind: iArray, elem: &inferred{}}
			for dec.More() {
				e, err := vp.inferNested(dec, depth+1)
				if err != nil {
					return nil, err
				}
				v.elem.merge(e)
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// countingReader counts the bytes read through it (at most
// maxInferBytes), keeps the last inferWindow of them and the offsets of
// line starts, to turn a decoder's offset into a line and a column.
type countingReader struct {
	r      *bufio.Reader
	n      int64
	data   []byte  // the last bytes read, up to offset n
	starts []int64 // offsets of the starts of the last lines (after the first)
	// dropped counts the line starts taken out of starts (the oldest);
	// lastDropped is the latest of them.
	dropped     int
	lastDropped int64
}

// inferWindow is how many of the last bytes read valueStart can look at.
const inferWindow = 64 << 10

// maxInferBytes bounds what inference reads of a file.
const maxInferBytes = 256 << 20

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n+int64(len(p)) > maxInferBytes {
		return 0, fmt.Errorf("the first %d rows hold more than %d MiB: declare the columns", InferSampleRows, maxInferBytes>>20)
	}
	n, err := c.r.Read(p)
	if len(c.data)+n > 2*inferWindow {
		keep := max(inferWindow-n, 0)
		c.data = append(c.data[:0], c.data[len(c.data)-keep:]...)
	}
	c.data = append(c.data, p[:n]...)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		c.starts = append(c.starts, c.n+int64(i+j)+1)
		i += j + 1
	}
	c.n += int64(n)
	if len(c.starts) > 4096 { // keep the starts a position near the end needs
		k := 0
		for k < len(c.starts)-1 && c.starts[k] < c.n-2*inferWindow {
			k++
		}
		if k > 0 {
			c.dropped += k
			c.lastDropped = c.starts[k-1]
			c.starts = append(c.starts[:0], c.starts[k:]...)
		}
	}
	return n, err
}

// lineCol is the 1-based line and column of offset off.
func (c *countingReader) lineCol(off int64) (int, int) {
	line, start := 1+c.dropped, c.lastDropped
	for _, s := range c.starts {
		if s > off {
			break
		}
		line, start = line+1, s
	}
	return line, int(off-start) + 1
}

// valueStart moves off, a decoder's offset before a value, past the white
// space and the comma before it.
func (c *countingReader) valueStart(off int64) int64 {
	for off-c.n+int64(len(c.data)) >= 0 && off < c.n { // within the window
		b := c.data[off-c.n+int64(len(c.data))]
		if !jsonSpace(b) && b != ',' {
			break
		}
		off++
	}
	return off
}

// inferrer infers column types with the value parser of the options:
// what parses as which type.
type inferrer struct{ *textparse.Parser }

// jsonSpace reports whether c is JSON white space.
func jsonSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
