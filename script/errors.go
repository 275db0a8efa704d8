package script

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Error is an error in a JavaScript function: a syntax error or an invalid
// declaration found while loading it, or an exception thrown by a call.
// Its Error() is one line, file:line:col: func: message, e.g.
//
//	greeting.js:14:5: greeting: TypeError: Cannot read property 'x' of undefined
//
// Pos points into the user's own file (through the source map of the
// compiled code), or into a file it imports. Line keeps that line of
// source and Stack the JavaScript stack for display: Detail returns the
// message with the stack, and session.FormatError shows both (Error
// implements [ptf.SourceError]).
type Error struct {
	// Pos is the position in the user's source; Pos.Line is 0 when unknown.
	// An inline function's file is "<inline NAME>".
	Pos types.Pos
	// Func is the name the function is registered under.
	Func string
	// Msg is the message: "TypeError: ..." for a JavaScript error, the Go
	// error's text for an error raised by the runtime inside a call.
	Msg string
	// Line is the line of source Pos points at, without its line end; ""
	// when it is not known.
	Line string
	// Stack is the JavaScript stack, one frame a line ("    at eval
	// (f.js:3:9)"), mapped to the user's files; empty for load errors. A
	// deep stack keeps its innermost and outermost frames only.
	Stack string
	// Err is the underlying error, if any: one that wraps
	// [ptf.ErrInterrupted] for a cancelled call, [ptf.ErrLimit] for a
	// call stopped by a limit, or the Go error a runtime call (collect,
	// timers) returned and the function did not catch.
	Err error
}

var _ ptf.SourceError = (*Error)(nil)

// SourceLine implements [ptf.SourceError]: Line and Pos.Column.
func (e *Error) SourceLine() (line string, col int, ok bool) {
	if e.Pos.Line <= 0 || e.Line == "" {
		return "", 0, false
	}
	return e.Line, e.Pos.Column, true
}

// JSStack implements [ptf.SourceError]: Stack.
func (e *Error) JSStack() string { return e.Stack }

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
func loadErrorf(fn string, pos types.Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Func: fn, Msg: fmt.Sprintf(format, args...)}
}

// interruptValue is what an Engine passes to goja's Interrupt, so that an
// InterruptedError can tell cancellation from a limit. err wraps
// [ptf.ErrInterrupted] (cancellation) or [ptf.ErrLimit].
type interruptValue struct{ err error }

func (v interruptValue) Error() string { return v.err.Error() }
func (v interruptValue) Unwrap() error { return v.err }

// hostObjectHint follows goja's TypeError for what its host objects refuse
// (an accessor, a read-only field, freezing, a symbol key): the state
// objects of most entries (see record.go), rows, args and ctx are such
// objects, and goja's words name none of them.
const hostObjectHint = " (state objects, rows, args and ctx are ptfsh's host objects: their fields hold data and stay writable, enumerable and configurable; " +
	"keep an accessor, a frozen or read-only value or a symbol key in a plain object of your own, e.g. state.s.extra = {...})"

