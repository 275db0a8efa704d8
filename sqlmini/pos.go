package sqlmini

import "fmt"

// Pos is a position in a SQL source. It has the same fields as participle's
// lexer.Position, so participle fills Pos fields of grammar nodes itself.
// Line and Column are 1-based; Offset is a 0-based byte offset.
type Pos struct {
	Filename string
	Offset   int
	Line     int
	Column   int
}

// String renders the position as file:line:col (or line:col without a file).
func (p Pos) String() string {
	if p.Filename == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// IsValid reports whether the position points somewhere.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Error is an error at a position in a SQL source. Its Error() is one line:
// file:line:col: message.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf returns an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
