package types

import (
	"errors"
	"fmt"
)

// Pos is a position in a source: a SQL script or statement, or a function
// file. It has the same fields as participle's lexer.Position, so the
// parser fills the Pos fields of grammar nodes itself (sqlmini.Pos is this
// type). Line and Column are 1-based; Offset is a 0-based byte offset.
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

// Error is an error placed at a position: a parse or planning error of a
// statement, or a run-time error placed at the part of the statement it came
// from (the PTF call whose function failed, the table whose file could not
// be read). It is the one positioned error type of ptfsh; JavaScript errors
// keep their own (script.Error), which names the function file.
//
// Error() is one line, pos: message. When Msg is empty the message is Err's;
// Unwrap returns Err, so errors.Is and errors.As see the cause.
type Error struct {
	Pos Pos
	Msg string
	Err error
}

func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Pos.String() + ": " + e.Err.Error()
	}
	return e.Pos.String() + ": " + e.Msg
}

// Unwrap returns the cause, or nil.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error at pos with a message formatted as fmt.Errorf
// does; a %w verb makes its operand the cause that Unwrap returns.
func Errorf(pos Pos, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Pos: pos, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// At places err at pos unless it already has a position (an *Error in its
// chain) or pos is not valid.
func At(pos Pos, err error) error {
	if err == nil || !pos.IsValid() {
		return err
	}
	if _, ok := PositionOf(err); ok {
		return err
	}
	return &Error{Pos: pos, Err: err}
}

// PositionOf finds the position of an error: that of the outermost *Error
// in its chain.
func PositionOf(err error) (Pos, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Pos, pe.Pos.IsValid()
	}
	return Pos{}, false
}
