package format

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// NewTablePrinter returns a printer of the Flink SQL client's table result
// mode (SET 'sql-client.execution.result-mode' = 'table'): it materialises
// the changelog and prints the final table when the result ends. The
// client shows that table in a full-screen view; ptfsh, which prints once
// at the end, prints it in the tableau layout of the default mode without
// the op column (as Flink prints a bounded result of batch mode), with
// the same type-derived widths and footer:
//
//	+--------------------------------+----------------------+
//	|                           name |               EXPR$1 |
//	+--------------------------------+----------------------+
//	|                          Alice |                    1 |
//	|                            Bob |                    2 |
//	+--------------------------------+----------------------+
//	2 rows in set
//
// Rows are kept in the order of the client's materialisation
// (MaterializedCollectStreamResult): +I and +U append a row, -U and -D
// remove the newest row equal to theirs (a retraction that matches no row
// is ignored). When the result has an upsert key (SetUpsertKey) -U, +U,
// +I and -D match the row of their key instead, so that an upsert
// changelog (+U without -U, deletes that carry only the key) materialises
// too: an update replaces the row of its key and moves it to the end.
func NewTablePrinter(w io.Writer) Printer {
	return &tablePrinter{printerBase: printerBase{name: "table", w: w}}
}

type tablePrinter struct {
	printerBase
	m      materializer
	widths []int
	cell   []byte
	// live: Refresh draws the table so far (a terminal); drawn is how many
	// lines the last drawing took, changed whether a row came since.
	live    bool
	drawn   int
	changed bool
}

// Refresher is a printer that can show its result so far while the query
// runs: the table mode on a terminal redraws its table in place, as the
// Flink SQL client's table mode refreshes its view.
type Refresher interface {
	// Refresh draws the result so far, in place of the last drawing, if
	// it changed since.
	Refresh() error
	// Leave leaves the last drawing where it is: something else was
	// written below it (a note, a line a function printed), and the next
	// drawing goes below that.
	Leave()
}

// Leave implements Refresher.
func (p *tablePrinter) Leave() {
	if p.drawn > 0 {
		p.drawn = 0
		p.changed = true
	}
}

// SetLiveRefresh makes a table-mode printer redraw its table in place at
// each Refresh (ANSI cursor movements: for a terminal only). Other
// printers print as rows come, and take no refresh.
func SetLiveRefresh(p Printer, on bool) {
	if t, ok := p.(*tablePrinter); ok {
		t.live = on
	}
}

// liveRows is how many rows, the newest, a drawing of the table so far
// shows; the final table shows them all.
const liveRows = 40

// Refresh implements Refresher.
func (p *tablePrinter) Refresh() error {
	if !p.live || !p.changed || !p.begun {
		return nil
	}
	p.changed = false
	p.erase()
	n, err := p.draw(liveRows)
	p.drawn = n
	if err != nil {
		return err
	}
	return p.flush()
}

// erase moves the cursor up over the last drawing and clears to the end
// of the screen.
func (p *tablePrinter) erase() {
	if p.drawn > 0 {
		p.buf = fmt.Appendf(p.buf, "\x1b[%dA\x1b[J", p.drawn)
		p.drawn = 0
	}
}

