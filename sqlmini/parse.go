package sqlmini

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

var options = []participle.Option{
	participle.Lexer(sqlLexer),
	participle.Elide("Whitespace", "Comment"),
	participle.CaseInsensitive("Keyword"),
	participle.CaseInsensitive("Ident"),
	participle.UseLookahead(8),
}

var (
	stmtParser = participle.MustBuild[Statement](options...)
	typeParser = participle.MustBuild[TypeExpr](options...)
	exprParser = participle.MustBuild[Expr](options...)
)

// Grammar returns the grammar of a statement in EBNF, one production a
// line, as participle derives it from the AST structs. Literal words
// match case-insensitively; <ident>, <string> and the like are tokens.
func Grammar() string { return stmtParser.String() }

// Parse parses a script of statements separated by semicolons. A script
// stops at its first syntax error: the statements before it are returned
// with the error, so that a caller may run them first. Positions are
// relative to src and carry filename.
func Parse(filename, src string) ([]*Statement, error) {
	pieces, err := split(filename, src)
	var stmts []*Statement
	for _, p := range pieces {
		st, perr := p.parse()
		if perr != nil {
			return stmts, perr
		}
		stmts = append(stmts, st)
	}
	return stmts, err
}

// Parsed is one statement of ParseEach: its tree, or the syntax error that
// kept it from parsing.
type Parsed struct {
	Stmt *Statement
	Err  error
}

// ParseEach parses every statement of src on its own, so that a syntax
// error in one statement does not hide the others (the REPL and scripts
// that go on after errors need this). An error that stops the split itself
// (an unterminated string) ends the list.
func ParseEach(filename, src string) []Parsed {
	pieces, err := split(filename, src)
	out := make([]Parsed, 0, len(pieces)+1)
	for _, p := range pieces {
		st, perr := p.parse()
		out = append(out, Parsed{Stmt: st, Err: perr})
	}
	if err != nil {
		out = append(out, Parsed{Err: err})
	}
	return out
}

// Piece is the source range of one statement found by Split.
type Piece struct {
	Start Pos // first token of the statement
	End   int // offset of the terminating semicolon, or len(src)
	Text  string
}

// Split finds the statements of src without parsing them: it cuts at
// semicolons outside strings, quoted identifiers, comments and $$ bodies
// (and, in a statement set's BEGIN ... END, only at the one after END; see
// endTracker for what makes a statement a block).
// A trailing statement without a semicolon is included. An error reports
// an unterminated string, identifier, comment or body, a character that
// starts no token, or nesting deeper than Parse allows; the pieces before
// it are returned with it.
func Split(filename, src string) ([]Piece, error) {
	pieces, err := split(filename, src)
	out := make([]Piece, len(pieces))
	for i, p := range pieces {
		out[i] = p.Piece
	}
	return out, err
}

// piece is a Piece with its tokens, comments and whitespace left out,
// ending in an EOF token at the terminating semicolon or the end of src.
// Parse hands them to the parser as they are, so a script is lexed once and
// every position is one in the whole source.
type piece struct {
	Piece
	tokens []lexer.Token
}

func split(filename, src string) ([]piece, error) {
	tokens, err := lexAll(filename, src)
	var pieces []piece
	var ends endTracker
	start := 0 // index in tokens of the current statement's first
	for i, tok := range tokens {
		end := tok.EOF() || ends.ends(tok)
		if !end {
			continue
		}
		if start < i {
			first := tokens[start].Pos
			text := src[first.Offset:tok.Pos.Offset]
			if tok.EOF() {
				text = strings.TrimRight(text, " \t\r\n")
			}
			tokens[i] = lexer.EOFToken(tok.Pos) // the parser stops at the semicolon
			pieces = append(pieces, piece{
				Piece:  Piece{Start: Pos(first), End: tok.Pos.Offset, Text: text},
				tokens: tokens[start : i+1 : i+1],
			})
		}
		start = i + 1
	}
	return pieces, err
}

