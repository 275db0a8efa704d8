package session

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/format"
)

// printMeta prints the result of SHOW, DESCRIBE and SET as the Flink SQL
// client does: a bordered table, values right-aligned, and a row count.
func printMeta(w io.Writer, header []string, rows [][]string) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, "Empty set\n")
		return err
	}
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
