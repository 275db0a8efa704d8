package session

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// InternalError is a panic of ptfsh's own code that a statement ran into:
// a bug, not a mistake of the statement. The session turns it into this
// error so that the shell goes on; tests fail on it.
type InternalError struct {
	// Value is what the code panicked with; Where the first frame of the
	// panic in ptfsh's code (file:line), Stack the whole stack.
	Value any
	Where string
	Stack []byte
}

func newInternalError(v any) *InternalError {
	stack := debug.Stack()
	return &InternalError{Value: v, Where: panicSite(stack), Stack: stack}
}

func (e *InternalError) Error() string {
	where := ""
	if e.Where != "" {
		where = " at " + e.Where
	}
	return fmt.Sprintf("internal error%s: %v; this is a bug in ptfsh: please report it with the statement and this message", where, e.Value)
}

// panicSite finds the frame that panicked: the first frame of the module
// after the runtime's panic frames.
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	seenPanic := false
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			seenPanic = true
			continue
		}
		if !seenPanic || !strings.Contains(l, "github.com/ptfsh/ptfsh/") || i+1 >= len(lines) {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if j := strings.Index(loc, " +0x"); j > 0 {
			loc = loc[:j]
		}
		if k := strings.Index(loc, "/ptfsh/"); k >= 0 {
			loc = loc[k+len("/ptfsh/"):]
		}
		return loc
	}
	return ""
}
