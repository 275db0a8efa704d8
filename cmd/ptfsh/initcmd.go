package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/stdlib"
)

// ptfsh init [DIR] starts a project: a function, a script that calls it,
// a test file, and what an editor needs to type-check the function
// (ptf.d.ts, globals.d.ts, tsconfig.json). ptfsh check FUNC runs tsc on a
// function.

const initUsage = `usage: ptfsh init [DIR]

Writes a function (hello.js), a script that calls it (hello.sql), a test
file (hello.txtar, run by ptfsh test), and ptf.d.ts, globals.d.ts and
tsconfig.json, so that an editor type-checks the function (default DIR: .).
Files that exist are left alone, and nothing is written then.
`

// initFiles are the files of ptfsh init, in the order they are written.
var initFiles = []struct{ name, text string }{
	{"hello.js", `// hello.js: a Process Table Function. Start the shell here (ptfsh), run
// the statements of hello.sql, then edit this file and run the SELECT
// again (Up, Enter): the shell reloads the function before each statement.
// ptf.d.ts and globals.d.ts give editors its types (ptfsh check hello.js
// runs tsc): definePTF reads the output type, so a misspelt column in
// ctx.collect is an error there.
import { definePTF } from "ptfsh/ptf";

export default definePTF({
  output: "ROW<greeting STRING, visits INT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { default: { count: 0 } } },
  eval(ctx, { seen }, { input }) {
    seen.count++;
    ctx.collect({ greeting: ` + "`Hello ${input.name}`" + `, visits: seen.count });
  },
});
`},
	{"hello.sql", `-- ptfsh -f hello.sql, or type the statements in the shell.
CREATE FUNCTION hello AS 'hello.js';
CREATE VIEW visits(name) AS VALUES ('Bob'), ('Alice'), ('Bob');
SELECT * FROM hello(TABLE visits PARTITION BY name);
`},
	{"hello.txtar", `A test of hello.js: ptfsh test runs query.sql and compares what it prints
with want.out (ptfsh test -update rewrites want.out from what it printed,
for you to check). A section named like a file (-- data.csv --) is a file
of the test; CREATE FUNCTION finds a function file that is not one beside
the test file, so this test calls hello.js as you edit it.

-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION hello AS 'hello.js';
CREATE VIEW visits(name) AS VALUES ('Bob'), ('Alice'), ('Bob');
SELECT * FROM hello(TABLE visits PARTITION BY name);
-- want.out --
+I[Bob, Hello Bob, 1]
+I[Alice, Hello Alice, 1]
+I[Bob, Hello Bob, 2]
`},
	{"ptf.d.ts", script.TypeDefinitions},
	{"globals.d.ts", globalsDTS + "\n" + stdlib.TypeDeclarations},
	{"tsconfig.json", `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "lib": ["ES2022"],
    "types": [],
    "allowJs": true,
    "checkJs": true,
    "strict": true,
    "noEmit": true
  },
  "include": ["**/*.js", "**/*.ts"]
}
`},
}

// globalsDTS declares what the sandbox gives a function besides
// ptf.d.ts's API: console, and the modules of the embedded standard
// library (untyped).
const globalsDTS = `// globals.d.ts: what ptfsh gives a function besides ptf.d.ts. The sandbox
// has no timers, files, network or process: only the language's own
// globals (ES2022), console, and the embedded standard library.

declare const console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};

/** ptfsh/flink, ptfsh/strings: the embedded standard library (untyped here; ptfsh/patterns and ptfsh/ptf are typed below). */
declare module "ptfsh/*";
`

