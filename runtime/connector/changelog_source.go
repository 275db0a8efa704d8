package connector

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Changelog sources (docs/design.md §3): a file table, or a table given AS VALUES,
// whose rows carry their row kind in a column.
//
//	CREATE TABLE t (op STRING, name STRING, score INT, PRIMARY KEY (name) NOT ENFORCED)
//	WITH (..., 'changelog.op-column' = 'op',        -- +I/-U/+U/-D or INSERT/...; not a column of the rows
//	           'changelog-mode' = 'I,UA,D',          -- the kinds the table declares
//	           'source.produces-delete-by-key' = 'true');  -- deletes carry only the key
//
// The op column is declared among the columns, where it stands in the
// file (or in each VALUES row), and is consumed: the table's columns are
// the others. Without 'changelog-mode' a table with an op column declares
// every kind, or I,UA,D (an upsert source) when it has a PRIMARY KEY. A
// row whose kind the mode does not declare is an error at its file line
// (or VALUES row). With 'source.produces-delete-by-key' the non-key
// columns of a delete read as NULL, whatever the row holds.

// Table options of changelog sources.
const (
	OptOpColumn     = "changelog.op-column"
	OptChangelog    = "changelog-mode"
	optDeleteByKey  = "source.produces-delete-by-key"
	modeSyntaxHint  = "kinds I, UB, UA and D separated by commas, e.g. 'I,UA,D'"
	kindSyntaxHint  = "+I, -U, +U, -D (or INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE)"
	notNullByKeyMsg = "NULL in a NOT NULL column (only a delete of 'source.produces-delete-by-key' leaves it NULL)"
)

// IsChangelogOption reports whether key is one of the changelog options.
func IsChangelogOption(key string) bool {
	return key == OptOpColumn || key == OptChangelog || key == optDeleteByKey
}

// optionPos is where the WITH clause sets key, or the statement.
func optionPos(ct *sqlmini.CreateTable, key string) sqlmini.Pos {
	for _, o := range ct.Options {
		if string(o.Key) == key {
			return o.Pos
		}
	}
	return ct.Pos
}

// ParseChangelogMode reads a 'changelog-mode' value: kinds I, UB, UA and
// D (or INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE) separated by commas,
// in any case and order.
func ParseChangelogMode(s string) (types.ChangelogMode, error) {
	var kinds []types.RowKind
	for _, part := range strings.Split(s, ",") {
		var k types.RowKind
		switch strings.ToUpper(strings.TrimSpace(part)) {
		case "I", "INSERT":
			k = types.Insert
		case "UB", "UPDATE_BEFORE":
			k = types.UpdateBefore
		case "UA", "UPDATE_AFTER":
			k = types.UpdateAfter
		case "D", "DELETE":
			k = types.Delete
		default:
			return types.ChangelogMode{}, fmt.Errorf("invalid 'changelog-mode' value '%s': give %s", s, modeSyntaxHint)
		}
		kinds = append(kinds, k)
	}
	return types.NewChangelogMode(kinds...), nil
}

// parseOpCode reads the row kind of an op column value.
func parseOpCode(s string) (types.RowKind, bool) {
	return types.ParseRowKind(strings.ToUpper(strings.TrimSpace(s)))
}

