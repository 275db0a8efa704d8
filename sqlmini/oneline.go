package sqlmini

import "strings"

// OneLine returns a statement of several lines on one line that reads as
// the same statement, for a history that keeps one statement a line:
// whitespace that holds a line break becomes one space, a -- comment
// becomes a /* */ comment (it would otherwise swallow the rest of the
// line), a /* */ comment loses its line breaks, and strings, quoted
// names and $$ bodies stay byte for byte. ok is false when the statement
// cannot be put on one line without changing it: a string, quoted name
// or $$ body that holds a line break (JavaScript gives meaning to the
// line breaks of a function body), or source that does not lex.
func OneLine(src string) (line string, ok bool) {
	lex, err := sqlLexer.LexString("", src)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	for {
		tok, err := lex.Next()
		if err != nil {
			return "", false
		}
		if tok.EOF() {
			break
		}
		v := tok.Value
		switch tok.Type {
		case wsType:
			if strings.ContainsAny(v, "\r\n") {
				v = " "
			}
		case commentType:
			if text, isLine := strings.CutPrefix(v, "--"); isLine {
				v = "/*" + strings.ReplaceAll(text, "*/", "* /") + " */"
			} else {
				v = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(v)
			}
		case unterminatedType:
			return "", false
		default:
			if strings.ContainsAny(v, "\r\n") {
				return "", false
			}
		}
		b.WriteString(v)
	}
	return strings.TrimSpace(b.String()), true
}