// lexAll returns the tokens of src, comments and whitespace left out,
// ending with an EOF token. On an error it returns the tokens before it.
// Errors are a character no token starts with, an unterminated string,
// identifier, comment or body, and nesting past maxDepth.
func lexAll(filename, src string) ([]lexer.Token, error) {
	lex, err := sqlLexer.LexString(filename, src)
	if err != nil {
		return nil, convertError(err, src)
	}
	var (
		tokens []lexer.Token
		depth  nesting
	)
	for {
		tok, err := lex.Next()
		if err != nil {
			return tokens, convertError(err, src)
		}
		if isTrivia(tok) {
			continue
		}
		if tok.Type == unterminatedType {
			return tokens, Errorf(Pos(tok.Pos), "%s", unterminated(tok.Value))
		}
		if tok.Type == identType && IsReserved(tok.Value) {
			tok.Type = keywordType
		}
		if !depth.add(tok) {
			return tokens, Errorf(Pos(tok.Pos), "nested more than %d levels deep", maxDepth)
		}
		tokens = append(tokens, tok)
		if tok.EOF() {
			return tokens, nil
		}
	}
}

// maxDepth bounds how deeply brackets, type parameters and NOTs may nest
// in one statement. participle parses by recursive descent, and a deep
// enough nesting (some 300,000 parentheses) overflows the goroutine stack,
// which is a fatal error rather than a panic; no real query comes near.
const maxDepth = 1000

// nesting tracks the nesting depth of a statement's tokens: open ( and [,
// < after ARRAY, MAP or ROW, and the current run of NOTs.
type nesting struct {
	open []byte
	nots int
	prev string
}

// add takes the next token and reports whether the depth is still allowed.
func (n *nesting) add(tok lexer.Token) bool {
	v := tok.Value
	if tok.Type == opType {
		switch v {
		case ";":
			n.open = n.open[:0]
		case "(", "[":
			n.open = append(n.open, v[0])
		case "<":
			if strings.EqualFold(n.prev, "ARRAY") || strings.EqualFold(n.prev, "MAP") || strings.EqualFold(n.prev, "ROW") {
				n.open = append(n.open, '<')
			}
		case ">":
			if k := len(n.open); k > 0 && n.open[k-1] == '<' {
				n.open = n.open[:k-1]
			}
		case ")", "]":
			k := len(n.open)
			for k > 0 && n.open[k-1] == '<' {
				k--
			}
			if k > 0 {
				k--
			}
			n.open = n.open[:k]
		}
	}
	if tok.Type == keywordType {
		// CASE ... END nests like a bracket.
		switch {
		case strings.EqualFold(v, "CASE"):
			n.open = append(n.open, 'c')
		case strings.EqualFold(v, "END"):
			if k := len(n.open); k > 0 && n.open[k-1] == 'c' {
				n.open = n.open[:k-1]
			}
		}
	}
	if strings.EqualFold(v, "NOT") {
		n.nots++
	} else {
		n.nots = 0
	}
	n.prev = v
	return len(n.open)+n.nots <= maxDepth
}

// parse parses the piece as one statement.
func (p *piece) parse() (*Statement, error) {
	st, err := parseFrom(stmtParser, p.tokens)
	if err != nil {
		return nil, err
	}
	if err := readHints(st, p.Text, p.Start.Offset); err != nil {
		return nil, err
	}
	st.Text = p.Text
	return st, nil
}

// parseTokens parses all of src with parser.
func parseTokens[G any](parser *participle.Parser[G], src string) (*G, error) {
	tokens, err := lexAll("", src)
	if err != nil {
		return nil, err
	}
	return parseFrom(parser, tokens)
}