// PrepareChangelog reads the changelog options of CREATE TABLE, before
// its rows are typed: it sets t.Changelog and, for deletes by key, reads
// the non-key columns as nullable. finishChangelog then takes the op
// column out.
func PrepareChangelog(t *catalog.Table, ct *sqlmini.CreateTable) error {
	opName, hasOp := t.Options[OptOpColumn]
	modeText, hasMode := t.Options[OptChangelog]
	byKey, err := BoolOption(t, optDeleteByKey)
	if err != nil {
		return sqlmini.Errorf(optionPos(ct, optDeleteByKey), "%w", err)
	}
	if !hasOp && !hasMode && !byKey {
		return nil
	}
	mode := types.InsertOnly
	switch {
	case hasMode:
		if mode, err = ParseChangelogMode(modeText); err != nil {
			return sqlmini.Errorf(optionPos(ct, OptChangelog), "%w", err)
		}
	case hasOp && len(t.PrimaryKey) > 0:
		mode = types.UpsertAll
	case hasOp:
		mode = types.RetractAll
	}
	name := t.Name
	switch {
	case mode.Contains(types.UpdateAfter) && !mode.Contains(types.UpdateBefore) && len(t.PrimaryKey) == 0:
		return sqlmini.Errorf(optionPos(ct, OptChangelog), "Table '%s' produces a changelog stream contains UPDATE_AFTER, no UPDATE_BEFORE. This requires to define primary key constraint on the table.", name)
	case mode.Contains(types.UpdateBefore) && !mode.Contains(types.UpdateAfter):
		return sqlmini.Errorf(optionPos(ct, OptChangelog), "Invalid source for table '%s': a changelog cannot contain UPDATE_BEFORE but no UPDATE_AFTER", name)
	}
	if byKey {
		if !mode.Contains(types.Delete) {
			return sqlmini.Errorf(optionPos(ct, optDeleteByKey), "'%s' needs deletes: the changelog mode %s has no DELETE (D)", optDeleteByKey, mode)
		}
		if len(t.PrimaryKey) == 0 {
			return sqlmini.Errorf(optionPos(ct, optDeleteByKey), "'%s' needs a PRIMARY KEY: a delete that carries only the key must have one", optDeleteByKey)
		}
		mode.KeyOnlyDeletes = true
		key := map[int]bool{}
		for _, k := range t.PrimaryKey {
			key[k] = true
		}
		for i := range t.Schema.Columns {
			if !key[i] && t.Schema.Columns[i].Type.NotNull {
				t.Schema.Columns[i].Type.NotNull = false
				t.Relaxed = append(t.Relaxed, i)
			}
		}
	}
	t.Changelog = mode
	if !hasOp {
		return nil
	}
	op := t.Schema.Index(opName)
	pos := optionPos(ct, OptOpColumn)
	switch {
	case op < 0:
		return sqlmini.Errorf(pos, "'%s' names '%s', which is not a column of %s: %s", OptOpColumn, opName, name, t.Schema.ColumnList())
	case !t.Schema.Columns[op].Type.IsString():
		return sqlmini.Errorf(pos, "the op column '%s' must be a STRING, not %s", opName, t.Schema.Columns[op].Type)
	case t.Watermark != nil && t.Watermark.Column == op:
		return sqlmini.Errorf(pos, "the op column '%s' cannot be the WATERMARK column", opName)
	}
	for _, k := range t.PrimaryKey {
		if k == op {
			return sqlmini.Errorf(pos, "the op column '%s' cannot be part of the PRIMARY KEY", opName)
		}
	}
	return nil
}

// FinishChangelog takes the op column out of a table whose rows are read
// (AS VALUES: typed into t.Events): the declared columns become the
// source's, the others the table's, and VALUES rows get their kinds.
func FinishChangelog(t *catalog.Table, ct *sqlmini.CreateTable) error {
	op := -1
	if name, ok := t.Options[OptOpColumn]; ok {
		op = t.Schema.Index(name)
		full := t.Schema
		cols := make([]types.Column, 0, full.Len()-1)
		cols = append(cols, full.Columns[:op]...)
		cols = append(cols, full.Columns[op+1:]...)
		// The file is read with the declared columns, op included, and
		// the relaxed nullability; the table keeps the declared types.
		t.SourceSchema = full
		t.Schema = types.Schema{Columns: cols}
		shift := func(i int) int {
			if i > op {
				return i - 1
			}
			return i
		}
		for i, k := range t.PrimaryKey {
			t.PrimaryKey[i] = shift(k)
		}
		for i, k := range t.Relaxed {
			t.Relaxed[i] = shift(k)
		}
		if t.Watermark != nil {
			t.Watermark.Column = shift(t.Watermark.Column)
		}
	}
	if t.Kind != catalog.TableValues || t.Stream {
		return restoreNotNull(t, nil, nil)
	}
	vals := ct.Query.Body.Values
	for i := range t.Events {
		ev := &t.Events[i]
		if ev.Kind != exec.EvRow || op < 0 {
			continue
		}
		kind, err := opKind(t, ev.Row.Fields[op])
		if err != nil {
			return sqlmini.Errorf(vals.Rows[i].Values[op].Pos, "%w", err)
		}
		f := make([]any, 0, len(ev.Row.Fields)-1)
		f = append(f, ev.Row.Fields[:op]...)
		f = append(f, ev.Row.Fields[op+1:]...)
		ev.Row = types.Row{Kind: kind, Fields: f}
	}
	return restoreNotNull(t, t.Events, func(i, col int) sqlmini.Pos {
		if op >= 0 && col >= op {
			col++
		}
		return vals.Rows[i].Values[col].Pos
	})
}

