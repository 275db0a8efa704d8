package sqlmini

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// reserved lists the words that cannot be plain identifiers; quote them
// with backquotes (`count`) to use them as names. Every other word
// (FUNCTION names, TEMPORARY, WATERMARK, type names) is an identifier that
// the grammar matches by value.
var reserved = []string{
	"ALL", "AND", "ARRAY", "AS", "ASC", "BY", "CAST", "CREATE", "DEFAULT",
	"DESC", "DESCRIBE", "DESCRIPTOR", "DISTINCT", "DROP", "EXPLAIN", "FALSE", "FROM",
	"GROUP", "IN", "INSERT", "INTERVAL", "INTO", "IS", "LIMIT", "MAP", "NOT",
	"NULL", "OR", "ORDER", "PARTITION", "RESET", "ROW", "SELECT", "SET",
	"SHOW", "TABLE", "TRUE", "UNION", "VALUES", "WHERE", "WITH",
}

// IsReserved reports whether word (any case) is a reserved word.
func IsReserved(word string) bool {
	u := strings.ToUpper(word)
	for _, r := range reserved {
		if r == u {
			return true
		}
	}
	return false
}

var sqlLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Comment", Pattern: `--[^\n]*|/\*(?:[^*]|\*+[^*/])*\*+/`},
	{Name: "Whitespace", Pattern: `[ \t\r\n\f]+`},
	{Name: "Body", Pattern: `\$\$(?:[^$]|\$[^$])*\$\$`},
	{Name: "String", Pattern: `'(?:[^']|'')*'`},
	{Name: "QIdent", Pattern: "`(?:[^`]|``)*`"},
	// An opening quote, $$ or /* that the rules above could not close. It
	// is a token rather than a lexer error so that Split and Complete see
	// it (without it, an unclosed /* would lex as the operators / and *).
	{Name: "Unterminated", Pattern: "'|`|\\$\\$|/\\*"},
	{Name: "Number", Pattern: `(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`},
	{Name: "Keyword", Pattern: `(?i)\b(?:` + strings.Join(reserved, "|") + `)\b`},
	{Name: "Ident", Pattern: `[\p{L}_][\p{L}\p{N}_]*`},
	{Name: "Op", Pattern: `=>|<>|!=|<=|>=|\|\||[-+*/%=<>(),;.\[\]]`},
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
