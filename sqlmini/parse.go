package sqlmini

import (
	"errors"
	"fmt"
	"strings"

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

// Parse parses a script of statements separated by semicolons. A script
// stops at its first syntax error: the statements before it are returned
// with the error, so that a caller may run them first. Positions are
// relative to src and carry filename.
func Parse(filename, src string) ([]*Statement, error) {
	pieces, err := Split(filename, src)
	var stmts []*Statement
	for _, p := range pieces {
		st, perr := parseAt(filename, src, p)
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
	lex, err := sqlLexer.LexString(filename, src)
	if err != nil {
		return nil, convertError(err)
	}
	var pieces []Piece
	var start *lexer.Token
	for {
		tok, err := lex.Next()
		if err != nil {
			return pieces, convertError(err)
		}
		if tok.EOF() {
			break
		}
		if isTrivia(tok) {
			continue
		}
		if tok.Value == ";" && tok.Type == opType {
			if start != nil {
				pieces = append(pieces, Piece{Start: Pos(start.Pos), End: tok.Pos.Offset, Text: src[start.Pos.Offset:tok.Pos.Offset]})
			}
			start = nil
			continue
		}
		if start == nil {
			t := tok
			start = &t
		}
	}
	if start != nil {
		pieces = append(pieces, Piece{Start: Pos(start.Pos), End: len(src), Text: strings.TrimRight(src[start.Pos.Offset:], " \t\r\n")})
	}
	return pieces, nil
}

// Complete reports whether src ends with a complete statement: its last
// token (comments aside) is a semicolon outside strings and $$ bodies. The
// REPL reads lines until the input is complete.
func Complete(src string) bool {
	lex, err := sqlLexer.LexString("", src)
	if err != nil {
		return false
	}
	last := ""
	for {
		tok, err := lex.Next()
		if err != nil {
			return false // an unterminated string or body: read on
		}
		if tok.EOF() {
			break
		}
		if isTrivia(tok) {
			continue
		}
		last = tok.Value
	}
	return last == ";"
}

var (
	symbols     = sqlLexer.Symbols()
	opType      = symbols["Op"]
	commentType = symbols["Comment"]
	wsType      = symbols["Whitespace"]
)

func isTrivia(t lexer.Token) bool { return t.Type == commentType || t.Type == wsType }

// parseAt parses one statement in place: the text before it is blanked
// (newlines kept) so that positions stay those of the whole source.
func parseAt(filename, src string, p Piece) (*Statement, error) {
	prefix := blank(src[:p.Start.Offset])
	st, err := stmtParser.ParseString(filename, prefix+src[p.Start.Offset:p.End])
	if err != nil {
		return nil, convertError(err)
	}
	st.Text = p.Text
	return st, nil
}

func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

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
		return nil, convertError(err)
	}
	return t, nil
}

// ParseExpr parses a scalar expression.
func ParseExpr(src string) (*Expr, error) {
	e, err := exprParser.ParseString("", src)
	if err != nil {
		return nil, convertError(err)
	}
	return e, nil
}

// convertError turns a participle error into an *Error with a Pos.
func convertError(err error) error {
	var perr participle.Error
	if errors.As(err, &perr) {
		return &Error{Pos: Pos(perr.Position()), Msg: friendly(perr.Message())}
	}
	return fmt.Errorf("sql: %w", err)
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