// restoreNotNull gives the relaxed columns their NOT NULL back and checks
// rows: only the deletes by key may hold NULL there (and hold NULL in
// every non-key column). at places an error at row i, column col.
func restoreNotNull(t *catalog.Table, events []exec.Event, at func(i, col int) sqlmini.Pos) error {
	for _, c := range t.Relaxed {
		t.Schema.Columns[c].Type.NotNull = true
	}
	for i := range events {
		ev := &events[i]
		if ev.Kind != exec.EvRow {
			continue
		}
		if ev.Row.Kind == types.Delete && t.Changelog.KeyOnlyDeletes {
			ev.Row.Fields = keyOnly(t, ev.Row.Fields)
			continue
		}
		for _, c := range t.Relaxed {
			if ev.Row.Fields[c] == nil {
				return sqlmini.Errorf(at(i, c), "column '%s' is %s, but the value is NULL", t.Schema.Columns[c].Name, t.Schema.Columns[c].Type)
			}
		}
	}
	return nil
}

// keyOnly returns the fields of a delete by key: NULL but in key columns.
func keyOnly(t *catalog.Table, fields []any) []any {
	out := make([]any, len(fields))
	for _, k := range t.PrimaryKey {
		out[k] = fields[k]
	}
	return out
}

// kindWatermarkStep is the kind a changelog reader gives a row whose op is
// WATERMARK: not a row but a watermark step at the row's time attribute
// (the file's way of writing time into the data, as VALUES does).
const kindWatermarkStep types.RowKind = 255

// opKind reads an op column value and checks it against the table's mode.
func opKind(t *catalog.Table, v any) (types.RowKind, error) {
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("NULL op code: every changelog row needs a row kind, %s", kindSyntaxHint)
	}
	if strings.EqualFold(strings.TrimSpace(s), "WATERMARK") && t.Watermark != nil {
		return kindWatermarkStep, nil // time written into the data: a step at the row's time
	}
	k, ok := parseOpCode(s)
	if !ok {
		return 0, fmt.Errorf("invalid op code '%s': a row kind is %s", s, kindSyntaxHint)
	}
	if !t.Changelog.Contains(k) {
		return 0, fmt.Errorf("row kind %s (%s) is not in the changelog mode %s of table '%s'; declare it in '%s' (now '%s')",
			k.ShortString(), k, t.Changelog, t.Name, OptChangelog, t.Changelog.ShortString())
	}
	return k, nil
}

// sourceNode is a table given AS VALUES that declares a changelog: its
// rows carry their kinds, and a PRIMARY KEY is its upsert key.
type sourceNode struct {
	*exec.ValuesNode
	mode types.ChangelogMode
	key  []int
}

func (n *sourceNode) Changelog() types.ChangelogMode { return n.mode }
func (n *sourceNode) UpsertKey() []int               { return n.key }

// ChangelogValues plans the rows of a table given AS VALUES.
func ChangelogValues(t *catalog.Table, n *exec.ValuesNode) exec.Node {
	if t.Changelog.IsEmpty() || t.Changelog.IsInsertOnly() {
		return n
	}
	return &sourceNode{ValuesNode: n, mode: t.Changelog, key: t.PrimaryKey}
}

