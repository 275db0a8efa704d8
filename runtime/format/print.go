package format

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Printer writes a query result to an io.Writer in one output format. The
// caller calls Begin once with the result's schema, Row for every row in
// order, and End after the last row; Begin may then start another result.
// A Printer streams: it holds no rows back (the tableau derives its column
// widths from the types, as Flink's streaming print() does). A Printer is
// not safe for concurrent use. Each call of Begin, Row or End writes whole
// lines with at most one Write; write errors are returned as they are.
type Printer interface {
	// Begin starts a result with the given columns. Some formats write a
	// header here; the tableau waits for the first row or End, because an
	// empty result prints only "Empty set".
	Begin(s types.Schema) error
	// Row writes one row. Its fields must match the schema given to Begin
	// in number, and hold the Go types of value.go.
	Row(r types.Row) error
	// End finishes the result, writing a footer where the format has one.
	End() error
}

// Aborter is a Printer that can close a result cut short by an error: the
// tableau draws its bottom border (without a footer, since the count is not
// the result's), so that the error prints below a whole table.
type Aborter interface {
	Abort()
}

// FormatNames lists the output formats NewPrinter knows.
var FormatNames = []string{"tableau", "changelog", "table", "rows", "csv", "json"}

// NewPrinter returns the printer for a --format name: tableau, changelog,
// table, rows, csv or json. CSV and JSON get their default options (no op column).
func NewPrinter(format string, w io.Writer) (Printer, error) {
	switch format {
	case "tableau":
		return NewTableauPrinter(w), nil
	case "changelog":
		return NewChangelogPrinter(w), nil
	case "table":
		return NewTablePrinter(w), nil // print_table.go
	case "rows":
		return NewRowsPrinter(w), nil
	case "csv":
		return NewCSVPrinter(w, CSVOptions{}), nil
	case "json":
		return NewJSONPrinter(w, JSONOptions{}), nil
	}
	return nil, fmt.Errorf("unknown format %q (valid formats: %s)", format, strings.Join(FormatNames, ", "))
}

// printerBase holds what every format needs: the writer, the schema and a line
// buffer reused from row to row.
type printerBase struct {
	name   string
	w      io.Writer
	schema types.Schema
	begun  bool
	buf    []byte
	// maxWidth is the width of the columns whose type has none of its own
	// (sql-client.display.max-column-width); 0: tableauMaxWidth.
	maxWidth int
	// escape writes the control characters of values and names as
	// escapes (SetEscapeControls); esc is its buffer.
	escape bool
	esc    []byte
	// zone is the session time zone ('table.local-time-zone'; nil:
	// UTC), in which the tableau, changelog and table formats print a
	// TIMESTAMP_LTZ, as Flink's SQL client does.
	zone *time.Location
}

// SetZone makes the tableau, changelog and table formats print a
// TIMESTAMP_LTZ as the wall-clock time of loc.
func SetZone(p Printer, loc *time.Location) {
	if s, ok := p.(interface{ setZone(*time.Location) }); ok {
		s.setZone(loc)
	}
}

func (p *printerBase) setZone(loc *time.Location) { p.zone = loc }

// cellValue is v as the tableau prints it: a TIMESTAMP_LTZ moved to the
// session time zone's wall clock.
func (p *printerBase) cellValue(v any, t types.Type) any {
	if in, ok := v.(types.Instant); ok && t.Kind == types.KindTimestampLTZ && !types.IsUTC(p.zone) {
		return types.Instant(types.InstantToLocal(in, p.zone))
	}
	return v
}

// SetEscapeControls makes the printer write control characters (C0, DEL,
// C1) in values and column names as escapes ([types.EscapeControls]), as
// for a terminal, from the next row on.
func (p *printerBase) SetEscapeControls(on bool) { p.escape = on }

// SetEscapeControls tells a printer whether it writes to a terminal,
// where control characters in data are escaped instead of obeyed. The
// session sets it when its results go to a terminal; into a file or a
// pipe the bytes are written as they are, as Flink's print() writes them.
func SetEscapeControls(p Printer, on bool) {
	if s, ok := p.(interface{ SetEscapeControls(bool) }); ok {
		s.SetEscapeControls(on)
	}
}