// parseFrom parses tokens, which end with an EOF token, with parser.
func parseFrom[G any](parser *participle.Parser[G], tokens []lexer.Token) (*G, error) {
	peek, err := lexer.Upgrade(&tokenLexer{tokens: tokens})
	if err != nil {
		return nil, convertError(err, "")
	}
	g, err := parser.ParseFromLexer(peek)
	if err != nil {
		return nil, convertError(err, "")
	}
	if err := fixJSON(g); err != nil { // json.go
		return nil, err
	}
	return g, nil
}

// tokenLexer replays tokens that end with an EOF token.
type tokenLexer struct{ tokens []lexer.Token }

func (l *tokenLexer) Next() (lexer.Token, error) {
	t := l.tokens[0]
	if len(l.tokens) > 1 {
		l.tokens = l.tokens[1:]
	}
	return t, nil
}

// Complete reports whether src ends with a complete statement: its last
// token (comments aside) is a semicolon outside strings, quoted
// identifiers, comments and $$ bodies, and, in a statement set, the one
// after END. The REPL reads lines until the
// input is complete. A character the lexer rejects counts as a token, so
// that "SELECT #;" is complete and Parse can report it.
func Complete(src string) bool {
	var ends endTracker
	complete := false
	for off := 0; off < len(src); {
		lex, err := sqlLexer.LexString("", src[off:])
		if err != nil {
			return false
		}
		for {
			tok, err := lex.Next()
			if err != nil {
				var perr participle.Error
				if !errors.As(err, &perr) {
					return false
				}
				at := off + perr.Position().Offset
				_, n := utf8.DecodeRuneInString(src[at:])
				off = at + n
				complete = ends.ends(lexer.Token{Value: src[at:off]})
				break
			}
			if tok.EOF() {
				return complete
			}
			if tok.Type == unterminatedType {
				return false // inside a string, body or comment: read on
			}
			if !isTrivia(tok) {
				complete = ends.ends(tok)
			}
		}
	}
	return complete
}

var (
	symbols          = sqlLexer.Symbols()
	opType           = symbols["Op"]
	commentType      = symbols["Comment"]
	wsType           = symbols["Whitespace"]
	unterminatedType = symbols["Unterminated"]
	identType        = symbols["Ident"]
	keywordType      = symbols["Keyword"]
)

func isTrivia(t lexer.Token) bool { return t.Type == commentType || t.Type == wsType }

// ParseStatement parses exactly one statement (a final semicolon is allowed).
func ParseStatement(filename, src string) (*Statement, error) {
	stmts, err := Parse(filename, src)
	if err != nil {
		return nil, err
	}
	switch len(stmts) {
	case 0:
		return nil, Errorf(Pos{Filename: filename, Line: 1, Column: 1}, "empty statement")
	case 1:
		return stmts[0], nil
	}
	return nil, Errorf(stmts[1].Pos, "expected one statement, found %d", len(stmts))
}

// ParseType parses a data type such as "ROW<url STRING, n BIGINT>".
func ParseType(src string) (*TypeExpr, error) {
	return parseTokens(typeParser, src)
}

// ParseExpr parses a scalar expression.
func ParseExpr(src string) (*Expr, error) {
	return parseTokens(exprParser, src)
}

// ruleWords names the grammar rules that participle puts in its messages.
var ruleWords = map[string]string{
	"Primary":      "a value, a column or an expression",
	"Expr":         "an expression",
	"SetExpr":      "a statement: SELECT, VALUES, CREATE, DROP, SHOW, DESCRIBE, SET, RESET, EXPLAIN, INSERT or ADVANCE",
	"FromItem":     "a table, a function call or a subquery",
	"Name":         "a name",
	"TypeExpr":     "a data type",
	"Arg":          "an argument",
	"ValuesRow":    "a parenthesized row",
	"StatementSet": "STATEMENT SET BEGIN ... END",
}

