package main

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/settings"
)

// keywords offered by tab completion, besides tables and functions.
var keywords = []string{
	"CREATE", "FUNCTION", "TEMPORARY", "VIEW", "TABLE", "LANGUAGE", "JAVASCRIPT",
	"DROP", "SHOW", "FUNCTIONS", "TABLES", "VIEWS", "USER", "DESCRIBE", "SELECT",
	"FROM", "WHERE", "LIMIT", "OFFSET", "FETCH", "ROWS", "ONLY", "NATURAL", "JOIN", "WITH", "AS", "VALUES", "PARTITION", "ORDER", "BY",
	"DEFAULT", "DESCRIPTOR", "INTERVAL", "TIMESTAMP", "SET", "RESET", "EXPLAIN",
	"INSERT", "INTO", "UNION", "ALL", "AND", "OR", "NOT", "IN", "IS", "NULL",
	"WATERMARK", "FOR", "PRIMARY", "KEY", "ENFORCED", "IF", "EXISTS",
	"OR", "REPLACE", "EXTENDED", "LIKE", "ILIKE", "PLAN", "TIMELINE", "WHY", "STREAM", "ADVANCE", "HELP", "QUIT", "EXIT",
	"CASE", "WHEN", "THEN", "ELSE", "END", "BETWEEN", "SYMMETRIC", "ESCAPE", "CAST", "TRY_CAST",
	"DISTINCT", "GROUP", "HAVING", "ASC", "DESC", "NULLS", "FIRST", "LAST", "OVERWRITE",
	"TRUE", "FALSE", "UNKNOWN", "LEADING", "TRAILING", "BOTH", "STATEMENT", "EXECUTE", "BEGIN", "JOBS",
}

// setKey and setValue match a SET or RESET whose quoted key, and a SET
// whose quoted value, is being typed.
var (
	setKey   = regexp.MustCompile(`(?i)\b(?:SET|RESET)\s+'([^']*)$`)
	setValue = regexp.MustCompile(`(?i)\bSET\s+'([^']*)'\s*=\s*'([^']*)$`)
)

// completer completes the word before the cursor with keywords, table
// names, function names and the argument names of functions, the columns
// of the tables and views the statement names, and inside SET '...' with
// setting keys and the values of enumerations.
type completer struct {
	cat *catalog.Catalog
	// typed, when set, returns the lines of the statement typed before
	// the one being edited, whose table names count too.
	typed func() string
}

// word matches an identifier, plain or backquoted.
var word = regexp.MustCompile("`[^`]+`|[\\p{L}_][\\p{L}\\p{N}_]*")

// columns returns the column names of the tables and views that text
// names.
func (c completer) columns(text string) []string {
	var cols []string
	seen := map[string]bool{}
	for _, w := range word.FindAllString(text, -1) {
		w = strings.Trim(w, "`")
		if seen[w] {
			continue
		}
		seen[w] = true
		if t, ok := c.cat.Table(w); ok {
			cols = append(cols, t.Schema.Names()...)
		}
	}
	return cols
}

// Do implements readline.AutoCompleter.
func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	if m := setValue.FindStringSubmatch(before); m != nil {
		s, _ := settings.Lookup(m[1])
		return completeQuoted(m[2], s.Values)
	}
	if m := setKey.FindStringSubmatch(before); m != nil {
		return completeQuoted(m[1], settings.Keys())
	}
	start := pos
	for start > 0 && (unicode.IsLetter(line[start-1]) || unicode.IsDigit(line[start-1]) || line[start-1] == '_') {
		start--
	}
	word := string(line[start:pos])
	if word == "" {
		return nil, 0
	}
	var cands []string
	upper := strings.ToUpper(word) == word
	for _, k := range keywords {
		if !upper {
			k = strings.ToLower(k)
		}
		cands = append(cands, k)
	}
	cands = append(cands, c.cat.TableNames()...)
	typed := before
	if c.typed != nil {
		typed = c.typed() + typed
	}
	cands = append(cands, c.columns(typed)...)
	for _, f := range c.cat.FunctionNames(false) {
		cands = append(cands, f)
		if fn, ok := c.cat.Function(f); ok {
			for _, a := range fn.Def.Args {
				cands = append(cands, a.Name+" =>")
			}
		}
	}
	for _, f := range expr.Functions() { // the built-in scalar functions
		name := f.Name
		if !upper {
			name = strings.ToLower(name)
		}
		cands = append(cands, name)
	}
	cands = append(cands, "on_time =>", "uid =>")
	var out [][]rune
	seen := map[string]bool{}
	for _, cand := range cands {
		if len(cand) > len(word) && strings.HasPrefix(strings.ToLower(cand), strings.ToLower(word)) && !seen[cand] {
			seen[cand] = true
			out = append(out, []rune(cand[len(word):]))
		}
	}
	return out, len([]rune(word))
}

// completeQuoted completes the start of a quoted key or value with the
// candidates it begins (case matters, as it does for keys), each closed
// with its quote.
func completeQuoted(typed string, cands []string) ([][]rune, int) {
	var out [][]rune
	for _, c := range cands {
		if strings.HasPrefix(c, typed) {
			out = append(out, []rune(c[len(typed):]+"'"))
		}
	}
	return out, len([]rune(typed))
}