// callError converts an error returned by a goja call into an *Error with
// the position of the innermost JavaScript frame.
func (e *realm) callError(fn string, err error) error {
	var (
		stack []goja.StackFrame
		msg   string
		cause error
	)
	var intr *goja.InterruptedError
	var exc *goja.Exception
	var so *goja.StackOverflowError
	switch {
	case errors.As(err, &intr):
		// Our interrupts carry an error that wraps [ptf.ErrInterrupted]
		// or [ptf.ErrLimit].
		stack, msg, cause = intr.Stack(), "interrupted", ptf.ErrInterrupted
		if v, ok := intr.Value().(interruptValue); ok {
			msg, cause = v.err.Error(), v.err
		}
	case errors.As(err, &so):
		cause = depthError(e.maxDepth)
		stack, msg = so.Stack(), cause.Error()
	case errors.As(err, &exc):
		stack = exc.Stack()
		var serr error
		msg, cause, serr = e.exceptionMessage(exc)
		if serr != nil {
			// Rendering the thrown value ran out of time or stack (its
			// toString or message getter loops): that is the error.
			return e.callError(fn, serr)
		}
		if strings.Contains(msg, "ynamic object") {
			msg += hostObjectHint
		}
	default:
		return &Error{Func: fn, Msg: err.Error(), Err: err}
	}
	// What the function threw is text of its own, often made of data:
	// its control characters are escaped ([types.EscapeControls]).
	out := &Error{Func: fn, Msg: types.EscapeControls(msg), Err: cause}
	if i := slices.IndexFunc(stack, func(f goja.StackFrame) bool { return f.SrcName() == batchFile }); i >= 0 {
		// The batch's frame and its native pump (batch.go), at the bottom
		// of the stack, are not the function's.
		if i > 0 && stack[i-1].SrcName() == "<native>" {
			i--
		}
		stack = stack[:i]
	}
	var frames []string
	for i := 0; i < len(stack); i++ {
		if i == maxFramesHead && len(stack) > maxFramesShown {
			tail := len(stack) - (maxFramesShown - maxFramesHead)
			frames = append(frames, "    ... "+strconv.Itoa(tail-i)+" more frames")
			i = tail
		}
		f := &stack[i]
		pos, line, ok := e.framePos(f)
		if ok && out.Pos.Line == 0 {
			out.Pos, out.Line = pos, line
		}
		name := f.FuncName()
		switch {
		case !ok && f.SrcName() == "<native>" && strings.Contains(name, "/"):
			// A Go function of ours (ctx.collect, a timer method), named
			// by its Go path: the frame under it shows the call.
		case !ok && f.SrcName() == "<native>":
			frames = append(frames, "    at "+name+" (native)")
		case !ok:
			frames = append(frames, "    at "+name+" ("+f.SrcName()+", generated code)")
		case name != "" && name != "<anonymous>":
			frames = append(frames, "    at "+name+" ("+posString(pos)+")")
		default:
			frames = append(frames, "    at "+posString(pos))
		}
	}
	if out.Pos.Line == 0 {
		// The innermost frames are cut from a deep stack: position the error
		// at the first frame that maps, even among them.
		for i := range stack {
			if pos, line, ok := e.framePos(&stack[i]); ok {
				out.Pos, out.Line = pos, line
				break
			}
		}
	}
	out.Stack = strings.Join(frames, "\n")
	return out
}

// A stack deeper than maxFramesShown shows its maxFramesHead innermost
// frames and the rest of maxFramesShown outermost ones (where eval is).
const (
	maxFramesShown = 16
	maxFramesHead  = 10
)

// exceptionMessage renders a thrown value: "TypeError: msg" for Error
// objects (Error.prototype.toString), the Go error's text for a GoError
// raised by a runtime call, and the value itself for anything else. The
// rendering runs the value's toString (and an Error's name and message
// getters), the function's code: an interrupt or a stack overflow in it
// is returned as stop, and callError reports that instead.
func (e *realm) exceptionMessage(exc *goja.Exception) (msg string, cause, stop error) {
	v := exc.Value()
	if v == nil {
		return "exception", nil, nil
	}
	if obj, ok := v.(*goja.Object); ok {
		if goErr := exc.Unwrap(); goErr != nil {
			return goErr.Error(), goErr, nil
		}
		s, err := e.safeString(obj)
		if err == nil {
			return s, nil, nil
		}
		if !isException(err) {
			return "", nil, err
		}
		return "[object " + obj.ClassName() + "]", nil, nil
	}
	return v.String(), nil, nil // throw "text": the text itself
}

// safeString calls the value's toString, which is the function's code and
// may throw, loop or recurse: it runs protected (see protect), under the
// limits of the call it runs in.
func (e *realm) safeString(v goja.Value) (s string, err error) {
	err = e.protect(func() { s = v.String() })
	return s, err
}

// isException reports whether err (from protect) is a value the
// JavaScript threw, as opposed to an interrupt or a stack overflow.
func isException(err error) bool {
	var exc *goja.Exception
	return errors.As(err, &exc)
}

func posString(p types.Pos) string {
	return p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}

// framePos maps a stack frame to the user's file, and returns the line of
// source it points at ("" when unknown).
func (e *Engine) framePos(f *goja.StackFrame) (types.Pos, string, bool) {
	name := f.SrcName()
	if name == "<native>" {
		return types.Pos{}, "", false
	}
	gp := f.Position()
	if m := e.maps[name]; m != nil {
		if file, l, c, ok := m.original(gp.Line, gp.Column); ok {
			return types.Pos{Filename: file, Line: l, Column: c}, m.lineText(file, l), true
		}
		// Code esbuild added (module helpers): its position is not in any
		// file of the user's.
		return types.Pos{}, "", false
	}
	if gp.Line == 0 {
		return types.Pos{}, "", false
	}
	return types.Pos{Filename: name, Line: gp.Line, Column: gp.Column}, "", true
}