// draw writes the table, its newest limit rows (0: all), and returns the
// lines it takes; the rows go out as they are made, so that a large table
// needs no buffer of its size.
func (p *tablePrinter) draw(limit int) (int, error) {
	if p.m.live == 0 {
		p.buf = append(p.buf, "Empty set\n"...)
		return 1, nil
	}
	lines := 5 // the borders, the header and the count
	p.buf = appendBorder(p.buf, p.widths)
	p.buf = append(p.buf, '|')
	for i, c := range p.schema.Columns {
		p.buf = appendTableauCell(p.buf, []byte(p.name(c.Name)), p.widths[i])
	}
	p.buf = append(p.buf, '\n')
	p.buf = appendBorder(p.buf, p.widths)
	skip := 0
	if limit > 0 && p.m.live > limit {
		skip = p.m.live - limit
	}
	i := 0
	for e := p.m.head; e != nil; e = e.next {
		if i++; i <= skip {
			continue
		}
		r := e.fields
		p.buf = append(p.buf, '|')
		for c, v := range r {
			p.cell = types.AppendTableValue(p.cell[:0], p.cellValue(v, p.schema.Columns[c].Type), p.schema.Columns[c].Type)
			p.buf = appendTableauCell(p.buf, p.escaped(p.cell), p.widths[c])
		}
		p.buf = append(p.buf, '\n')
		lines++
		if len(p.buf) > 64<<10 {
			if err := p.flush(); err != nil {
				return lines, err
			}
		}
	}
	p.buf = appendBorder(p.buf, p.widths)
	p.buf = strconv.AppendInt(p.buf, int64(p.m.live), 10)
	if p.m.live > 1 {
		p.buf = append(p.buf, " rows in set"...)
	} else {
		p.buf = append(p.buf, " row in set"...)
	}
	if skip > 0 {
		p.buf = fmt.Appendf(p.buf, " (the newest %d shown while the query runs)", limit)
	}
	p.buf = append(p.buf, '\n')
	return lines, nil
}

// SetUpsertKey tells the printer the result's upsert key (column indexes;
// nil for none). It holds until it is set again.
func (p *tablePrinter) SetUpsertKey(key []int) { p.m.key = key }

// upsertKeySetter is a Printer that materialises by an upsert key.
type upsertKeySetter interface {
	SetUpsertKey(key []int)
}

// SetUpsertKey gives a printer that wants it the upsert key of a result.
func SetUpsertKey(p Printer, key []int) {
	if s, ok := p.(upsertKeySetter); ok {
		s.SetUpsertKey(key)
	}
}

func (p *tablePrinter) Begin(s types.Schema) error {
	p.begin(s)
	p.m.reset()
	p.widths = p.widths[:0]
	for _, c := range s.Columns {
		p.widths = append(p.widths, max(javaLength(p.name(c.Name)), tableauTypeWidth(c.Type, p.maxWidth)))
	}
	return nil
}

// name is a column's name as the printer shows it.
func (p *tablePrinter) name(n string) string {
	if p.escape {
		return types.EscapeControls(n)
	}
	return n
}

func (p *tablePrinter) Row(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	if err := p.m.row(r); err != nil {
		return err
	}
	p.changed = true
	return nil
}

// materializer keeps the rows of a changelog's final table, in the order
// of the Flink SQL client's materialisation: +I and +U append a row, -U
// and -D remove the newest row equal to theirs (by the upsert key when
// there is one; a retraction that matches no row is ignored). It holds
// only the live rows: a doubly linked list in materialisation order, and
// an index from each key to its live rows, oldest first. Memory is the
// final table's (at most the largest table along the way), however many
// changes made it.
type materializer struct {
	key        []int
	head, tail *liveRow
	index      map[string][]*liveRow
	live       int
	max        int64 // the most live rows kept (SetMaxTableRows); 0: no limit
}

// SetMaxTableRowsKey is the Flink SQL client's setting of the rows the
// table result mode keeps.
const SetMaxTableRowsKey = "sql-client.execution.max-table-result.rows"

// SetMaxTableRows bounds the live rows a printer of the table result mode
// keeps to n (0: no limit): a result with more stops with an error that
// names the setting. Flink's client keeps the newest n and drops older
// rows; ptfsh does not show a table with rows silently missing. Other
// printers ignore it.
func SetMaxTableRows(p Printer, n int64) {
	if s, ok := p.(interface{ setMaxTableRows(int64) }); ok {
		s.setMaxTableRows(n)
	}
}

func (p *tablePrinter) setMaxTableRows(n int64)         { p.m.max = n }
func (p *materializingPrinter) setMaxTableRows(n int64) { p.m.max = n }

