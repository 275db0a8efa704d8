package session

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// printMeta prints the result of SHOW, DESCRIBE and SET as the Flink SQL
// client does: a bordered table, values right-aligned, and a row count.
func printMeta(w io.Writer, header []string, rows [][]string) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, "Empty set\n")
		return err
	}
	// A meta table is for people, wherever it goes: the control
	// characters of its cells (data in SHOW STATE, a name) are escaped.
	esc := make([][]string, len(rows))
	for i, r := range rows {
		esc[i] = make([]string, len(r))
		for j, v := range r {
			esc[i][j] = types.EscapeControls(v)
		}
	}
	rows = esc
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = format.DisplayWidth([]byte(h))
	}
	for _, r := range rows {
		for i, v := range r {
			widths[i] = max(widths[i], format.DisplayWidth([]byte(v)))
		}
	}
	var b strings.Builder
	border := func() {
		for _, wd := range widths {
			b.WriteString("+" + strings.Repeat("-", wd+2))
		}
		b.WriteString("+\n")
	}
	line := func(vals []string) {
		for i, v := range vals {
			b.WriteString("| " + strings.Repeat(" ", widths[i]-format.DisplayWidth([]byte(v))) + v + " ")
		}
		b.WriteString("|\n")
	}
	border()
	line(header)
	border()
	for _, r := range rows {
		line(r)
	}
	border()
	if len(rows) == 1 {
		b.WriteString("1 row in set\n")
	} else {
		fmt.Fprintf(&b, "%d rows in set\n", len(rows))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
