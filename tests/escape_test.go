package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/runtime/session"
)

// hostileValue is a CSV value that clears the screen and sets the
// window's title when written raw to a terminal.
const hostileValue = "x\x1b[2J\x1b]0;PWNED\a"

// TestEscape_terminal: data written to a terminal has its control
// characters escaped, in every result format, and in what always goes to
// people: a CAST error, a JavaScript error's message, the row it names,
// console.log and SHOW STATE. Into a file or a pipe the results keep
// their bytes (csv, rows and tableau as Flink's print() writes them); the
// messages are escaped there too.
func TestEscape_terminal(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"t.csv": "a," + hostileValue + "\nz,y\x1b[31m\u009b1m\n",
		"lg.js": `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { last: "" } } },
  eval(ctx, { s }, { r }) { s.last = r.b; console.log("got", r.b); if (r.a === "z") throw new Error("bad " + r.b); ctx.collect(r.b); },
};
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const setup = `CREATE TABLE t (a STRING, b STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE FUNCTION lg AS 'lg.js';
`
	run := func(terminal bool, format, stmts string) (stdout, stderr string) {
		t.Helper()
		var out, errs bytes.Buffer
		sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Memory: true, BaseDir: dir, Format: format, Terminal: terminal})
		if err != nil {
			t.Fatal(err)
		}
		defer sh.Close()
		if err := sh.Session.Exec(context.Background(), "query.sql", setup+stmts); err != nil {
			errs.WriteString(session.FormatError(err, setup+stmts))
		}
		return out.String(), errs.String()
	}
	for _, format := range []string{"tableau", "changelog", "table", "rows", "csv", "json"} {
		out, _ := run(true, format, "SELECT * FROM t;")
		if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, "\u009b") {
			t.Errorf("%s at a terminal: raw control characters in %q", format, out)
		}
		if format != "json" && !strings.Contains(out, `x\x1b[2J\x1b]0;PWNED\a`) {
			t.Errorf("%s at a terminal: the escaped value is missing from %q", format, out)
		}
		if format != "json" {
			if out, _ := run(false, format, "SELECT * FROM t;"); !strings.Contains(out, hostileValue) {
				t.Errorf("%s into a file: the bytes changed: %q", format, out)
			}
		}
	}
	for _, terminal := range []bool{true, false} {
		_, errs := run(terminal, "rows", "SELECT CAST(b AS INT) FROM t;")
		if !strings.Contains(errs, `cannot cast 'x\x1b[2J\x1b]0;PWNED\a' to INT`) {
			t.Errorf("CAST error (terminal %v): %q", terminal, errs)
		}
		out, errs := run(terminal, "rows", "SELECT * FROM lg(TABLE t PARTITION BY a);")
		for _, want := range []string{`got x\x1b[2J\x1b]0;PWNED\a`, `Error: bad y\x1b[31m\u009b1m`, `at key (z), input row +I[z, y\x1b[31m\u009b1m]`} {
			if !strings.Contains(errs, want) {
				t.Errorf("terminal %v: stderr lacks %q:\n%s", terminal, want, errs)
			}
		}
		if strings.ContainsAny(errs, "\x1b\a") || strings.Contains(errs, "\u009b") {
			t.Errorf("terminal %v: raw control characters on stderr: %q", terminal, errs)
		}
		_ = out
	}
}
