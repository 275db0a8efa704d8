package format

import (
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"io"
	"strconv"
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
	key []int
	// rows are the rows in materialisation order, gone marks the removed
	// ones; index finds the live ones by key (the upsert key's values or
	// the whole row), oldest first.
	rows   [][]any
	gone   []bool
	index  map[string][]int
	live   int
	widths []int
	cell   []byte
}

// SetUpsertKey tells the printer the result's upsert key (column indexes;
// nil for none). It holds until it is set again.
func (p *tablePrinter) SetUpsertKey(key []int) { p.key = key }

// upsertKeySetter is a Printer that materialises by an upsert key.
type upsertKeySetter interface {
	SetUpsertKey(key []int)
}

// setUpsertKey gives a printer that wants it the upsert key of a result.
func SetUpsertKey(p Printer, key []int) {
	if s, ok := p.(upsertKeySetter); ok {
		s.SetUpsertKey(key)
	}
}

func (p *tablePrinter) Begin(s types.Schema) error {
	p.begin(s)
	p.rows, p.gone, p.index, p.live = nil, nil, map[string][]int{}, 0
	p.widths = p.widths[:0]
	for _, c := range s.Columns {
		p.widths = append(p.widths, max(javaLength(c.Name), tableauTypeWidth(c.Type)))
	}
	return nil
}

func (p *tablePrinter) Row(r types.Row) error {
	if err := p.check(r); err != nil {
		return err
	}
	var k string
	if p.key != nil {
		k = string(keycodec.Encode(keycodec.Pick(r, p.key)))
	} else {
		k = string(keycodec.Encode(r.Fields))
	}
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		if p.key != nil {
			p.removeNewest(k)
		}
		p.index[k] = append(p.index[k], len(p.rows))
		p.rows = append(p.rows, r.Fields)
		p.gone = append(p.gone, false)
		p.live++
	default:
		p.removeNewest(k)
	}
	return nil
}

// removeNewest removes the newest live row of key k, if any.
func (p *tablePrinter) removeNewest(k string) {
	at := p.index[k]
	if len(at) == 0 {
		return
	}
	p.gone[at[len(at)-1]] = true
	p.live--
	if len(at) == 1 {
		delete(p.index, k)
	} else {
		p.index[k] = at[:len(at)-1]
	}
}

func (p *tablePrinter) End() error {
	if err := p.end(); err != nil {
		return err
	}
	if p.live == 0 {
		p.buf = append(p.buf, "Empty set\n"...)
		return p.flush()
	}
	p.buf = appendBorder(p.buf, p.widths)
	p.buf = append(p.buf, '|')
	for i, c := range p.schema.Columns {
		p.buf = appendTableauCell(p.buf, []byte(c.Name), p.widths[i])
	}
	p.buf = append(p.buf, '\n')
	p.buf = appendBorder(p.buf, p.widths)
	if err := p.flush(); err != nil {
		return err
	}
	for i, r := range p.rows {
		if p.gone[i] {
			continue
		}
		p.buf = append(p.buf, '|')
		for c, v := range r {
			p.cell = types.AppendTableValue(p.cell[:0], v, p.schema.Columns[c].Type)
			p.buf = appendTableauCell(p.buf, p.cell, p.widths[c])
		}
		p.buf = append(p.buf, '\n')
		if err := p.flush(); err != nil {
			return err
		}
	}
	p.buf = appendBorder(p.buf, p.widths)
	p.buf = strconv.AppendInt(p.buf, int64(p.live), 10)
	if p.live > 1 {
		p.buf = append(p.buf, " rows in set\n"...)
	} else {
		p.buf = append(p.buf, " row in set\n"...)
	}
	p.rows, p.gone, p.index = nil, nil, nil
	return p.flush()
}
