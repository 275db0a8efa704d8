package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/ptfsh/ptfsh/runtime"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Error is an error in a JavaScript function: a syntax error or an invalid
// declaration found while loading it, or an exception thrown by a call.
// Its Error() is one line, file:line:col: func: message, e.g.
//
//	greeting.js:14:5: greeting: TypeError: Cannot read property 'x' of undefined
//
// Pos points into the user's own file (through the source map of the
// compiled code), or into a file it imports. Stack keeps the JavaScript
// stack for display; Detail returns the message with it.
type Error struct {
	// Pos is the position in the user's source; Pos.Line is 0 when unknown.
	// An inline function's file is "<inline NAME>".
	Pos sqlmini.Pos
	// Func is the name the function is registered under.
	Func string
	// Msg is the message: "TypeError: ..." for a JavaScript error, the Go
	// error's text for an error raised by the runtime inside a call.
	Msg string
	// Stack is the JavaScript stack, one frame a line ("at eval (f.js:3:9)"),
	// mapped to the user's files; empty for load errors.
	Stack string
	// Err is the underlying error, if any: runtime.ErrInterrupted for an
	// interrupted call, or the Go error a runtime call (collect, timers)
	// returned and the function did not catch.
	Err error
}

// Error returns file:line:col: func: message.
func (e *Error) Error() string {
	var b strings.Builder
	p := e.Pos
	switch {
	case p.Filename != "" && p.Line > 0:
		b.WriteString(p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column) + ": ")
	case p.Filename != "":
		b.WriteString(p.Filename + ": ")
	}
	if e.Func != "" {
		b.WriteString(e.Func + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Detail returns Error() followed by the JavaScript stack, one indented
// frame a line, for a trace display.
func (e *Error) Detail() string {
	if e.Stack == "" {
		return e.Error()
	}
	return e.Error() + "\n" + e.Stack
}

// loadErrorf returns a load error of function fn at pos.
func loadErrorf(fn string, pos sqlmini.Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Func: fn, Msg: fmt.Sprintf(format, args...)}
}

// interruptValue is what an Engine passes to goja's Interrupt, so that an
// InterruptedError can tell cancellation from a timeout. err always wraps
// runtime.ErrInterrupted.
type interruptValue struct{ err error }

func (v interruptValue) Error() string { return v.err.Error() }
func (v interruptValue) Unwrap() error { return v.err }

// callError converts an error returned by a goja call into an *Error with
// the position of the innermost JavaScript frame.
func (e *Engine) callError(fn string, err error) error {
	var (
		stack []goja.StackFrame
		msg   string
		cause error
	)
	var intr *goja.InterruptedError
	var exc *goja.Exception
	switch {
	case errors.As(err, &intr):
		// Our interrupts carry an error that wraps runtime.ErrInterrupted.
		stack, msg, cause = intr.Stack(), "interrupted", runtime.ErrInterrupted
		if v, ok := intr.Value().(interruptValue); ok {
			msg, cause = v.err.Error(), v.err
		}
	case errors.As(err, &exc):
		stack = exc.Stack()
		msg, cause = e.exceptionMessage(exc)
	default:
		return &Error{Func: fn, Msg: err.Error(), Err: err}
	}
	out := &Error{Func: fn, Msg: msg, Err: cause}
	var sb strings.Builder
	for i := range stack {
		f := &stack[i]
		pos, ok := e.framePos(f)
		if ok && out.Pos.Line == 0 {
			out.Pos = pos
		}
		name := f.FuncName()
		sb.WriteString("    at ")
		switch {
		case ok:
			if name != "" && name != "<anonymous>" {
				sb.WriteString(name + " (" + posString(pos) + ")")
			} else {
				sb.WriteString(posString(pos))
			}
		default:
			sb.WriteString(name + " (native)")
		}
		sb.WriteByte('\n')
	}
	out.Stack = strings.TrimSuffix(sb.String(), "\n")
	return out
}

// exceptionMessage renders a thrown value: "TypeError: msg" for Error
// objects (Error.prototype.toString), the Go error's text for a GoError
// raised by a runtime call, and the value itself for anything else.
func (e *Engine) exceptionMessage(exc *goja.Exception) (string, error) {
	v := exc.Value()
	if v == nil {
		return "exception", nil
	}
	if obj, ok := v.(*goja.Object); ok {
		if goErr := exc.Unwrap(); goErr != nil {
			return goErr.Error(), goErr
		}
		if s, ok := e.safeString(obj); ok {
			return s, nil
		}
		return "[object " + obj.ClassName() + "]", nil
	}
	return v.String(), nil // throw "text": the text itself
}

// safeString calls the value's toString, which is user code and may throw.
func (e *Engine) safeString(v goja.Value) (s string, ok bool) {
	exc := e.vm.Try(func() { s = v.String() })
	return s, exc == nil
}

func posString(p sqlmini.Pos) string {
	return p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

// framePos maps a stack frame to the user's file.
func (e *Engine) framePos(f *goja.StackFrame) (sqlmini.Pos, bool) {
	name := f.SrcName()
	if name == "<native>" {
		return sqlmini.Pos{}, false
	}
	gp := f.Position()
	if p, ok := e.mapPosition(name, gp.Line, gp.Column); ok {
		return p, true
	}
	if gp.Line == 0 {
		return sqlmini.Pos{}, false
	}
	return sqlmini.Pos{Filename: name, Line: gp.Line, Column: gp.Column}, true
}

// mapPosition maps a position of the program named prog (1-based line and
// column) to the user's source.
func (e *Engine) mapPosition(prog string, line, col int) (sqlmini.Pos, bool) {
	m := e.maps[prog]
	if m == nil {
		return sqlmini.Pos{}, false
	}
	file, l, c, ok := m.original(line, col)
	if !ok {
		return sqlmini.Pos{}, false
	}
	return sqlmini.Pos{Filename: file, Line: l, Column: c}, true
}
