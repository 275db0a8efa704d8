package session

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The rows format prints one row per line with no header, as Flink's
// Row.toString: at a terminal a person then cannot tell the columns apart,
// nor why one time ends in Z and another does not. So that they can, the
// rows format at a terminal (Config.Timing) names the columns and their
// types on Err before the first row; stdout keeps the rows alone.

// columnsNote is a rows printer that names the columns on err at Begin.
type columnsNote struct {
	format.Printer
	err io.Writer
}

// withColumnsNote wraps the printer of the rows format at a terminal.
func (s *Session) withColumnsNote(p format.Printer, fmtName string) format.Printer {
	if !s.cfg.Timing || fmtName != "rows" {
		return p
	}
	return &columnsNote{Printer: p, err: s.cfg.Err}
}

func (c *columnsNote) Begin(sch types.Schema) error {
	fmt.Fprintln(c.err, columnsLine(sch))
	return c.Printer.Begin(sch)
}

// columnsLine names a result's columns and types, and says how the two
// kinds of timestamps print: columns: name STRING, ts TIMESTAMP_LTZ(3)
// (...).
func columnsLine(sch types.Schema) string {
	var cols []string
	ltz, local := false, false
	for _, c := range sch.Columns {
		cols = append(cols, c.Name+" "+c.Type.String())
		switch c.Type.Kind {
		case types.KindTimestampLTZ:
			ltz = true
		case types.KindTimestamp:
			local = true
		}
	}
	line := "columns: " + strings.Join(cols, ", ")
	var how []string
	if ltz {
		how = append(how, "TIMESTAMP_LTZ: an instant, printed in UTC with a Z, 2025-03-27T12:00:05Z")
	}
	if local {
		how = append(how, "TIMESTAMP: no zone, printed without one, 2001-01-01T07:12")
	}
	if len(how) > 0 {
		line += " (" + strings.Join(how, "; ") + ")"
	}
	return line
}
