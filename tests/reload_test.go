package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/assembly"
)

// reloadShell is a shell over dir whose statements run one at a time, as
// the REPL runs them, with results and notes in one buffer.
type reloadShell struct {
	t   *testing.T
	sh  *assembly.Shell
	out bytes.Buffer
	dir string
	// tick moves every file written forward in time, so that each write
	// changes the modification time even on a file system with coarse
	// times.
	tick time.Time
}

func newReloadShell(t *testing.T) *reloadShell {
	t.Helper()
	r := &reloadShell{t: t, dir: t.TempDir(), tick: time.Now().Add(-time.Hour)}
	sh, err := assembly.New(assembly.Options{Out: &r.out, Memory: true, BaseDir: r.dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sh.Close)
	r.sh = sh
	r.run(`SET 'ptfsh.format' = 'rows';
CREATE VIEW v(name) AS VALUES ('Bob');`)
	r.out.Reset()
	return r
}

// write writes a file of the test's folder with a new modification time.
func (r *reloadShell) write(name, src string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.tick = r.tick.Add(time.Second)
	if err := os.Chtimes(p, r.tick, r.tick); err != nil {
		r.t.Fatal(err)
	}
}

// run runs statements and returns what they printed.
func (r *reloadShell) run(src string) string {
	r.t.Helper()
	r.out.Reset()
	r.sh.RunEach(context.Background(), "", src, &r.out)
	return r.out.String()
}

func (r *reloadShell) expect(src, want string) {
	r.t.Helper()
	if got := r.run(src); got != want {
		r.t.Errorf("%s\ngot:\n%s\nwant:\n%s", src, got, want)
	}
}

func greetJS(greeting string) string {
	return `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) { ctx.collect("` + greeting + ` " + input.name); },
};
`
}

// TestReload_editedFunction: a function whose file changed is loaded again
// before the next statement, with a note; the statement sees the new
// version.
func TestReload_editedFunction(t *testing.T) {
	r := newReloadShell(t)
	r.write("greet.js", greetJS("Hello"))
	r.expect(`CREATE FUNCTION greet AS 'greet.js';
SELECT * FROM greet(TABLE v);`, "+I[Hello Bob]\n")
	r.expect(`SELECT * FROM greet(TABLE v);`, "+I[Hello Bob]\n") // unchanged: no note
	r.write("greet.js", greetJS("Hi"))
	r.expect(`SELECT * FROM greet(TABLE v);`, "note: reloaded greet.js\n+I[Hi Bob]\n")
	r.expect(`SELECT * FROM greet(TABLE v);`, "+I[Hi Bob]\n")
}

// TestReload_errorKeepsPreviousVersion: a version that does not load
// leaves the previous one in place, says why once, and the next good
// version is loaded.
func TestReload_errorKeepsPreviousVersion(t *testing.T) {
	r := newReloadShell(t)
	r.write("greet.js", greetJS("Hello"))
	r.run(`CREATE FUNCTION greet AS 'greet.js';`)
	r.write("greet.js", "export default {\n  output: \"STRING\",\n  eval(ctx { }\n};\n")
	got := r.run(`SELECT * FROM greet(TABLE v);`)
	if !strings.HasPrefix(got, "note: greet.js has an error, the previous version stays: ") ||
		!strings.Contains(got, "greet.js:3:12: greet: SyntaxError") || !strings.HasSuffix(got, "+I[Hello Bob]\n") {
		t.Errorf("got:\n%s", got)
	}
	r.expect(`SELECT * FROM greet(TABLE v);`, "+I[Hello Bob]\n") // the note comes once
	r.write("greet.js", greetJS("Hey"))
	r.expect(`SELECT * FROM greet(TABLE v);`, "note: reloaded greet.js\n+I[Hey Bob]\n")

	// A declaration the session refuses is an error too.
	r.write("greet.js", strings.Replace(greetJS("Yo"), `name: "input"`, `name: "uid"`, 1))
	got = r.run(`SELECT * FROM greet(TABLE v);`)
	if !strings.Contains(got, "note: greet.js has an error, the previous version stays: greet.js:3:18: greet: Function signature must not declare system arguments") ||
		!strings.HasSuffix(got, "+I[Hey Bob]\n") {
		t.Errorf("got:\n%s", got)
	}
	// A file that is gone keeps the function too.
	os.Remove(filepath.Join(r.dir, "greet.js"))
	got = r.run(`SELECT * FROM greet(TABLE v);`)
	if !strings.Contains(got, "note: greet.js has an error, the previous version stays: cannot read function file") ||
		!strings.HasSuffix(got, "+I[Hey Bob]\n") {
		t.Errorf("got:\n%s", got)
	}
}

// TestReload_importedFile: a change to a file the function imports (in a
// subfolder, through another import, a TypeScript file named .js)
// reloads the function.
func TestReload_importedFile(t *testing.T) {
	r := newReloadShell(t)
	r.write("lib/words.ts", `export const word: string = "Hello";`+"\n")
	r.write("lib/say.js", `import { word } from "./words.js";`+"\nexport function say(n) { return word + \" \" + n; }\n")
	r.write("greet.js", `import { say } from './lib/say';
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) { ctx.collect(say(input.name)); },
};
`)
	r.expect(`CREATE FUNCTION greet AS 'greet.js';
SELECT * FROM greet(TABLE v);`, "+I[Hello Bob]\n")
	r.write("lib/words.ts", `export const word: string = "Howdy";`+"\n")
	r.expect(`SELECT * FROM greet(TABLE v);`, "note: reloaded greet.js (lib/words.ts changed)\n+I[Howdy Bob]\n")
	r.write("lib/say.js", `import { word } from "./words.js";`+"\nexport function say(n) { return word + \", \" + n; }\n")
	r.expect(`SELECT * FROM greet(TABLE v);`, "note: reloaded greet.js (lib/say.js changed)\n+I[Howdy, Bob]\n")
}

// TestReload_createOrReplace: CREATE OR REPLACE FUNCTION replaces a
// function (an error keeps the old one), and the same for views and
// tables; IF NOT EXISTS cannot go with it.
func TestReload_createOrReplace(t *testing.T) {
	r := newReloadShell(t)
	r.write("hello.js", greetJS("Hello"))
	r.write("hi.js", greetJS("Hi"))
	r.write("bad.js", "export default {")
	r.expect(`CREATE FUNCTION greet AS 'hello.js';
CREATE OR REPLACE FUNCTION greet AS 'hi.js';
SELECT * FROM greet(TABLE v);`, "+I[Hi Bob]\n")
	got := r.run(`CREATE OR REPLACE FUNCTION greet AS 'bad.js';
SELECT * FROM greet(TABLE v);`)
	if !strings.Contains(got, "1:28: bad.js:1:17: greet: SyntaxError") || !strings.HasSuffix(got, "+I[Hi Bob]\n") {
		t.Errorf("got:\n%s", got)
	}
	r.expect(`CREATE OR REPLACE TEMPORARY FUNCTION greet AS 'hello.js';
SELECT * FROM greet(TABLE v);
DROP TEMPORARY FUNCTION greet;
SELECT * FROM greet(TABLE v);`, "+I[Hello Bob]\n+I[Hi Bob]\n")
	r.expect(`CREATE OR REPLACE FUNCTION IF NOT EXISTS greet AS 'hello.js';`,
		"1:28: CREATE OR REPLACE and IF NOT EXISTS cannot be used together\n | CREATE OR REPLACE FUNCTION IF NOT EXISTS greet AS 'hello.js';\n |                            ^\n")
	r.expect(`CREATE OR REPLACE FUNCTION TO_CHANGELOG AS 'hello.js';`,
		"1:28: function 'TO_CHANGELOG' is a built-in function and cannot be replaced\n | CREATE OR REPLACE FUNCTION TO_CHANGELOG AS 'hello.js';\n |                            ^\n")
	r.expect(`CREATE OR REPLACE FUNCTION fresh AS 'hi.js';
SELECT * FROM fresh(TABLE v);`, "+I[Hi Bob]\n")

	r.expect(`CREATE OR REPLACE VIEW v(name) AS VALUES ('Alice');
SELECT * FROM greet(TABLE v);
CREATE OR REPLACE TABLE t (name STRING) AS VALUES ('Carol');
CREATE OR REPLACE TABLE t (name STRING) AS VALUES ('Dave');
SELECT * FROM greet(TABLE t);`, "+I[Hi Alice]\n+I[Hi Dave]\n")
	r.expect(`CREATE OR REPLACE VIEW t AS VALUES (1);`,
		"1:24: 't' is a table: CREATE OR REPLACE VIEW cannot replace it; DROP it first\n | CREATE OR REPLACE VIEW t AS VALUES (1);\n |                        ^\n")
}

// TestReload_viewOverChangedFunction: a view calls the version of a
// function in force; one whose declared columns no longer fit the
// function's new output is an error, not a crash.
func TestReload_viewOverChangedFunction(t *testing.T) {
	r := newReloadShell(t)
	r.write("greet.js", greetJS("Hello"))
	r.expect(`CREATE FUNCTION greet AS 'greet.js';
CREATE VIEW w AS SELECT * FROM greet(TABLE v);
CREATE VIEW named(g) AS SELECT * FROM greet(TABLE v);
SELECT * FROM w;`, "+I[Hello Bob]\n")
	two := strings.Replace(greetJS("Hi"), `output: "STRING"`, `output: "ROW<a STRING, b STRING>"`, 1)
	r.write("greet.js", strings.Replace(two, `ctx.collect("Hi " + input.name)`, `ctx.collect({ a: "Hi " + input.name, b: null })`, 1))
	r.expect(`SELECT * FROM w;`, "note: reloaded greet.js\n+I[Hi Bob, null]\n")
	got := r.run(`SELECT * FROM named;`)
	if !strings.Contains(got, "view 'named' names 1 columns but its query now has 2: [a, b]") {
		t.Errorf("got:\n%s", got)
	}
}