// escaped returns s with its control characters escaped when the printer
// escapes, else s.
func (p *printerBase) escaped(s []byte) []byte {
	if !p.escape {
		return s
	}
	p.esc = types.AppendEscapedBytes(p.esc[:0], s)
	return p.esc
}

// escapedFrom escapes p.buf[from:] in place, when the printer escapes.
func (p *printerBase) escapedFrom(from int) {
	if !p.escape || !types.HasControl(string(p.buf[from:])) {
		return
	}
	p.esc = types.AppendEscapedBytes(p.esc[:0], p.buf[from:])
	p.buf = append(p.buf[:from], p.esc...)
}

// SetMaxColumnWidth sets the width of the columns whose type has none of
// its own (SET 'sql-client.display.max-column-width'), from the next
// Begin on; n < 1 means the default, 30.
func (p *printerBase) SetMaxColumnWidth(n int) { p.maxWidth = n }

// SetMaxColumnWidthKey is the Flink SQL client's setting of that width.
const SetMaxColumnWidthKey = "sql-client.display.max-column-width"

// SetMaxColumnWidth gives a text printer (tableau, changelog, table) the
// width of its columns without a type width; other printers ignore it.
func SetMaxColumnWidth(p Printer, n int) {
	if s, ok := p.(interface{ SetMaxColumnWidth(int) }); ok {
		s.SetMaxColumnWidth(n)
	}
}

// SetNoRowKind makes a tableau printer leave out the op column, as
// Flink's TableResult.print() does in batch mode (printRowKind is the
// environment's streaming mode); other printers ignore it.
func SetNoRowKind(p Printer) {
	if t, ok := p.(*tableauPrinter); ok {
		t.noKind = true
	}
}

func (p *printerBase) begin(s types.Schema) {
	p.schema = s
	p.begun = true
	p.buf = p.buf[:0]
}

func (p *printerBase) check(r types.Row) error {
	if !p.begun {
		return fmt.Errorf("%s printer: row before begin", p.name)
	}
	if len(r.Fields) != len(p.schema.Columns) {
		return fmt.Errorf("%s printer: row has %d fields, schema has %d columns", p.name, len(r.Fields), len(p.schema.Columns))
	}
	return nil
}

func (p *printerBase) end() error {
	if !p.begun {
		return fmt.Errorf("%s printer: end before begin", p.name)
	}
	p.begun = false
	return nil
}

// flush writes the buffer and empties it.
func (p *printerBase) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	_, err := p.w.Write(p.buf)
	p.buf = p.buf[:0]
	return err
}

// ---- tableau ---------------------------------------------------------------

// tableauMaxWidth is PrintStyle.DEFAULT_MAX_COLUMN_WIDTH (also the SQL
// client's sql-client.display.max-column-width default).
const tableauMaxWidth = 30

// NewTableauPrinter returns a printer of Flink's streaming TableResult.print()
// layout (TableauStyle built by PrintStyle.tableauWithTypeInferredColumnWidths
// with the row kind printed):
//
//	+----+--------------------------------+-------------+
//	| op |                           name |         sum |
//	+----+--------------------------------+-------------+
//	| +I |                            Bob |          23 |
//	+----+--------------------------------+-------------+
//	1 row in set
//
// Column widths come from the types (TableauStyle.columnWidthsByType): the
// longer of the name and the type's width, which is 4 for TINYINT, 6
// SMALLINT, 11 INT, 20 BIGINT, p+2 DECIMAL(p, s), 5 BOOLEAN, 10 DATE, 8 or
// p+9 TIME(p), 19/23/26/29 TIMESTAMP(p) and TIMESTAMP_LTZ(p) for p = 0,
// <= 3, <= 6, else, and 30 for every other type; at least 6 to hold <NULL>;
// the op column is 2 wide. Values are right-aligned; a value wider than its
// column is cut to width-3 display columns plus "...". Display width counts
// UTF-16 units plus one for each East Asian Wide or Fullwidth code point
// (TableauStyle.getStringDisplayWidth). The footer is "N rows in set" ("1
// row in set"); an empty result prints "Empty set" alone.
func NewTableauPrinter(w io.Writer) Printer {
	return &tableauPrinter{printerBase: printerBase{name: "tableau", w: w}}
}

