package expr

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// compileSimilar is s [NOT] SIMILAR TO pattern [ESCAPE c] (args: s,
// pattern, c), Flink's: the pattern, read as Flink (Calcite) reads it
// (similarRegexp), must match the whole string. A constant pattern is
// translated once, when the statement is planned; others once per
// distinct pattern (up to similarCacheSize of them).
func compileSimilar(pos sqlmini.Pos, negated bool, args []Expr) (Expr, error) {
	var mu sync.Mutex
	cache := map[string]*regexp.Regexp{} // by pattern + "\x00" + escape
	compile := func(pattern, escape string, hasEscape bool) (*regexp.Regexp, error) {
		key := pattern + "\x00" + escape
		mu.Lock()
		re := cache[key]
		mu.Unlock()
		if re != nil {
			return re, nil
		}
		var esc rune = -1
		if hasEscape {
			if utf8.RuneCountInString(escape) != 1 {
				return nil, sqlmini.Errorf(pos, "SIMILAR TO: the ESCAPE string must be one character, not '%s'", escape)
			}
			esc, _ = utf8.DecodeRuneInString(escape)
		}
		src, err := similarRegexp(pattern, esc)
		if err != nil {
			return nil, sqlmini.Errorf(pos, "SIMILAR TO: %v", err)
		}
		re, err = regexp.Compile(`\A(?:` + src + `)\z`)
		if err != nil {
			return nil, sqlmini.Errorf(pos, "SIMILAR TO: invalid regular expression '%s': %v", pattern, err)
		}
		mu.Lock()
		if len(cache) < similarCacheSize {
			cache[key] = re
		}
		mu.Unlock()
		return re, nil
	}
	eval := func(v []any) (any, error) {
		escape, hasEscape := "", len(v) == 3
		if hasEscape {
			escape = v[2].(string)
		}
		re, err := compile(v[1].(string), escape, hasEscape)
		if err != nil {
			return nil, err
		}
		return re.MatchString(v[0].(string)) != negated, nil
	}
	if allConstant(args[1:]...) {
		// A bad constant pattern is an error of the statement, before a row.
		vals := []any{""}
		for _, a := range args[1:] {
			x, err := a.Eval(nil)
			if err != nil {
				return nil, err
			}
			vals = append(vals, x)
		}
		if !slices.Contains(vals, nil) {
			if _, err := eval(vals); err != nil {
				return nil, err
			}
		}
	}
	return strict(types.TypeBoolean, false, args, eval), nil
}

// similarCacheSize bounds the patterns a SIMILAR TO keeps translated.
const similarCacheSize = 256

// The characters a SIMILAR TO pattern gives a meaning of its own, which
// the escape character makes plain.
const similarSpecials = "[]()|^-+*_%?{}"

// similarClasses are the named classes of a pattern's [...], as Flink
// (Calcite) reads them, in RE2's syntax.
var similarClasses = map[string]string{
	"[:ALPHA:]": "[:alpha:]", "[:alpha:]": "[:alpha:]",
	"[:UPPER:]": "A-Z", "[:upper:]": "A-Z",
	"[:LOWER:]": "a-z", "[:lower:]": "a-z",
	"[:DIGIT:]": "0-9", "[:digit:]": "0-9",
	"[:SPACE:]": " ", "[:space:]": " ",
	"[:WHITESPACE:]": `\s`, "[:whitespace:]": `\s`,
	"[:ALNUM:]": "[:alnum:]", "[:alnum:]": "[:alnum:]",
}

type similarError string

func (e similarError) Error() string { return string(e) }

// similarRegexp translates a SIMILAR TO pattern into an RE2 expression with
// the rules of Flink's translation (Calcite's Like.sqlToRegexSimilar, which
// Flink's SqlLikeUtils repeats): _ is any character and % any characters;
// [...] is a set of characters, with ranges (a-z), negation (^) and the
// named classes of similarClasses; |, *, +, ?, {m,n}, ( and ) keep their
// meaning in a regular expression, and so, as in Flink, do . and ^; \ and $
// are plain characters; the escape character (esc, -1 for none) makes the
// next special character, or itself, plain.
func similarRegexp(pattern string, esc rune) (string, error) {
	invalidSeq := similarError("invalid escape sequence in '" + pattern + "'")
	invalid := similarError("invalid regular expression '" + pattern + "'")
	special := func(r rune) bool { return strings.ContainsRune(similarSpecials, r) }
	pr := []rune(pattern)
	if esc >= 0 && special(esc) {
		// An escape character that is special itself must escape (SQL
		// 2003 Part 2, 8.6, General Rule 3.b).
		for i, r := range pr {
			if r == esc && (i+1 == len(pr) || !special(pr[i+1]) && pr[i+1] != esc) {
				return "", invalidSeq
			}
		}
	}
	if esc == ':' && strings.Contains(pattern, "[:") && !strings.Contains(pattern, ":]") {
		return "", invalidSeq
	}
	var b strings.Builder
	for i := 0; i < len(pr); i++ {
		r := pr[i]
		switch {
		case esc >= 0 && r == esc:
			if i+1 == len(pr) || !special(pr[i+1]) && pr[i+1] != esc {
				return "", invalidSeq
			}
			i++
			b.WriteString(regexp.QuoteMeta(string(pr[i])))
		case r == '_':
			b.WriteByte('.')
		case r == '%':
			b.WriteString(".*")
		case r == '[':
			end, err := similarSet(&b, pr, i, esc, invalid)
			if err != nil {
				return "", err
			}
			i = end
		case r == ']':
			return "", invalid
		case r == '\\' || r == '$':
			b.WriteString(regexp.QuoteMeta(string(r)))
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), nil
}

// similarSet writes the set of characters that starts at pr[at] ('[') and
// returns the index of its ']'.
func similarSet(b *strings.Builder, pr []rune, at int, esc rune, invalid error) (int, error) {
	b.WriteByte('[')
	for i := at + 1; i < len(pr); i++ {
		r := pr[i]
		switch {
		case r == ']':
			b.WriteByte(']')
			return i, nil
		case esc >= 0 && r == esc:
			if i+1 == len(pr) || !strings.ContainsRune(similarSpecials, pr[i+1]) && pr[i+1] != esc {
				return 0, invalid
			}
			i++
			b.WriteString(regexp.QuoteMeta(string(pr[i])))
		case r == '-' || r == '^':
			b.WriteRune(r)
		case r == '[' && i+1 < len(pr) && pr[i+1] == ':':
			rest := string(pr[i:])
			found := false
			for name, class := range similarClasses {
				if strings.HasPrefix(rest, name) {
					b.WriteString(class)
					i += utf8.RuneCountInString(name) - 1
					found = true
					break
				}
			}
			if !found {
				return 0, invalid
			}
		case strings.ContainsRune(similarSpecials, r):
			return 0, invalid
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return 0, invalid // no ]
}
