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

// Piece is the source range of one statement found by Split.
type Piece struct {
	Start Pos // first token of the statement
	End   int // offset of the terminating semicolon, or len(src)
	Text  string
}

// Split finds the statements of src without parsing them: it cuts at
// semicolons outside strings, quoted identifiers, comments and $$ bodies.
// A trailing statement without a semicolon is included. An error reports
// an unterminated string, identifier, comment or body.
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
	lex, err := sqlLexer.LexString(filename, src)
	if err != nil {
		return nil, convertError(err, src)
	}
	var (
		pieces []piece
		tokens []lexer.Token // of all statements
		start  = -1          // index in tokens of the current statement's first
	)
	for {
		tok, err := lex.Next()
		if err != nil {
			return pieces, convertError(err, src)
		}
		if isTrivia(tok) {
			continue
		}
		if tok.Type == unterminatedType {
			return pieces, Errorf(Pos(tok.Pos), "%s", unterminated(tok.Value))
		}
		end := tok.EOF() || tok.Value == ";" && tok.Type == opType
		if !end {
			if start < 0 {
				start = len(tokens)
			}
			tokens = append(tokens, tok)
			continue
		}
		if start >= 0 {
			first := tokens[start].Pos
			text := src[first.Offset:tok.Pos.Offset]
			if tok.EOF() {
				text = strings.TrimRight(text, " \t\r\n")
			}
			tokens = append(tokens, lexer.EOFToken(tok.Pos))
			pieces = append(pieces, piece{
				Piece:  Piece{Start: Pos(first), End: tok.Pos.Offset, Text: text},
				tokens: tokens[start:len(tokens):len(tokens)],
			})
			start = -1
		}
		if tok.EOF() {
			return pieces, nil
		}
	}
}

// parse parses the piece as one statement.
func (p *piece) parse() (*Statement, error) {
	peek, err := lexer.Upgrade(&tokenLexer{tokens: p.tokens})
	if err == nil {
		var st *Statement
		if st, err = stmtParser.ParseFromLexer(peek); err == nil {
			st.Text = p.Text
			return st, nil
		}
	}
	return nil, convertError(err, "")
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
// identifiers, comments and $$ bodies. The REPL reads lines until the
// input is complete. A character the lexer rejects counts as a token, so
// that "SELECT #;" is complete and Parse can report it.
func Complete(src string) bool {
	last := ""
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
				off, last = at+n, src[at:at+n]
				break
			}
			if tok.EOF() {
				return last == ";"
			}
			if tok.Type == unterminatedType {
				return false // inside a string, body or comment: read on
			}
			if !isTrivia(tok) {
				last = tok.Value
			}
		}
	}
	return last == ";"
}

var (
	symbols          = sqlLexer.Symbols()
	opType           = symbols["Op"]
	commentType      = symbols["Comment"]
	wsType           = symbols["Whitespace"]
	unterminatedType = symbols["Unterminated"]
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
	t, err := typeParser.ParseString("", src)
	if err != nil {
		return nil, convertError(err, src)
	}
	return t, nil
}

// ParseExpr parses a scalar expression.
func ParseExpr(src string) (*Expr, error) {
	e, err := exprParser.ParseString("", src)
	if err != nil {
		return nil, convertError(err, src)
	}
	return e, nil
}

// convertError turns a participle error on src into an *Error with a Pos.
func convertError(err error, src string) error {
	var tokErr *participle.UnexpectedTokenError
	if errors.As(err, &tokErr) && tokErr.Unexpected.Type == unterminatedType {
		return Errorf(Pos(tokErr.Unexpected.Pos), "%s", unterminated(tokErr.Unexpected.Value))
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		pos := Pos(perr.Position())
		msg := perr.Message()
		if strings.HasPrefix(msg, "lexer: invalid input text") && pos.Offset >= 0 && pos.Offset < len(src) {
			// participle quotes the next 16 characters; name the one at fault.
			r, _ := utf8.DecodeRuneInString(src[pos.Offset:])
			msg = fmt.Sprintf("unexpected character %q", r)
		}
		return &Error{Pos: pos, Msg: friendly(msg)}
	}
	return fmt.Errorf("sql: %w", err)
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
	// participle lists the whole rest of the grammar it expected; past a
	// short list that is noise to a person.
	if i := strings.Index(msg, " (expected "); i >= 0 && len(msg)-i > 60 {
		msg = msg[:i]
	}
	return msg
}