type tableauPrinter struct {
	printerBase
	noKind bool // no op column (SetNoRowKind)
	names  [][]byte
	widths []int
	header bool
	rows   int64
	cell   []byte
}

func (p *tableauPrinter) Begin(s types.Schema) error {
	p.begin(s)
	p.names, p.widths = tableauColumns(s, p.names[:0], p.widths[:0], p.maxWidth, p.escape)
	if p.noKind {
		p.names, p.widths = p.names[1:], p.widths[1:]
	}
	p.header = false
	p.rows = 0
	return nil
}

// tableauColumns returns the names (op first, escaped with escape) and the
// type-derived widths.
func tableauColumns(s types.Schema, names [][]byte, widths []int, maxWidth int, escape bool) ([][]byte, []int) {
	names = append(names, []byte("op"))
	widths = append(widths, 2)
	for _, c := range s.Columns {
		name := c.Name
		if escape {
			name = types.EscapeControls(name)
		}
		names = append(names, []byte(name))
		widths = append(widths, max(javaLength(name), tableauTypeWidth(c.Type, maxWidth)))
	}
	return names, widths
}

// tableauTypeWidth is the type part of TableauStyle.columnWidthsByType,
// including the room for <NULL>; maxWidth (0: tableauMaxWidth) is that of
// the types without a width of their own.
func tableauTypeWidth(t types.Type, maxWidth int) int {
	n := tableauMaxWidth
	if maxWidth > 0 {
		n = maxWidth
	}
	switch t.Kind {
	case types.KindTinyInt:
		n = 4
	case types.KindSmallInt:
		n = 6
	case types.KindInt:
		n = 11
	case types.KindBigInt:
		n = 20
	case types.KindDecimal:
		n = t.Length + 2
	case types.KindBoolean:
		n = 5
	case types.KindDate:
		n = 10
	case types.KindTime:
		n = 8
		if t.Length > 0 {
			n = t.Length + 9
		}
	case types.KindTimestamp, types.KindTimestampLTZ:
		switch p := t.Length; {
		case p == 0:
			n = 19
		case p <= 3:
			n = 23
		case p <= 6:
			n = 26
		default:
			n = 29
		}
	}
	return max(n, len(types.TableNull))
}

func (p *tableauPrinter) Row(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	if !p.header {
		p.appendHeader()
		p.header = true
	}
	p.buf = append(p.buf, '|')
	at := 1 // the first value's column
	if p.noKind {
		at = 0
	} else {
		p.buf = appendTableauCell(p.buf, []byte(r.Kind.ShortString()), p.widths[0])
	}
	for i, v := range r.Fields {
		p.cell = types.AppendTableValue(p.cell[:0], p.cellValue(v, p.schema.Columns[i].Type), p.schema.Columns[i].Type)
		p.buf = appendTableauCell(p.buf, p.escaped(p.cell), p.widths[i+at])
	}
	p.buf = append(p.buf, '\n')
	p.rows++
	return p.flush()
}

func (p *tableauPrinter) End() error {
	if err := p.end(); err != nil {
		return err
	}
	if p.rows == 0 {
		p.buf = append(p.buf, "Empty set\n"...)
		return p.flush()
	}
	p.buf = appendBorder(p.buf, p.widths)
	p.buf = strconv.AppendInt(p.buf, p.rows, 10)
	if p.rows > 1 {
		p.buf = append(p.buf, " rows in set\n"...)
	} else {
		p.buf = append(p.buf, " row in set\n"...)
	}
	return p.flush()
}

func (p *tableauPrinter) Abort() {
	if p.begun && p.header {
		p.buf = appendBorder(p.buf, p.widths)
		p.flush() // a write error here would hide the error that stopped the statement
	}
	p.begun = false
}