// runInit implements ptfsh init [DIR].
func runInit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, initUsage) }
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(rest) > 1 {
		fmt.Fprint(stderr, initUsage)
		return 2
	}
	dir := "."
	if len(rest) == 1 {
		dir = rest[0]
	}
	var exist []string
	for _, f := range initFiles {
		if _, err := os.Lstat(filepath.Join(dir, f.name)); err == nil {
			exist = append(exist, f.name)
		}
	}
	if len(exist) > 0 {
		fmt.Fprintf(stderr, "ptfsh init: %s already has %s; nothing written\n", dir, strings.Join(exist, ", "))
		return 1
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "ptfsh init: %v\n", err)
		return 1
	}
	for _, f := range initFiles {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), 0o644); err != nil {
			fmt.Fprintf(stderr, "ptfsh init: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, f.name))
	}
	cd := ""
	if dir != "." {
		cd = "cd " + dir + " && "
	}
	fmt.Fprintf(stdout, "\nnext: %sptfsh -f hello.sql    (or ptfsh, and edit hello.js while it runs)\n", cd)
	fmt.Fprintf(stdout, "      %sptfsh test            (runs hello.txtar)\n", cd)
	fmt.Fprintf(stdout, "      %sptfsh check hello.js  (type-checks it with tsc)\n", cd)
	return 0
}

const checkUsage = `usage: ptfsh check FUNC.js|FUNC.ts

Type-checks a function with TypeScript's compiler (tsc --noEmit): the
project of the tsconfig.json beside it when there is one (ptfsh init
writes it), else the file alone against ptfsh's ptf.d.ts.
`

// tscMissing says how to get tsc.
const tscMissing = `ptfsh check: tsc (TypeScript's compiler) is not on PATH. Install it with
    npm install -g typescript
(Node.js's npm), or run it without installing: npx -p typescript tsc --noEmit -p DIR
`

// runCheck implements ptfsh check FUNC: tsc's messages go to stdout;
// the exit status is 0 when the function type-checks, 1 when tsc found
// errors, 2 when tsc could not run.
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ptfsh check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, checkUsage) }
	files, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(files) != 1 {
		fmt.Fprint(stderr, checkUsage)
		return 2
	}
	file := files[0]
	if _, err := os.Stat(file); err != nil {
		fmt.Fprintf(stderr, "ptfsh check: %v\n", err)
		return 2
	}
	tsc, err := exec.LookPath("tsc")
	if err != nil {
		fmt.Fprint(stderr, tscMissing)
		return 2
	}
	dir := filepath.Dir(file)
	var cmdArgs []string
	workDir := ""
	if _, err := os.Stat(filepath.Join(dir, "tsconfig.json")); err == nil {
		cmdArgs = []string{"--noEmit", "-p", dir}
	} else {
		tmp, err := os.MkdirTemp("", "ptfsh-check-")
		if err != nil {
			fmt.Fprintf(stderr, "ptfsh check: %v\n", err)
			return 2
		}
		defer os.RemoveAll(tmp)
		for _, f := range []struct{ name, text string }{{"ptf.d.ts", script.TypeDefinitions}, {"globals.d.ts", globalsDTS + "\n" + stdlib.TypeDeclarations}} {
			if err := os.WriteFile(filepath.Join(tmp, f.name), []byte(f.text), 0o644); err != nil {
				fmt.Fprintf(stderr, "ptfsh check: %v\n", err)
				return 2
			}
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			fmt.Fprintf(stderr, "ptfsh check: %v\n", err)
			return 2
		}
		cmdArgs = []string{"--noEmit", "--strict", "--allowJs", "--checkJs", "--target", "es2022", "--module", "esnext",
			"--moduleResolution", "bundler", "--lib", "es2022", "--types", "",
			filepath.Join(tmp, "ptf.d.ts"), filepath.Join(tmp, "globals.d.ts"), abs}
		// tsc refuses files on its command line while a tsconfig.json is in
		// the folder it runs in; the temporary folder has none.
		workDir = tmp
	}
	cmd := exec.Command(tsc, cmdArgs...)
	cmd.Dir = workDir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	err = cmd.Run()
	text := out.String()
	if workDir != "" {
		// tsc names files relative to the folder it ran in: name the
		// function as it was given.
		if abs, aerr := filepath.Abs(file); aerr == nil {
			if rel, rerr := filepath.Rel(workDir, abs); rerr == nil {
				text = strings.ReplaceAll(text, filepath.ToSlash(rel)+"(", file+"(")
			}
		}
	}
	io.WriteString(stdout, text)
	var exit *exec.ExitError
	switch {
	case err == nil:
		fmt.Fprintf(stdout, "%s: no type errors\n", file)
		return 0
	case errors.As(err, &exit):
		return 1
	}
	fmt.Fprintf(stderr, "ptfsh check: %v\n", err)
	return 2
}
