package sqlmini

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// Hint is a table hint, Flink's /*+ NAME(...) */ right after a table's
// name in FROM: OPTIONS('key' = 'value', ...) gives options that override
// the table's WITH options for that scan; other hints keep their
// arguments as written.
type Hint struct {
	Pos  Pos
	Name string
	// Options are OPTIONS' key-value pairs, in order.
	Options []*Option
	// Args are the arguments of any other hint, as written.
	Args []string
}

// String prints the hint as NAME(...).
func (h *Hint) String() string {
	var b strings.Builder
	b.WriteString(h.Name)
	b.WriteString("(")
	for i, o := range h.Options {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteString(string(o.Key)) + "=" + quoteString(string(o.Value)))
	}
	b.WriteString(strings.Join(h.Args, ", "))
	b.WriteString(")")
	return b.String()
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// readHints gives each table of FROM in st the hints of a /*+ ... */
// comment right after its name. The lexer drops comments, hints among
// them, so that a hint elsewhere is ignored; text is the statement's
// source, which starts at offset start.
func readHints(st *Statement, text string, start int) error {
	var err error
	Walk(st, func(n any) bool {
		f, ok := n.(*FromItem)
		if !ok || f.Table == nil || err != nil {
			return err == nil
		}
		at := f.Table.Pos.Offset - start
		if at < 0 || at >= len(text) {
			return true
		}
		i := at
		if text[i] == '`' {
			for i++; i < len(text); i++ {
				if text[i] == '`' {
					if i+1 < len(text) && text[i+1] == '`' {
						i++
						continue
					}
					i++
					break
				}
			}
		} else {
			for i < len(text) && (text[i] == '_' || text[i] == '$' || text[i] >= 0x80 || 'a' <= text[i]|0x20 && text[i]|0x20 <= 'z' || '0' <= text[i] && text[i] <= '9') {
				i++
			}
		}
		for i < len(text) && strings.IndexByte(" \t\r\n\f", text[i]) >= 0 {
			i++
		}
		if !strings.HasPrefix(text[i:], "/*+") {
			return true
		}
		close := strings.Index(text[i:], "*/")
		if close < 0 {
			return true
		}
		pos := f.Table.Pos
		for _, r := range text[at:i] {
			if r == '\n' {
				pos.Line++
				pos.Column = 1
			} else {
				pos.Column++
			}
		}
		pos.Offset += i - at
		f.Hints, err = parseHints(pos, text[i+3:i+close])
		return err == nil
	})
	return err
}

// parseHints reads the inside of a hint comment at t: NAME(args) [,
// NAME(args)], where OPTIONS' arguments are 'key' = 'value' pairs.
func parseHints(t Pos, src string) ([]*Hint, error) {
	toks, err := lexAll("", src)
	if err != nil {
		return nil, hintErr(t, "%v", err)
	}
	var ts []lexer.Token
	for _, x := range toks {
		if !x.EOF() {
			ts = append(ts, x)
		}
	}
	var out []*Hint
	i := 0
	next := func() string {
		if i < len(ts) {
			i++
			return ts[i-1].Value
		}
		return ""
	}
	peek := func() string {
		if i < len(ts) {
			return ts[i].Value
		}
		return ""
	}
	for {
		name := next()
		if name == "" || !isWord(name) {
			return nil, hintErr(t, "a hint is NAME(...), such as OPTIONS('key' = 'value'); found %q", name)
		}
		h := &Hint{Pos: t, Name: upper(name)}
		if next() != "(" {
			return nil, hintErr(t, "hint %s needs its arguments in parentheses", h.Name)
		}
		for peek() != ")" {
			if peek() == "" {
				return nil, hintErr(t, "hint %s: missing ')'", h.Name)
			}
			if h.Name == "OPTIONS" {
				k := next()
				if !strings.HasPrefix(k, "'") || next() != "=" || !strings.HasPrefix(peek(), "'") {
					return nil, hintErr(t, "OPTIONS takes 'key' = 'value' pairs, such as OPTIONS('csv.ignore-parse-errors' = 'true')")
				}
				h.Options = append(h.Options, &Option{Pos: h.Pos, Key: Str(unquoteString(k)), Value: Str(unquoteString(next()))})
			} else {
				h.Args = append(h.Args, next())
			}
			if peek() == "," {
				next()
			}
		}
		next()
		out = append(out, h)
		switch peek() {
		case "":
			return out, nil
		case ",":
			next()
		default:
			return nil, hintErr(t, "hints are separated by commas: /*+ A(...), B(...) */; found %q", peek())
		}
	}
}

func isWord(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

func hintErr(t Pos, format string, args ...any) error {
	return Errorf(t, format, args...)
}
