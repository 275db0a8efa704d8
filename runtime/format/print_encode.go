package format

import (
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Encoding rows apart from printing them: the CSV and JSON printers hand
// out encoders that write a row's line as the printer would, on another
// goroutine, and write the lines they made in one go (WriteEncoded). A
// parallel PTF call's workers encode their output rows so, each on its
// own core, while the rows are still in its cache.

// RowEncoder appends the line a printer writes for a row. An encoder is
// for one goroutine; encoders of the same printer may run concurrently
// with each other and with the printer.
type RowEncoder interface {
	// AppendRow appends row r's line to dst; the error is the one the
	// printer's Row would return for r.
	AppendRow(dst []byte, r types.Row) ([]byte, error)
}

// encodingPrinter is a printer that hands out RowEncoders.
type encodingPrinter interface {
	Printer
	newEncoder() RowEncoder
	isBegun() bool
	writeEncoded(b []byte) error
}

// NewRowEncoder returns an encoder of p's rows, or nil when p's rows are
// not encoded apart (a format other than CSV and JSON, or a printer
// wrapped by another). Call it after Begin: the encoder takes the
// schema and the settings p has then.
func NewRowEncoder(p Printer) RowEncoder {
	e, ok := p.(encodingPrinter)
	if !ok || !e.isBegun() {
		return nil
	}
	return e.newEncoder()
}

// WriteEncoded writes lines that p's encoders made, with one Write, as
// Row would have written them one by one.
func WriteEncoded(p Printer, b []byte) error {
	e, ok := p.(encodingPrinter)
	if !ok {
		return fmt.Errorf("%T printer: encoded rows it cannot write", p)
	}
	return e.writeEncoded(b)
}

func (p *printerBase) isBegun() bool { return p.begun }

// encoderBase is the base of an encoder of p: its schema and settings,
// and no writer.
func (p *printerBase) encoderBase() printerBase {
	return printerBase{name: p.name, schema: p.schema, begun: p.begun, maxWidth: p.maxWidth, escape: p.escape, zone: p.zone}
}

func (p *printerBase) writeEncoded(b []byte) error {
	if !p.begun {
		return fmt.Errorf("%s printer: rows before begin", p.name)
	}
	if len(b) == 0 {
		return nil
	}
	_, err := p.w.Write(b)
	return err
}

func (p *csvPrinter) AppendRow(dst []byte, r types.Row) ([]byte, error) {
	p.buf = dst
	err := p.appendRow(r)
	dst, p.buf = p.buf, nil
	return dst, err
}

func (p *jsonPrinter) AppendRow(dst []byte, r types.Row) ([]byte, error) {
	p.buf = dst
	err := p.appendRow(r)
	dst, p.buf = p.buf, nil
	return dst, err
}
