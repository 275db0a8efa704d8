package format

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// RecordDecoder decodes rows one record at a time from byte slices (a
// Kafka record's key or value) rather than from a file: a JSON object, or
// one CSV record (which may span lines inside quotes). Values are read as
// OpenJSON and OpenCSV read them. A bad record is a *ParseError whose File
// is empty and whose Line and Col are within the record.
type RecordDecoder struct {
	json *jsonReader
	csv  *csvReader
	src  bytes.Reader
}

// NewJSONRecordDecoder decodes JSON objects into rows of schema.
func NewJSONRecordDecoder(schema types.Schema, opts JSONSourceOptions) (*RecordDecoder, error) {
	vp, err := textparse.Compile(opts.Parse)
	if err != nil {
		return nil, err
	}
	r := &jsonReader{cols: srcColumns(schema), opts: opts, line: 1, seen: make([]bool, len(schema.Columns))}
	r.p.SetParser(vp)
	return &RecordDecoder{json: r}, nil
}

// NewCSVRecordDecoder decodes CSV records into rows of schema; the
// header, comment and resume options do not apply.
func NewCSVRecordDecoder(schema types.Schema, opts CSVSourceOptions) (*RecordDecoder, error) {
	vp, err := textparse.Compile(opts.Parse)
	if err != nil {
		return nil, err
	}
	r := &csvReader{cols: srcColumns(schema), vp: vp, opts: opts,
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
		return nil, err
	}
	d := &RecordDecoder{csv: r}
	r.br = bufio.NewReaderSize(&d.src, 4096)
	return d, nil
}

// Decode decodes one record. The row's values own their memory.
func (d *RecordDecoder) Decode(rec []byte) (types.Row, error) {
	if d.json != nil {
		return d.json.parseRecord(rec, 1, 0, true)
	}
	r := d.csv
	d.src.Reset(rec)
	r.br.Reset(&d.src)
	r.line, r.offset = 0, 0
	line, err := r.readLine()
	if err != nil {
		return types.Row{}, err
	}
	content, _ := cutEOL(line)
	if len(content) == 0 && len(r.cols) != 1 {
		return types.Row{}, &ParseError{Line: 1, Col: 1, Msg: "empty record"}
	}
	data, err := r.split(line)
	if err != nil {
		return types.Row{}, err
	}
	row, err := r.decode(data)
	if err != nil {
		return row, err
	}
	if rest, _ := r.br.Peek(1); len(rest) > 0 {
		return types.Row{}, &ParseError{Line: r.line + 1, Col: 1, Msg: fmt.Sprintf("more than one CSV record (%d bytes after the first)", len(rec)-int(r.offset))}
	}
	return row, nil
}

// AppendJSONRecord appends a row as one JSON object, its members the
// columns of schema in order, without a line end; the values are written
// as NewJSONPrinter writes them, except that TIMESTAMP and TIMESTAMP_LTZ
// values take the form of Flink's json format ('json.timestamp-format.standard'
// = 'SQL': 2025-03-27 12:00:00.5 and 2025-03-27 12:00:00.5Z), which it reads
// back; with iso, the ISO-8601 form (2025-03-27T12:00:00.5).
func AppendJSONRecord(b []byte, schema types.Schema, r types.Row, iso bool) []byte {
	b = append(b, '{')
	for i, v := range r.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		c := schema.Columns[i]
		b = types.AppendJSONString(b, c.Name)
		b = append(b, ':')
		if v != nil && (c.Type.Kind == types.KindTimestamp || c.Type.Kind == types.KindTimestampLTZ) {
			b = append(b, '"')
			b = appendFlinkTimestamp(b, v, c.Type, iso)
			b = append(b, '"')
			continue
		}
		b = types.AppendJSON(b, v, c.Type)
	}
	return append(b, '}')
}

// appendFlinkTimestamp writes a timestamp as Flink's json format does:
// seconds always, a fraction without trailing zeros.
func appendFlinkTimestamp(b []byte, v any, t types.Type, iso bool) []byte {
	start := len(b)
	b = types.AppendText(b, v, t)
	s := b[start:]
	z := len(s) > 0 && s[len(s)-1] == 'Z'
	if z {
		s = s[:len(s)-1]
	}
	if !iso {
		if i := bytes.IndexByte(s, 'T'); i >= 0 {
			s[i] = ' '
		}
	}
	if dot := bytes.IndexByte(s, '.'); dot >= 0 {
		for len(s) > dot+1 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if len(s) == dot+1 {
			s = s[:dot]
		}
	}
	b = b[:start+len(s)]
	if z {
		b = append(b, 'Z')
	}
	return b
}

// AppendCSVRecord appends a row as one CSV record without a line end, its
// fields written as NewCSVPrinter writes them (TIMESTAMP and TIMESTAMP_LTZ
// values in the form of Flink's csv format: 2025-03-27 12:00:00.5, and a Z
// after a TIMESTAMP_LTZ).
func AppendCSVRecord(b []byte, schema types.Schema, r types.Row, cell []byte) ([]byte, []byte) {
	for i, v := range r.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		if v == nil {
			continue
		}
		t := schema.Columns[i].Type
		if t.Kind == types.KindTimestamp || t.Kind == types.KindTimestampLTZ {
			cell = appendFlinkTimestamp(cell[:0], v, t, false)
		} else {
			cell = types.AppendText(cell[:0], v, t)
		}
		b = appendCSVBytes(b, cell)
	}
	return b, cell
}
