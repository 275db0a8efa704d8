package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/export/flink"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/sqlmini"
)

const exportUsage = `usage: ptfsh export flink FUNC.js [-o DIR] [--name NAME] [--script SCRIPT.sql]

Writes a Maven project (default DIR: <name>-flink) whose Java
ProcessTableFunction runs FUNC.js on Flink through GraalJS. With --script,
ptfsh runs the script and each SELECT becomes a test of the project that
compares Flink's rows with ptfsh's: run them with mvn test.
`

// runExport implements ptfsh export flink.
func runExport(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "flink" {
		fmt.Fprint(stderr, exportUsage)
		return 2
	}
	fs := flag.NewFlagSet("ptfsh export flink", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dir, scriptFile, name string
	fs.StringVar(&dir, "o", "", "write the project into `DIR`")
	fs.StringVar(&scriptFile, "script", "", "run `SCRIPT.sql` and turn its SELECTs into tests")
	fs.StringVar(&name, "name", "", "the SQL `NAME` of the function (default: from the script's CREATE FUNCTION or the file name)")
	fs.Usage = func() { fmt.Fprint(stderr, exportUsage+"\nflags:\n"); fs.PrintDefaults() }
	var files []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) != 1 {
		fmt.Fprint(stderr, exportUsage)
		return 2
	}
	if err := exportFlink(files[0], dir, scriptFile, name, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		return 1
	}
	return 0
}

func exportFlink(file, dir, scriptFile, name string, stdout, stderr io.Writer) error {
	absFile, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var scriptSrc string
	if scriptFile != "" {
		b, err := os.ReadFile(scriptFile)
		if err != nil {
			return err
		}
		scriptSrc = string(b)
	}
	if name == "" {
		name = functionName(absFile, scriptFile, scriptSrc)
	}
	if dir == "" {
		dir = name + "-flink"
	}
	seed := int64(1)
	sh, err := assembly.New(assembly.Options{Memory: true, Seed: &seed, EvalTimeout: assembly.DefaultEvalTimeout})
	if err != nil {
		return err
	}
	defer sh.Close()
	engine := sh.Engine
	def, err := engine.Load(name, file, string(src))
	if err != nil {
		return fmt.Errorf("%s", session.FormatError(err, string(src)))
	}
	if err := flink.Check(def, file); err != nil {
		return err
	}
	code, err := engine.Bundle(name, file, string(src))
	if err != nil {
		return err
	}
	p := flink.Project{Def: def, File: file, Script: code}
	if scriptFile != "" {
		p.Cases, err = exportCases(name, absFile, scriptFile, scriptSrc, stderr)
		if err != nil {
			return err
		}
	}
	if err := flink.Write(dir, p); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d test cases); run: cd %s && mvn test\n", dir, len(p.Cases), dir)
	return nil
}

// functionName is the name of the script's CREATE FUNCTION of the file,
// else the file's base name in CamelCase (greeting_with_memory.js:
// GreetingWithMemory).
func functionName(absFile, scriptFile, scriptSrc string) string {
	for _, p := range sqlmini.ParseEach(scriptFile, scriptSrc) {
		if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil || p.Stmt.Create.Function.Path == nil {
			continue
		}
		f := p.Stmt.Create.Function
		path := string(*f.Path)
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(scriptFile), path)
		}
		if abs, err := filepath.Abs(path); err == nil && abs == absFile {
			return string(f.Name.Value)
		}
	}
	base := strings.TrimSuffix(filepath.Base(absFile), filepath.Ext(absFile))
	var b strings.Builder
	up := true
	for _, r := range base {
		if r == '_' || r == '-' || r == '.' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exportCases runs the script in ptfsh with --format rows and returns a
// case per SELECT: the CREATE VIEW and CREATE TABLE statements before it,
// the SELECT, and the rows ptfsh printed. A SELECT that calls another
// function the script creates is skipped with a note to notes (the project
// registers only the exported function). Other statements (CREATE
// FUNCTION, SET, SHOW, ...) run in ptfsh only, but for SET 'ptfsh.format',
// which is skipped.
func exportCases(name, absFile, scriptFile, src string, notes io.Writer) ([]flink.Case, error) {
	dir, err := filepath.Abs(filepath.Dir(scriptFile))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	// console.log goes to stderr: in out a line could pass for a row.
	sh, err := newScriptSession(dir, "rows", &out, notes)
	if err != nil {
		return nil, err
	}
	defer sh.Close()
	sess := sh.Session
	ctx := context.Background()
	parsed := sqlmini.ParseEach(scriptFile, src)
	declared := false
	for _, p := range parsed {
		if p.Err == nil && p.Stmt.Create != nil && p.Stmt.Create.Function != nil && strings.EqualFold(string(p.Stmt.Create.Function.Name.Value), name) {
			declared = true
		}
	}
	if !declared {
		reg := fmt.Sprintf("CREATE TEMPORARY FUNCTION %s AS '%s'", name, strings.ReplaceAll(absFile, "'", "''"))
		if err := sess.Exec(ctx, "", reg); err != nil {
			return nil, err
		}
	}
	others := otherFunctions(parsed, name)
	var setup []string
	var cases []flink.Case
	for _, p := range parsed {
		if p.Err != nil {
			return nil, p.Err
		}
		st := p.Stmt
		if st.Set != nil && st.Set.Key != nil && strings.EqualFold(string(*st.Set.Key), "ptfsh.format") {
			continue // the cases need --format rows
		}
		if st.Query != nil {
			if f := callsOneOf(st.Text, others); f != "" {
				fmt.Fprintf(notes, "note: %s:%d: skipped, it calls %s, which is not exported with %s\n", scriptFile, st.Pos.Line, f, name)
				continue
			}
		}
		out.Reset()
		if err := sess.ExecStatement(ctx, st); err != nil {
			return nil, fmt.Errorf("%s", strings.TrimRight(session.FormatError(err, src), "\n"))
		}
		switch {
		case st.Create != nil && (st.Create.View != nil || st.Create.Table != nil):
			setup = append(setup, st.Text)
		case st.Query != nil:
			var rows []string
			for _, l := range strings.Split(out.String(), "\n") {
				if len(l) > 3 && (l[0] == '+' || l[0] == '-') && l[2] == '[' {
					rows = append(rows, l)
				}
			}
			stmts := append(append([]string(nil), setup...), st.Text)
			cases = append(cases, flink.Case{Name: fmt.Sprintf("case%02d", len(cases)+1), Statements: stmts, Rows: rows})
		}
	}
	return cases, nil
}

// otherFunctions returns the names of the functions the script creates,
// but for name.
func otherFunctions(parsed []sqlmini.Parsed, name string) []string {
	var names []string
	for _, p := range parsed {
		if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil {
			continue
		}
		if n := string(p.Stmt.Create.Function.Name.Value); !strings.EqualFold(n, name) {
			names = append(names, n)
		}
	}
	return names
}

// callsOneOf returns the first of names that the query text calls
// (the name, as a whole word in any case, then an opening parenthesis),
// or "".
func callsOneOf(text string, names []string) string {
	for _, n := range names {
		re := regexp.MustCompile(`(?i)(^|[^\w$])` + regexp.QuoteMeta(n) + `\s*\(`)
		if re.MatchString(text) {
			return n
		}
	}
	return ""
}