// withChangelog opens a file table's reader with open, given the table
// with the columns its file holds, and for a changelog source wraps it as
// openSourceReader does.
func withChangelog(t *catalog.Table, open func(ft *catalog.Table) (format.RowReader, error)) (format.RowReader, error) {
	if t.SourceSchema.Len() == 0 {
		return open(t)
	}
	ft := *t
	ft.Schema = t.SourceSchema
	r, err := open(&ft)
	if err != nil {
		return nil, err
	}
	c := &changelogReader{r: r, t: t, op: t.SourceSchema.Index(t.Options[OptOpColumn])}
	c.json = t.Options["format"] == "json"
	c.path = TablePath(t)
	c.delim, c.quote = ',', '"'
	if d, _ := charOption(t, "csv.field-delimiter"); d != 0 {
		c.delim = d
	}
	if q, _ := charOption(t, "csv.quote-character"); q != 0 {
		c.quote = q
	}
	c.comments, _ = BoolOption(t, "csv.allow-comments")
	if c.json {
		c.ignore, _ = BoolOption(t, "json.ignore-parse-errors")
	} else {
		c.ignore, _ = BoolOption(t, "csv.ignore-parse-errors")
	}
	return c, nil
}

// changelogReader reads a changelog file: it reads rows with the op
// column, gives each its kind and drops the column. Its bad rows are
// *ParseErrors at the file, line and column of the op value; with the
// format's ignore-parse-errors they are skipped and counted.
type changelogReader struct {
	r        format.RowReader
	t        *catalog.Table
	op       int // the op column's index in the file's rows
	path     string
	json     bool
	delim    byte
	quote    byte
	comments bool
	ignore   bool
	format.SkipStats
}

// Next implements RowReader.
func (c *changelogReader) Next() (types.Row, error) {
	for {
		prev := c.r.Position()
		row, err := c.r.Next()
		if err != nil {
			return types.Row{}, err
		}
		out, perr := c.convert(row, prev)
		if perr == nil {
			return out, nil
		}
		if !c.ignore {
			return types.Row{}, perr
		}
		c.SkipStats.Add(perr)
	}
}

func (c *changelogReader) convert(row types.Row, prev format.SourcePos) (types.Row, *format.ParseError) {
	t := c.t
	kind, err := opKind(t, row.Fields[c.op])
	if err != nil {
		v, _ := row.Fields[c.op].(string)
		return types.Row{}, c.errorAt(prev, c.op, &format.ParseError{Column: t.Options[OptOpColumn], Value: v, Msg: err.Error()})
	}
	f := make([]any, 0, len(row.Fields)-1)
	f = append(f, row.Fields[:c.op]...)
	f = append(f, row.Fields[c.op+1:]...)
	if kind == kindWatermarkStep {
		return types.Row{Kind: kind, Fields: f}, nil
	}
	if kind == types.Delete && t.Changelog.KeyOnlyDeletes {
		return types.Row{Kind: kind, Fields: keyOnly(t, f)}, nil
	}
	for _, col := range t.Relaxed {
		if f[col] == nil {
			i := col
			if i >= c.op {
				i++
			}
			return types.Row{}, c.errorAt(prev, i, &format.ParseError{Column: t.Schema.Columns[col].Name, Msg: notNullByKeyMsg})
		}
	}
	return types.Row{Kind: kind, Fields: f}, nil
}

// Position implements RowReader.
func (c *changelogReader) Position() format.SourcePos { return c.r.Position() }

// Close implements RowReader.
func (c *changelogReader) Close() error { return c.r.Close() }

// Skipped implements SkipReporter: the rows the file reader skipped and
// the rows with a bad op value, the first ones in file order.
func (c *changelogReader) Skipped() (int64, []format.ParseError) {
	n, first := c.SkipStats.Skipped()
	if sr, ok := c.r.(format.SkipReporter); ok {
		m, more := sr.Skipped()
		n += m
		first = append(first, more...)
		sortParseErrors(first)
		if len(first) > format.MaxSkippedKept {
			first = first[:format.MaxSkippedKept]
		}
	}
	return n, first
}

// parseErrorBefore orders errors as a source reads them: by file (a
// folder's files are read in path order), line and column.
func parseErrorBefore(a, b *format.ParseError) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