// tooManyRows is the error of a result past the bound.
func (m *materializer) tooManyRows() error {
	return fmt.Errorf("the table result mode keeps the result's final rows in memory to print them, and this result has more than %d; SET '%s' to a larger number ('0': no limit), or print the changes as they come (SET 'sql-client.execution.result-mode' = 'tableau' or 'changelog')",
		m.max, SetMaxTableRowsKey)
}

type liveRow struct {
	fields     []any
	prev, next *liveRow
}

func (m *materializer) reset() {
	m.head, m.tail, m.index, m.live = nil, nil, map[string][]*liveRow{}, 0
}

func (m *materializer) row(r types.Row) error {
	if m.index == nil {
		m.reset()
	}
	var k string
	if m.key != nil {
		k = string(keycodec.Encode(keycodec.Pick(r, m.key)))
	} else {
		k = string(keycodec.Encode(r.Fields))
	}
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		if m.key != nil {
			m.removeNewest(k)
		}
		// A copy: the runtime may reuse a row's slice once it is passed on.
		e := &liveRow{fields: append([]any(nil), r.Fields...), prev: m.tail}
		if m.tail != nil {
			m.tail.next = e
		} else {
			m.head = e
		}
		m.tail = e
		m.index[k] = append(m.index[k], e)
		m.live++
		if m.max > 0 && int64(m.live) > m.max {
			return m.tooManyRows()
		}
	default:
		m.removeNewest(k)
	}
	return nil
}

// removeNewest removes the newest live row of key k, if any.
func (m *materializer) removeNewest(k string) {
	at := m.index[k]
	if len(at) == 0 {
		return
	}
	e := at[len(at)-1]
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		m.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		m.tail = e.prev
	}
	m.live--
	if len(at) == 1 {
		delete(m.index, k)
	} else {
		at[len(at)-1] = nil
		m.index[k] = at[:len(at)-1]
	}
}

// held is the number of rows the materializer holds (its tests check
// that it is the final table's).
func (m *materializer) held() int {
	n := 0
	for e := m.head; e != nil; e = e.next {
		n++
	}
	return n
}

// NewMaterializing returns a printer of the table result mode in another
// format: it materialises the changelog (by key, the result's upsert key,
// or the whole row when key is nil) and at the end hands the final rows,
// as inserts, to p. Memory is bounded by the final table.
func NewMaterializing(p Printer, key []int) Printer {
	return &materializingPrinter{out: p, m: materializer{key: key}}
}

type materializingPrinter struct {
	out    Printer
	m      materializer
	schema types.Schema
	begun  bool
}

// SetEscapeControls passes the setting on to the printer of the rows.
func (p *materializingPrinter) SetEscapeControls(on bool) { SetEscapeControls(p.out, on) }

func (p *materializingPrinter) Begin(s types.Schema) error {
	p.schema, p.begun = s, true
	p.m.reset()
	return nil
}

func (p *materializingPrinter) Row(r types.Row) error {
	if !p.begun {
		return fmt.Errorf("table printer: row before begin")
	}
	if len(r.Fields) != len(p.schema.Columns) {
		return fmt.Errorf("table printer: row has %d fields, schema has %d columns", len(r.Fields), len(p.schema.Columns))
	}
	return p.m.row(r)
}

func (p *materializingPrinter) End() error {
	if !p.begun {
		return fmt.Errorf("table printer: end before begin")
	}
	p.begun = false
	if err := p.out.Begin(p.schema); err != nil {
		return err
	}
	for e := p.m.head; e != nil; e = e.next {
		if err := p.out.Row(types.Row{Kind: types.Insert, Fields: e.fields}); err != nil {
			return err
		}
	}
	p.m.reset()
	return p.out.End()
}

func (p *tablePrinter) End() error {
	if err := p.end(); err != nil {
		return err
	}
	p.erase()
	if _, err := p.draw(0); err != nil {
		return err
	}
	p.m.reset()
	p.changed = false
	return p.flush()
}
