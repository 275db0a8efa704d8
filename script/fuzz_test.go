package script_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/stdlib"
)

// FuzzLoad loads arbitrary function sources, as a file (JavaScript or
// TypeScript) or inline (kind%3), made valid UTF-8 or not (kind&4). Loading never panics, never hangs (the eval
// timeout covers the top-level code), and every error is an *Error whose
// Error() is one line and whose position, when it has one, lies in the
// source (or in a stdlib module it imports), with the line it shows being
// that line of the source.
func FuzzLoad(f *testing.F) {
	seeds := []string{
		greetingWithMemory,
		countClicks,
		"({ output: 'STRING', eval(ctx) { ctx.collect('x'); } })",
		"module.exports = { output: 'INT', args: [{ name: 'x', type: 'INT' }], eval() {} };",
		"import { formatRow } from 'ptfsh/flink';\nexport default { output: 'STRING', eval() {} };",
		"export default {\n  output: 'ROW<a INT, b STRING>',\n  state: { s: { type: 'ROW<i INT>', ttl: '1 h' } },\n  changelog: 'upsert',\n  eval() {},\n};\n",
		"export default { output: 'STRING', args: [{ name: 'uid', type: 'STRING' }], eval() {} };",
		"const x: number = 1;\nexport default { output: 'STRING', eval(ctx: any) {} };",
		"let x = ;", "throw new Error('at load')", "while (true) {}", "import x from '../x.js';",
		"export default {\r\n  output: 'STRING',\r\n  eval() { let x = ; },\r\n};\r\n",
		"({ output: 'STRING',\u2028 eval() { ) } })",
		"function f() { return f(); }\nf();",
	}
	for i, s := range seeds {
		f.Add(s, uint8(i%3|4))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string, kind uint8) {
		if kind&4 != 0 {
			// Most mutations break UTF-8, which Load rejects at once: make
			// some valid, so that they reach esbuild and goja.
			src = strings.ToValidUTF8(src, "\uFFFD")
		}
		file, display := "", "<inline f>"
		switch kind % 3 {
		case 1:
			file, display = "f.js", "f.js"
		case 2:
			file, display = "f.ts", "f.ts"
		}
		seed := int64(1)
		e := script.NewEngine(script.Options{
			ParseType:   ptf.ParseType,
			Stdlib:      stdlib.JS,
			BaseDir:     dir,
			Seed:        &seed,
			EvalTimeout: 100 * time.Millisecond,
			MaxMemory:   256 << 20,
		})
		defer e.Close()
		_, err := e.Load("f", file, src)
		if err == nil {
			return
		}
		var se *script.Error
		if !errors.As(err, &se) {
			t.Fatalf("error %T is not a *script.Error: %v", err, err)
		}
		if strings.ContainsAny(err.Error(), "\n") {
			t.Fatalf("Error() has several lines: %q", err)
		}
		p := se.Pos
		if p.Line == 0 {
			return
		}
		if p.Line < 0 || p.Column < 1 {
			t.Fatalf("position %d:%d: %v", p.Line, p.Column, err)
		}
		if strings.HasPrefix(p.Filename, "ptfsh/") {
			return
		}
		if p.Filename != display {
			t.Fatalf("the error points at %q, not at %q: %v", p.Filename, display, err)
		}
		lines := jsLines(src)
		if p.Line > len(lines) {
			t.Fatalf("line %d of a source of %d lines: %v", p.Line, len(lines), err)
		}
		line := lines[p.Line-1]
		if n := utf8.RuneCountInString(line); p.Column > n+1 {
			t.Fatalf("column %d of a line of %d characters (%q): %v", p.Column, n, line, err)
		}
		if text, _, ok := se.SourceLine(); ok && text != line && !strings.ContainsRune(line, utf8.RuneError) {
			t.Fatalf("the error shows line %q, the source has %q: %v", text, line, err)
		}
	})
}

// jsLines splits src at JavaScript's line terminators: LF, CR, CRLF, and
// U+2028 and U+2029.
func jsLines(src string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch r {
		case '\r':
			lines = append(lines, src[start:i])
			if i+1 < len(src) && src[i+1] == '\n' {
				size = 2
			}
			start = i + size
		case '\n', '\u2028', '\u2029':
			lines = append(lines, src[start:i])
			start = i + size
		}
		i += size
	}
	return append(lines, src[start:])
}

// FuzzScalarResult calls a scalar function whose eval returns a fuzzed
// expression (getters, Proxies, promises, strings of control characters),
// converted to one of several output types. A call never panics, never
// hangs (the eval timeout), and every error is an *Error whose Error() is
// one line without a raw control character: a getter that throws is the
// function's error, never an internal one.
func FuzzScalarResult(f *testing.F) {
	outputs := []string{"STRING", "INT", "ROW<a INT, b STRING>", "ARRAY<STRING>", "MAP<STRING, INT>", "TIMESTAMP_LTZ(3)", "BYTES"}
	for i, s := range []string{
		`"x\x1b[2J\x1b]0;PWNED\x07"`, `"\u009b31m" + x`, `x`, `1e300`, `NaN`, `-0`,
		`({ get a() { throw new Error("\x1b[2J" + x); } })`,
		`({ get a() { for (;;) {} } })`,
		`new Proxy({}, { get(t, k) { throw new TypeError("trap " + String(k)); } })`,
		`new Proxy([], { get() { return 1; } })`,
		`[{ toString() { throw 1; } }]`,
		`new Map([["k\x07", 1]])`,
		`Promise.resolve(1)`,
		`(globalThis[["Pro", "mise"].join("")].resolve(1)[["th", "en"].join("")](() => {}), 1)`,
		`({ a: 1, b: { toString() { return "\r\n"; } } })`,
		`new Uint8Array([27, 91])`, `new Date(8.64e15)`, `{ [Symbol.toPrimitive]() { throw 1; } }`,
	} {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, expr string, out uint8) {
		expr = strings.ToValidUTF8(expr, "\uFFFD")
		src := `export default { kind: "scalar", args: [{ name: "x", type: "INT" }], output: "` + outputs[int(out)%len(outputs)] + `",
  eval(x) { return (` + expr + `
  ); },
};`
		seed := int64(1)
		e := script.NewEngine(script.Options{ParseType: ptf.ParseType, Seed: &seed, EvalTimeout: 100 * time.Millisecond, MaxMemory: 256 << 20})
		defer e.Close()
		def, err := e.Load("f", "f.js", src)
		if err != nil {
			return // not a function: FuzzLoad's part
		}
		call, err := def.Scalar()
		if err != nil {
			t.Fatalf("Scalar: %v", err)
		}
		for range 2 {
			_, err := call([]any{int64(7)})
			if err == nil {
				continue
			}
			var se *script.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *script.Error: %v", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "internal error") || strings.Contains(msg, "\n") {
				t.Fatalf("error: %q", msg)
			}
			for _, r := range msg {
				if r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f {
					t.Fatalf("raw %U in the error %q", r, msg)
				}
			}
		}
	})
}
