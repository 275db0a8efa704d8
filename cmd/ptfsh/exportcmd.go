package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/export/flink"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

const exportUsage = `usage: ptfsh export flink FUNC.js [-o DIR] [--name NAME] [--script SCRIPT.sql] [--graaljs]

Writes a Maven project (default DIR: <name>-flink) whose Java
ProcessTableFunction runs FUNC.js on Flink: translated into Java when the
function keeps to the part of JavaScript the translator takes, else (or
with --graaljs) through GraalJS, with a note that says why. With --script,
ptfsh runs the script and each SELECT becomes a test of the project that
compares Flink's rows with ptfsh's: run them with mvn test; job.sql holds
the same statements for Flink's SQL client. What the bridge cannot run as
ptfsh does is refused with a message that names it (see docs/flink.md).
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
	graal := fs.Bool("graaljs", false, "run the JavaScript in GraalJS even when the function translates into Java")
	fs.Usage = func() { fmt.Fprint(stderr, exportUsage+"\nflags:\n"); fs.PrintDefaults() }
	files, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if len(files) != 1 {
		fmt.Fprint(stderr, exportUsage)
		return 2
	}
	if err := exportFlink(files[0], dir, scriptFile, name, *graal, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "ptfsh: %v\n", err)
		return 1
	}
	return 0
}

func exportFlink(file, dir, scriptFile, name string, graal bool, stdout, stderr io.Writer) error {
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
		name = flink.FunctionName(absFile, scriptFile, scriptSrc)
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
	if err := flink.CheckScript(code, file); err != nil {
		return err
	}
	if ptf.ClearsAllTimers(code) {
		fmt.Fprintf(stderr, "note: %s: the function calls clearAllTimers() or clearAll(): %s\n", file, ptf.FlinkClearAllTimers)
	}
	p := flink.Project{Def: def, File: file, Script: code}
	if cl, ok := engine.Changelog(def); ok {
		p.Changelog, p.ChangelogFunc = cl.Mode, cl.Func
	}
	if err := flink.CheckChangelog(def, p.Changelog, p.ChangelogFunc, file); err != nil {
		return err
	}
	if !graal {
		if p.Java, err = flink.Translate(p); err != nil {
			fmt.Fprintf(stderr, "note: %s: the function runs in GraalJS on Flink (slower than Java: see docs/performance.md#on-flink): the translation into Java does not take %v\n", file, err)
		}
	}
	if scriptFile != "" {
		scriptDir, err := filepath.Abs(filepath.Dir(scriptFile))
		if err != nil {
			return err
		}
		// Results come back as data (sessionRunner); what statements print
		// (SHOW, notes) is not part of a case. console.log goes to stderr.
		ssh, err := newScriptSession(scriptDir, "", "", io.Discard, stderr)
		if err != nil {
			return err
		}
		defer ssh.Close()
		absDir, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		r := sessionRunner{sess: ssh.Session, src: scriptSrc}
		tables := 0
		for _, a := range def.Args {
			if a.IsTable() {
				tables++
			}
		}
		p.Cases, err = flink.Cases(context.Background(), r, flink.Script{
			Path: scriptFile, Source: scriptSrc, Name: name, File: absFile, Notes: stderr,
			Dir: scriptDir, DataDir: filepath.Join(absDir, flink.DataFolder), Interleaved: tables > 1})
		if err != nil {
			return err
		}
	}
	if err := flink.Write(dir, p); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d test cases); run: cd %s && mvn test\n", dir, len(p.Tests()), dir)
	return nil
}

// sessionRunner runs the statements of export's script in a ptfsh
// session for [flink.Cases], and gives errors with the script line and a
// caret.
type sessionRunner struct {
	sess *session.Session
	src  string
}

func (r sessionRunner) Exec(ctx context.Context, st *sqlmini.Statement) error {
	return r.fail(r.sess.ExecStatement(ctx, st))
}

func (r sessionRunner) Query(ctx context.Context, st *sqlmini.Statement) (types.Schema, []types.Row, error) {
	res, err := r.sess.Query(ctx, st)
	if err != nil {
		return types.Schema{}, nil, r.fail(err)
	}
	return res.Schema, res.Rows, nil
}

func (r sessionRunner) fail(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(strings.TrimRight(session.FormatError(err, r.src), "\n"))
}
