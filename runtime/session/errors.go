package session

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// FormatError renders an error for a person. The first line is Error(),
// which is one line; what follows depends on the error:
//
//   - an error in a function's source (a SourceError: a JS exception, a
//     syntax error, a limit) shows that source line with a caret under the
//     column; other errors placed in src (a *types.Error)
//     show the line of src with a caret;
//   - an error of a call (a *CallError) says where on a line of its own,
//     "at key (Bob), input row +I[Bob, 12]", instead of in the first line;
//   - then the JavaScript stack, if any.
//
// Example:
//
//	query.sql:4:15: rules.js:3:11: check_score: RangeError: score 142 is too high
//	 |     throw new RangeError(`score ${row.score} is too high`);
//	 |           ^
//	at key (Alice), input row +I[Alice, 142]
//	    at checkScore (rules.js:3:11)
//	    at eval (check.js:7:17)
func FormatError(err error, src string) string {
	msg := err.Error()
	where := ""
	var ce *ptfop.CallError
	if errors.As(err, &ce) {
		if cut := " (at " + ce.Where + ")"; strings.Contains(msg, cut) {
			msg = strings.Replace(msg, cut, "", 1)
			where = ce.Where
		}
	}
	var b strings.Builder
	// An error is for people, wherever it goes: the control characters of
	// what it quotes (data, a thrown message) are escaped, not obeyed.
	b.WriteString(types.EscapeControlsKeep(msg, "\n\t") + "\n")
	var srcErr ptf.SourceError
	shown := false
	if errors.As(err, &srcErr) {
		if line, col, ok := srcErr.SourceLine(); ok {
			writeCaret(&b, line, col, caretWidth)
			shown = true
		}
	}
	if pos, ok := types.PositionOf(err); !shown && ok && src != "" {
		lines := strings.Split(src, "\n")
		if pos.Line <= len(lines) {
			writeCaret(&b, lines[pos.Line-1], pos.Column, 0)
		}
	}
	if where != "" {
		b.WriteString("at " + types.EscapeControls(where) + "\n")
	}
	if srcErr != nil {
		if st := srcErr.JSStack(); st != "" {
			b.WriteString(types.EscapeControlsKeep(strings.TrimRight(st, "\n"), "\n") + "\n")
		}
	}
	return b.String()
}

// caretWidth is how much of a long line of a function's source (minified
// code) is shown around the column.
const caretWidth = 100

// writeCaret writes a source line and a caret under its 1-based column
// (in characters); tabs stay tabs so that the caret lines up. A line
// longer than width characters (0: no limit) is cut around the column.
func writeCaret(b *strings.Builder, text string, col, width int) {
	text = strings.TrimRight(text, "\r\n")
	runes := []rune(text)
	col = min(max(col-1, 0), len(runes))
	prefix, suffix := "", ""
	if width > 0 && len(runes) > width {
		start := max(col-width/2, 0)
		end := min(start+width, len(runes))
		start = max(end-width, 0)
		if start > 0 {
			prefix = "..."
		}
		if end < len(runes) {
			suffix = "..."
		}
		runes, col = runes[start:end], col-start
	}
	pad := make([]byte, 0, col+len(prefix))
	pad = append(pad, strings.Repeat(" ", len(prefix))...)
	for _, r := range runes[:col] {
		switch e := types.EscapeControls(string(r)); {
		case r == '\t':
			pad = append(pad, '\t')
		case e != string(r): // a control character, shown escaped
			pad = append(pad, strings.Repeat(" ", len(e))...)
		default:
			pad = append(pad, ' ')
		}
	}
	line := prefix + types.EscapeControlsKeep(string(runes), "\t") + suffix
	if !utf8.ValidString(line) {
		line = strings.ToValidUTF8(line, "\uFFFD")
	}
	b.WriteString(" | " + line + "\n | " + string(pad) + "^\n")
}
