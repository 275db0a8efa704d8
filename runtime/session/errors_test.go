package session_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// jsError is a session.SourceError as script.Error is one.
type jsError struct {
	msg, line, stack string
	col              int
}

func (e *jsError) Error() string { return e.msg }
func (e *jsError) SourceLine() (string, int, bool) {
	return e.line, e.col, e.line != ""
}
func (e *jsError) JSStack() string { return e.stack }

func TestFormatError(t *testing.T) {
	js := &jsError{
		msg:   "rules.js:3:11: check: RangeError: too high",
		line:  "    throw new RangeError(`too high`);",
		col:   11,
		stack: "    at checkScore (rules.js:3:11)\n    at eval (check.js:7:17)",
	}
	call := &ptfop.CallError{Err: js, Where: "key (Alice), input row +I[Alice, 142]"}
	src := "SET 'x' = 'y';\nSELECT * FROM nowhere;\n"
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"js error of a call", fmt.Errorf("query.sql:3:1: %w", call), `query.sql:3:1: rules.js:3:11: check: RangeError: too high
 |     throw new RangeError(` + "`too high`" + `);
 |           ^
at key (Alice), input row +I[Alice, 142]
    at checkScore (rules.js:3:11)
    at eval (check.js:7:17)
`},
		{"js error without source line", &jsError{msg: "f: interrupted", stack: "    at eval (f.js:1:1)"}, "f: interrupted\n    at eval (f.js:1:1)\n"},
		{"load error", fmt.Errorf("query.sql:1:17: %w", &jsError{msg: "f.js:2:3: f: SyntaxError: x", line: "\tlet = ;", col: 6}),
			"query.sql:1:17: f.js:2:3: f: SyntaxError: x\n | \tlet = ;\n | \t    ^\n"},
		{"sql error", sqlmini.Errorf(sqlmini.Pos{Filename: "q.sql", Line: 2, Column: 15}, "Object 'nowhere' not found"),
			"q.sql:2:15: Object 'nowhere' not found\n | SELECT * FROM nowhere;\n |               ^\n"},
		{"go error of a call", &ptfop.CallError{Err: errors.New("collect: bad"), Where: "input row +I[1]"},
			"collect: bad\nat input row +I[1]\n"},
		{"plain", errors.New("boom"), "boom\n"},
		{"long line", &jsError{msg: "m.js:1:150: m: TypeError", line: strings.Repeat("a", 149) + "X" + strings.Repeat("b", 200), col: 150},
			"m.js:1:150: m: TypeError\n | ..." + strings.Repeat("a", 50) + "X" + strings.Repeat("b", 49) + "...\n |    " + strings.Repeat(" ", 50) + "^\n"},
		{"unicode", &jsError{msg: "u.js:1:4: u: E", line: "é🎉xy", col: 3}, "u.js:1:4: u: E\n | é🎉xy\n |   ^\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := session.FormatError(tc.err, src)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	// Error() stays one line.
	if e := fmt.Errorf("query.sql:3:1: %w", call).Error(); strings.Contains(e, "\n") || !strings.HasSuffix(e, "(at key (Alice), input row +I[Alice, 142])") {
		t.Errorf("Error() = %q", e)
	}
}