func sortParseErrors(es []format.ParseError) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && parseErrorBefore(&es[j], &es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// errorAt fills in where a bad row's field stands: the row is the text
// between prev and the reader's position now, read again from the file
// (errors are rare, so their cost does not matter). Field field of the
// file's columns is found by counting CSV fields or by its JSON key; when
// it cannot be found the error points at the start of the row.
func (c *changelogReader) errorAt(prev format.SourcePos, field int, e *format.ParseError) *format.ParseError {
	cur := c.r.Position()
	path := c.path
	if cur.File != "" && cur.File != path { // a file of a folder (folder.go)
		path = cur.File
		if prev.File != cur.File {
			prev = format.SourcePos{File: cur.File}
		}
	}
	e.File, e.Line, e.Col = path, max(prev.Line, 1), 1
	n := cur.Offset - prev.Offset
	if n <= 0 || n > 64<<20 {
		return e
	}
	buf, start, err := format.ReadRange(path, prev.Offset, cur.Offset)
	if err != nil && err != io.ErrUnexpectedEOF {
		return e
	}
	w := &walker{b: buf, line: e.Line, col: int(prev.Offset-start) + 1}
	if prev.Offset == 0 && strings.HasPrefix(string(buf), format.Utf8BOM) {
		w.i = len(format.Utf8BOM)
	}
	w.skipSeparators(c.json, c.comments)
	e.Line, e.Col = w.line, w.col
	var ok bool
	if c.json {
		ok = w.findJSONValue(c.t.SourceSchema.Columns[field].Name)
	} else {
		ok = w.findCSVField(field, c.delim, c.quote)
	}
	if ok {
		e.Line, e.Col = w.line, w.col
	}
	return e
}

// walker steps through the bytes of a row, keeping line and column.
type walker struct {
	b         []byte
	i         int
	line, col int
}

func (w *walker) step() {
	if w.b[w.i] == '\n' {
		w.line++
		w.col = 1
	} else if w.b[w.i]&0xC0 != 0x80 { // count runes, not UTF-8 continuation bytes
		w.col++
	}
	w.i++
}

// skipSeparators moves to the first byte of the row: past blank lines
// (and comments), and for JSON past white space, commas and '['.
func (w *walker) skipSeparators(json, comments bool) {
	for w.i < len(w.b) {
		switch c := w.b[w.i]; {
		case c == '\n' || c == '\r':
		case json && (c == ' ' || c == '\t' || c == ',' || c == '['):
		case !json && comments && c == '#' && w.col == 1:
			for w.i < len(w.b) && w.b[w.i] != '\n' {
				w.step()
			}
			continue
		default:
			return
		}
		w.step()
	}
}

// findCSVField moves to the start of CSV field n of the record.
func (w *walker) findCSVField(n int, delim, quote byte) bool {
	for k := 0; w.i < len(w.b); k++ {
		if k == n {
			return true
		}
		quoted := false
		for w.i < len(w.b) {
			c := w.b[w.i]
			if c == quote {
				quoted = !quoted
			} else if !quoted && (c == '\n' || c == '\r') {
				return false
			} else if !quoted && c == delim {
				w.step()
				break
			}
			w.step()
		}
	}
	return false
}

// findJSONValue moves to the value of the member named key of the object
// the row is.
func (w *walker) findJSONValue(key string) bool {
	depth := 0
	for w.i < len(w.b) {
		c := w.b[w.i]
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			start := w.i + 1
			w.step()
			for w.i < len(w.b) && w.b[w.i] != '"' {
				if w.b[w.i] == '\\' {
					w.step()
				}
				if w.i < len(w.b) {
					w.step()
				}
			}
			name := string(w.b[start:min(w.i, len(w.b))])
			if w.i < len(w.b) {
				w.step()
			}
			if depth != 1 || name != key {
				continue
			}
			for w.i < len(w.b) && strings.IndexByte(" \t\r\n", w.b[w.i]) >= 0 {
				w.step()
			}
			if w.i >= len(w.b) || w.b[w.i] != ':' {
				continue
			}
			w.step()
			for w.i < len(w.b) && strings.IndexByte(" \t\r\n", w.b[w.i]) >= 0 {
				w.step()
			}
			return w.i < len(w.b)
		}
		w.step()
	}
	return false
}
