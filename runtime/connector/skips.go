package connector

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/format"
)

// reportSkipped adds to the statement's notes (said on stderr after its
// results) how many bad rows the file stream's reader skipped
// ('csv.ignore-parse-errors', 'json.ignore-parse-errors') and where the
// first ones were, with the path as the table gives it. The file stream
// calls it when it reaches the end of the file. For example:
//
//	note: table 'scores' skipped 2 bad rows of 'scores.csv' ('csv.ignore-parse-errors' = 'true'):
//	  scores.csv:2:7: column "score": cannot parse "x" as INT
//	  scores.csv:3:6: column "score": missing value: expected 2 fields (name, score), found 1
func (s *fileStream) reportSkipped() {
	sr, ok := s.r.(format.SkipReporter)
	if !ok || s.n == nil || s.ex == nil {
		return
	}
	n, first := sr.Skipped()
	if n == 0 {
		return
	}
	t := s.n.t
	written := t.Options["path"]
	rows := "rows"
	if n == 1 {
		rows = "row"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "note: table '%s' skipped %d bad %s of '%s' ('%s.ignore-parse-errors' = 'true')", t.Name, n, rows, written, t.Options["format"])
	if len(first) > 0 {
		b.WriteString(":")
	}
	for _, e := range first {
		if pe, ok := fileError(t, &e).(*format.ParseError); ok {
			e = *pe // the path as the table gives it, or a file under its folder
		} else {
			e.File = written
		}
		b.WriteString("\n  " + e.Error())
	}
	if more := n - int64(len(first)); len(first) > 0 && more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	s.ex.Notes = append(s.ex.Notes, b.String())
}
