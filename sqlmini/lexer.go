package sqlmini

import (
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// reserved lists the words that cannot be plain identifiers; quote them
// with backquotes (`count`) to use them as names. Every other word
// (FUNCTION names, TEMPORARY, WATERMARK, type names, and ASC, DESC, MAP
// and DESCRIPTOR, which Flink does not reserve either) is an identifier
// that the grammar matches by value.
var reserved = []string{
	"ALL", "AND", "ARRAY", "AS", "BOTH", "BY", "CASE", "CAST", "CREATE", "CROSS",
	"DEFAULT", "DESCRIBE", "DISTINCT", "DROP", "ELSE", "END",
	"EXCEPT", "EXPLAIN", "FALSE", "FETCH", "FROM", "FULL", "GROUP", "HAVING", "IN", "INNER", "INSERT",
	"INTERSECT", "INTERVAL", "INTO", "IS", "JOIN", "LATERAL", "LEADING", "LIMIT", "MATCH_RECOGNIZE", "MINUS", "NATURAL",
	"NOT", "NULL", "OFFSET", "OR", "ORDER", "OUTER", "OVER", "PARTITION", "RESET", "ROW",
	"SELECT", "SET", "SHOW", "SIMILAR", "TABLE", "THEN", "TRAILING", "TRUE", "UNION", "VALUES",
	"WHEN", "WHERE", "WINDOW", "WITH",
}

var reservedSet = func() map[string]bool {
	m := make(map[string]bool, len(reserved))
	for _, r := range reserved {
		m[r] = true
	}
	return m
}()

// IsReserved reports whether word (any case) is a reserved word. Case is
// compared as participle compares keywords, by Unicode simple folding
// (strings.EqualFold).
func IsReserved(word string) bool {
	if reservedSet[upper(word)] {
		return true
	}
	for i := 0; i < len(word); i++ {
		if word[i] >= utf8.RuneSelf { // rare: a word such as ſelect folds to SELECT
			for _, r := range reserved {
				if strings.EqualFold(word, r) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// upper upper-cases ASCII letters only. The printer uses it for words that
// must not turn into other words (Unicode upper-cases 'ı' to 'I').
func upper(s string) string {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'a' <= b[j] && b[j] <= 'z' {
					b[j] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

var sqlLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `--[^\n]*|/\*(?:[^*]|\*+[^*/])*\*+/`},
	{Name: "Whitespace", Pattern: `[ \t\r\n\f]+`},
	{Name: "Body", Pattern: `\$\$(?:[^$]|\$[^$])*\$\$`},
	// X'0A0B': a binary string literal (before Ident, which would take
	// the X). Its digits are checked when it is captured (HexLit).
	{Name: "Hex", Pattern: `[xX]'[^']*'`},
	{Name: "String", Pattern: `'(?:[^']|'')*'`},
	{Name: "QIdent", Pattern: "`(?:[^`]|``)*`"},
	// An opening quote, $$ or /* that the rules above could not close. It
	// is a token rather than a lexer error so that Split and Complete see
	// it (without it, an unclosed /* would lex as the operators / and *).
	{Name: "Unterminated", Pattern: "'|`|\\$\\$|/\\*"},
	{Name: "Number", Pattern: `(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`},
	{Name: "Ident", Pattern: `[\p{L}_][\p{L}\p{N}_$]*`}, // $ as Calcite allows: EXPR$0
	// Keyword matches no input: lexAll gives this type to the Ident tokens
	// that are reserved words. A rule matching the words themselves would
	// need a Unicode word boundary after them, which RE2 lacks (its \b is
	// ASCII-only, so `notícia` would lex as NOT and ícia).
	{Name: "Keyword", Pattern: `[^\s\S]`},
	// ? { } | ^ $ are MATCH_RECOGNIZE's pattern operators.
	{Name: "Op", Pattern: `=>|<>|!=|<=|>=|\|\||[-+*/%=<>(),;.\[\]?{}|^$]`},
})

// unquoteString turns a SQL string literal 'it”s' into its value.
func unquoteString(s string) string {
	if len(s) >= 2 && s[0] == '\'' {
		s = s[1 : len(s)-1]
	}
	return strings.ReplaceAll(s, "''", "'")
}

// unquoteIdent turns `a“b` into a`b; other identifiers stay as written.
func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '`' {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}