// convertError turns a participle error on src into an *Error with a Pos.
func convertError(err error, src string) error {
	var perr participle.Error
	if errors.As(err, &perr) {
		pos := Pos(perr.Position())
		msg := perr.Message()
		if strings.HasPrefix(msg, "lexer: invalid input text") && pos.Offset >= 0 && pos.Offset < len(src) {
			// participle quotes the next 16 characters; name the one at fault.
			r, _ := utf8.DecodeRuneInString(src[pos.Offset:])
			msg = fmt.Sprintf("unexpected character %q", r)
		}
		if m, ok := unsupported(msg); ok {
			return &Error{Pos: pos, Msg: m}
		}
		// A Capture's own error (a binary literal's digits) is the message.
		msg = strings.TrimPrefix(msg, "failed to capture: ")
		return &Error{Pos: pos, Msg: reservedHint(friendly(msg))}
	}
	return fmt.Errorf("sql: %w", err)
}

// unsupportedWords are Flink SQL constructs the dialect does not have yet,
// by the reserved word that starts them, and what to say about each.
var unsupportedWords = map[string]string{
	"HAVING": "HAVING needs GROUP BY or an aggregate before it",
	"ORDER":  "ORDER BY is not allowed here: it follows a SELECT's WHERE, GROUP BY and HAVING",
}

// unsupported names the construct when a parse error is at a word that
// starts a construct the dialect lacks (EXCEPT). participle
// reports those as an unexpected token.
func unsupported(msg string) (string, bool) {
	const prefix = `unexpected token "`
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	word, _, ok := strings.Cut(msg[len(prefix):], `"`)
	if !ok {
		return "", false
	}
	if upper(word) == "SELECT" && (strings.Contains(msg, "(expected Primary") || strings.Contains(msg, "(expected Expr") || strings.HasSuffix(msg, `(expected ")")`) || strings.HasSuffix(msg, `(expected ")" ("OVER" Over)?)`)) {
		return "a scalar subquery, (SELECT ...) as a value, is not supported yet: join the query's table instead, or test it with IN (SELECT ...) or EXISTS (SELECT ...)", true
	}
	m, ok := unsupportedWords[upper(word)]
	return m, ok
}

// reservedHint adds to a message about a reserved word where a name was
// expected how to use the word as a name.
func reservedHint(msg string) string {
	const prefix = `unexpected token "`
	word, _, ok := strings.Cut(strings.TrimPrefix(msg, prefix), `"`)
	if !ok || !strings.HasPrefix(msg, prefix) || !strings.HasSuffix(msg, "(expected a name)") || !IsReserved(word) {
		return msg
	}
	return msg + "; " + word + " is a reserved word: write " + QuoteIdent(word) + " to use it as a name"
}

// unterminated is the message for an Unterminated token.
func unterminated(open string) string {
	switch open {
	case "'":
		return "unterminated string"
	case "`":
		return "unterminated quoted identifier"
	case "$$":
		return "unterminated $$ body"
	}
	return "unterminated comment"
}

// friendly rewrites participle's wording where it reads poorly.
func friendly(msg string) string {
	msg = strings.ReplaceAll(msg, `unexpected token "<EOF>"`, "unexpected end of statement")
	// Name grammar rules the way a person would.
	for rule, words := range ruleWords {
		if i := strings.Index(msg, "(expected "+rule); i >= 0 {
			rest := msg[i+len("(expected ")+len(rule):]
			if rest == ")" || strings.HasPrefix(rest, " ") {
				return msg[:i] + "(expected " + words + ")"
			}
		}
	}
	// After an optional LATERAL, participle spells out FromItem's
	// alternatives instead of naming the rule.
	if i := strings.Index(msg, `(expected (("TABLE" "(" Call ")")`); i >= 0 {
		return msg[:i] + "(expected " + ruleWords["FromItem"] + ")"
	}
	// participle lists the whole rest of the grammar it expected; past a
	// short list that is noise to a person.
	if i := strings.Index(msg, " (expected "); i >= 0 && len(msg)-i > 60 {
		msg = msg[:i]
	}
	return msg
}