func (p *tableauPrinter) appendHeader() {
	p.buf = appendBorder(p.buf, p.widths)
	p.buf = append(p.buf, '|')
	for i, n := range p.names {
		p.buf = appendTableauCell(p.buf, n, p.widths[i])
	}
	p.buf = append(p.buf, '\n')
	p.buf = appendBorder(p.buf, p.widths)
}

// appendBorder appends +----+------+ for the widths.
func appendBorder(b []byte, widths []int) []byte {
	b = append(b, '+')
	for _, w := range widths {
		for range w + 2 {
			b = append(b, '-')
		}
		b = append(b, '+')
	}
	return append(b, '\n')
}

// appendTableauCell appends " " + the right-aligned or cut value + " |".
func appendTableauCell(b, s []byte, width int) []byte {
	b = append(b, ' ')
	if dw := DisplayWidth(s); dw <= width {
		b = appendSpaces(b, width-dw)
		b = append(b, s...)
	} else {
		b = appendTruncated(b, s, width-3)
		b = append(b, "..."...)
	}
	return append(b, " |"...)
}

// appendTruncated appends the longest prefix of s whose display width fits
// target, left-padded to target, as TableauStyle.truncateString does. Java
// walks UTF-16 units, so a prefix may end inside a surrogate pair; Java then
// writes the lone high surrogate as '?', and so do we.
func appendTruncated(b, s []byte, target int) []byte {
	passed, end, half := 0, 0, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		passed++
		if isFullWidth(r) {
			passed++
		}
		if passed > target {
			break
		}
		if r >= 0x10000 { // the low surrogate counts one more
			passed++
			if passed > target {
				half = true
				break
			}
		}
		i += size
		end = i
	}
	sub := DisplayWidth(s[:end])
	if half {
		sub++
	}
	b = appendSpaces(b, target-sub)
	b = append(b, s[:end]...)
	if half {
		b = append(b, '?')
	}
	return b
}

func appendSpaces(b []byte, n int) []byte {
	for range max(n, 0) {
		b = append(b, ' ')
	}
	return b
}

// DisplayWidth is TableauStyle.getStringDisplayWidth: the UTF-16 length
// plus one for every wide code point.
func DisplayWidth(s []byte) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		i += size
		n++
		if r >= 0x10000 {
			n++
		}
		if isFullWidth(r) {
			n++
		}
	}
	return n
}

