package runtime

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

// suggestTable proposes a table name close to a misspelled one.
func (s *Session) suggestTable(name string) string {
	return suggest(name, s.cat.TableNames())
}

// suggestFunction proposes a function name close to a misspelled one.
func (s *Session) suggestFunction(name string) string {
	return suggest(name, s.cat.FunctionNames(false))
}

func (s *Session) suggestAny(name string) string {
	return suggest(name, append(s.cat.TableNames(), s.cat.FunctionNames(false)...))
}

func suggest(name string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(name), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean '%s'?)", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
