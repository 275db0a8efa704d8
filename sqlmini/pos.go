package sqlmini

import "github.com/ptfsh/ptfsh/runtime/types"

// Pos is a position in a SQL source: the one position type of ptfsh,
// defined with the values every stage shares (runtime/types). It has the same
// fields as participle's lexer.Position, so participle fills the Pos fields of
// grammar nodes itself.
type Pos = types.Pos

// Error is an error at a position in a SQL source ([types.Error]). Its
// Error() is one line: file:line:col: message.
type Error = types.Error

// Errorf returns an *Error at pos; %w keeps the cause for errors.Is and
// errors.As.
func Errorf(pos Pos, format string, args ...any) *Error {
	return types.Errorf(pos, format, args...)
}