// javaLength is Java's String.length() of s.
func javaLength(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// isFullWidth reports whether r has East_Asian_Width W or F, as
// TableauStyle.isFullWidth asks ICU. The table is Unicode 13 (ICU4J 67, the
// version Flink bundles), with the UAX #11 default W for the unassigned
// code points of the CJK ideograph blocks.
func isFullWidth(r rune) bool {
	if r < 0x1100 {
		return false
	}
	i := sort.Search(len(wideRanges), func(i int) bool { return wideRanges[i][1] >= r })
	return i < len(wideRanges) && wideRanges[i][0] <= r
}

// ---- changelog ---------------------------------------------------------------

// NewChangelogPrinter returns a printer of the Flink SQL client's changelog
// result mode, which differs from the tableau: the client shows it in a
// full-screen view (CliChangelogResultView) without borders or footer. This
// printer writes that view's column header and rows as plain lines: each
// cell is " " and the value right-aligned in the tableau's type-derived
// width (CliUtils.normalizeColumn), a longer value cut to width-1 UTF-16
// units plus "~". Values and <NULL> are as in the tableau.
func NewChangelogPrinter(w io.Writer) Printer {
	return &changelogPrinter{printerBase: printerBase{name: "changelog", w: w}}
}

type changelogPrinter struct {
	printerBase
	names  [][]byte
	widths []int
	cell   []byte
}

func (p *changelogPrinter) Begin(s types.Schema) error {
	p.begin(s)
	p.names, p.widths = tableauColumns(s, p.names[:0], p.widths[:0], p.maxWidth, p.escape)
	for i, n := range p.names {
		p.buf = appendNormalized(p.buf, n, p.widths[i])
	}
	p.buf = append(p.buf, '\n')
	return p.flush()
}

func (p *changelogPrinter) Row(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	p.buf = appendNormalized(p.buf, []byte(r.Kind.ShortString()), p.widths[0])
	for i, v := range r.Fields {
		p.cell = types.AppendTableValue(p.cell[:0], p.cellValue(v, p.schema.Columns[i].Type), p.schema.Columns[i].Type)
		p.buf = appendNormalized(p.buf, p.escaped(p.cell), p.widths[i+1])
	}
	p.buf = append(p.buf, '\n')
	return p.flush()
}

func (p *changelogPrinter) End() error { return p.end() }

// appendNormalized appends " " + CliUtils.normalizeColumn(s, width), which
// measures in UTF-16 units.
func appendNormalized(b, s []byte, width int) []byte {
	b = append(b, ' ')
	n := javaLength(string(s))
	if n <= width {
		b = appendSpaces(b, width-n)
		return append(b, s...)
	}
	units := 0
	for i, r := range string(s) {
		u := 1
		if r >= 0x10000 {
			u = 2
		}
		if units+u > width-1 {
			b = append(b, s[:i]...)
			if units < width-1 { // half a surrogate pair: Java writes '?'
				b = append(b, '?')
			}
			break
		}
		units += u
	}
	return append(b, '~')
}

// ---- rows ------------------------------------------------------------------

// NewRowsPrinter returns a printer of one Row.toString per line, the form
// Flink's tests compare: +I[Bob, 12], -U[Bob, 1]. It writes no header or
// footer.
func NewRowsPrinter(w io.Writer) Printer {
	return &rowsPrinter{printerBase{name: "rows", w: w}}
}

type rowsPrinter struct{ printerBase }

func (p *rowsPrinter) Begin(s types.Schema) error { p.begin(s); return nil }

func (p *rowsPrinter) Row(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	from := len(p.buf)
	p.buf = types.AppendJavaRow(p.buf, r, p.schema.Columns, nil)
	p.escapedFrom(from)
	p.buf = append(p.buf, '\n')
	return p.flush()
}

func (p *rowsPrinter) End() error { return p.end() }

// ---- CSV -------------------------------------------------------------------

// CSVOptions configures NewCSVPrinter.
type CSVOptions struct {
	// OpColumn adds a first column named op holding +I, -U, +U or -D.
	OpColumn bool
	// OmitHeader leaves out the first line of column names.
	OmitHeader bool
}

// NewCSVPrinter returns a printer of RFC 4180 CSV lines ending in "\n": a
// header of column names, then one record per row. A field holding a comma,
// a double quote, CR or LF is quoted with inner quotes doubled; NULL is an
// empty unquoted field and the empty string is "". Values print as text:
// numbers as Java does (1.5, 1.0E10), DECIMAL plain, TIMESTAMP as Flink's
// csv format writes and reads it, 2025-03-27 12:00:00, TIMESTAMP_LTZ as
// 2025-03-27 12:00:00Z (seconds always, a fraction without trailing zeros:
// 12:00:00.5), DATE 2025-03-27, TIME
// 12:00:00, intervals as ISO-8601 (PT1S, P1Y2M), BYTES as base64, and ARRAY,
// MAP, ROW and DESCRIPTOR as their JSON text (see NewJSONPrinter).
func NewCSVPrinter(w io.Writer, opts CSVOptions) Printer {
	return &csvPrinter{printerBase: printerBase{name: "csv", w: w}, opts: opts}
}

type csvPrinter struct {
	printerBase
	opts CSVOptions
	cell []byte
}

func (p *csvPrinter) Begin(s types.Schema) error {
	p.begin(s)
	if p.opts.OmitHeader {
		return nil
	}
	sep := false
	if p.opts.OpColumn {
		p.buf = append(p.buf, "op"...)
		sep = true
	}
	for _, c := range s.Columns {
		if sep {
			p.buf = append(p.buf, ',')
		}
		sep = true
		p.buf = appendCSVBytes(p.buf, p.escaped([]byte(c.Name)))
	}
	p.buf = append(p.buf, '\n')
	return p.flush()
}

func (p *csvPrinter) Row(r types.Row) error {
	if err := p.appendRow(r); err != nil {
		return err
	}
	return p.flush()
}

// appendRow appends row r's line to p.buf.
func (p *csvPrinter) appendRow(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	sep := false
	if p.opts.OpColumn {
		p.buf = append(p.buf, r.Kind.ShortString()...)
		sep = true
	}
	for i, v := range r.Fields {
		if sep {
			p.buf = append(p.buf, ',')
		}
		sep = true
		if v == nil {
			continue
		}
		switch x := v.(type) {
		case string:
			if !p.escape {
				p.buf = appendCSVField(p.buf, x) // no copy into p.cell first
				continue
			}
		case int64:
			if isIntegerKind(p.schema.Columns[i].Type.Kind) {
				p.buf = strconv.AppendInt(p.buf, x, 10) // digits: nothing to quote or escape
				continue
			}
		}
		if t := &p.schema.Columns[i].Type; t.Kind == types.KindTimestamp || t.Kind == types.KindTimestampLTZ {
			p.cell = appendFlinkTimestamp(p.cell[:0], v, *t, false)
		} else {
			p.cell = types.AppendText(p.cell[:0], v, *t)
		}
		p.buf = appendCSVBytes(p.buf, p.escaped(p.cell))
	}
	p.buf = append(p.buf, '\n')
	return nil
}

func (p *csvPrinter) End() error { return p.end() }

// isIntegerKind reports whether k is TINYINT, SMALLINT, INT or BIGINT,
// whose values print as plain decimal digits.
func isIntegerKind(k types.Kind) bool {
	return k == types.KindTinyInt || k == types.KindSmallInt || k == types.KindInt || k == types.KindBigInt
}

func (p *csvPrinter) newEncoder() RowEncoder {
	return &csvPrinter{printerBase: p.encoderBase(), opts: p.opts}
}

// appendCSVField appends a non-NULL field, quoted when RFC 4180 needs it
// and when empty (so that it differs from NULL). It searches with
// IndexByte (a vector search each) rather than byte by byte: a message
// string per row spent 5 % of its instructions here.
func appendCSVField(b []byte, t string) []byte {
	if len(t) > 0 && !csvNeedsQuotes(t) {
		return append(b, t...)
	}
	b = append(b, '"')
	for {
		i := strings.IndexByte(t, '"')
		if i < 0 {
			break
		}
		b = append(b, t[:i+1]...)
		b = append(b, '"')
		t = t[i+1:]
	}
	b = append(b, t...)
	return append(b, '"')
}

// appendCSVBytes is appendCSVField of bytes, read in place.
func appendCSVBytes(b, s []byte) []byte {
	return appendCSVField(b, unsafe.String(unsafe.SliceData(s), len(s)))
}

// csvNeedsQuotes reports whether a field holds a comma, a quote, CR or LF.
func csvNeedsQuotes(s string) bool {
	return strings.IndexByte(s, ',') >= 0 || strings.IndexByte(s, '"') >= 0 ||
		strings.IndexByte(s, '\n') >= 0 || strings.IndexByte(s, '\r') >= 0
}

// ---- JSON ------------------------------------------------------------------

// JSONOptions configures NewJSONPrinter.
type JSONOptions struct {
	// OpColumn adds a first member "op" holding +I, -U, +U or -D.
	OpColumn bool
}

// NewJSONPrinter returns a printer of JSON lines: one object per row whose
// members are the columns in schema order. Numbers are JSON numbers (BIGINT
// exact at any size, DOUBLE as Java prints it, DECIMAL in plain form);
// NaN and the infinities, which JSON lacks, are the strings "NaN",
// "Infinity" and "-Infinity". Times, dates and intervals are strings as in
// NewCSVPrinter, BYTES a base64 string, ARRAY and DESCRIPTOR arrays, ROW an
// object of its fields, and MAP an object when every key is a string, else
// an array of [key, value] pairs.
func NewJSONPrinter(w io.Writer, opts JSONOptions) Printer {
	return &jsonPrinter{printerBase: printerBase{name: "json", w: w}, opts: opts}
}

type jsonPrinter struct {
	printerBase
	opts JSONOptions
}

func (p *jsonPrinter) Begin(s types.Schema) error { p.begin(s); return nil }

func (p *jsonPrinter) Row(r types.Row) error {
	if err := p.appendRow(r); err != nil {
		return err
	}
	return p.flush()
}

// appendRow appends row r's line to p.buf.
func (p *jsonPrinter) appendRow(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	p.buf = append(p.buf, '{')
	if p.opts.OpColumn {
		p.buf = append(p.buf, `"op":"`...)
		p.buf = append(p.buf, r.Kind.ShortString()...)
		p.buf = append(p.buf, '"')
	}
	for i, v := range r.Fields {
		if i > 0 || p.opts.OpColumn {
			p.buf = append(p.buf, ',')
		}
		c := p.schema.Columns[i]
		p.buf = types.AppendJSONString(p.buf, c.Name)
		p.buf = append(p.buf, ':')
		p.buf = types.AppendJSON(p.buf, v, c.Type)
	}
	if p.escape {
		// JSON escapes C0 controls already; DEL and C1 go as \u escapes,
		// which read back as the same characters.
		p.buf = appendJSONEscapedC1(p.buf)
	}
	p.buf = append(p.buf, "}\n"...)
	return nil
}

func (p *jsonPrinter) End() error { return p.end() }

func (p *jsonPrinter) newEncoder() RowEncoder {
	return &jsonPrinter{printerBase: p.encoderBase(), opts: p.opts}
}

// appendJSONEscapedC1 rewrites DEL and the C1 controls of a line of JSON
// as \u escapes (they can only be inside its strings).
func appendJSONEscapedC1(b []byte) []byte {
	if !types.HasControl(string(b)) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || r >= 0x80 && r <= 0x9f {
			out = append(out, fmt.Sprintf(`\u%04x`, r)...)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// wideRanges are the code point ranges of East_Asian_Width W and F, sorted.
// Generated from golang.org/x/text/width (Unicode 13.0.0) plus the UAX #11
// defaults for unassigned ideographs; adjacent ranges are merged.
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
	{0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
	{0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
	{0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
	{0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
	{0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	{0x2E80, 0x2E99}, {0x2E9B, 0x2EF3}, {0x2F00, 0x2FD5}, {0x2FF0, 0x2FFB}, {0x3000, 0x303E},
	{0x3041, 0x3096}, {0x3099, 0x30FF}, {0x3105, 0x312F}, {0x3131, 0x318E}, {0x3190, 0x31E3},
	{0x31F0, 0x321E}, {0x3220, 0x3247}, {0x3250, 0x4DBF}, {0x4E00, 0xA48C}, {0xA490, 0xA4C6},
	{0xA960, 0xA97C}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE52},
	{0xFE54, 0xFE66}, {0xFE68, 0xFE6B}, {0xFF01, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4},
	{0x16FF0, 0x16FF1}, {0x17000, 0x187F7}, {0x18800, 0x18CD5}, {0x18D00, 0x18D08}, {0x1B000, 0x1B11E},
	{0x1B150, 0x1B152}, {0x1B164, 0x1B167}, {0x1B170, 0x1B2FB}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
	{0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248},
	{0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C},
	{0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA}, {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4},
	{0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
	{0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F},
	{0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6EB, 0x1F6EC},
	{0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7EB}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F978},
	{0x1F97A, 0x1F9CB}, {0x1F9CD, 0x1F9FF}, {0x1FA70, 0x1FA74}, {0x1FA78, 0x1FA7A}, {0x1FA80, 0x1FA86},
	{0x1FA90, 0x1FAA8}, {0x1FAB0, 0x1FAB6}, {0x1FAC0, 0x1FAC2}, {0x1FAD0, 0x1FAD6}, {0x20000, 0x3FFFF},
}
