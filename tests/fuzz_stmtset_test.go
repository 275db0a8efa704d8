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
	"github.com/ptfsh/ptfsh/sqlmini"
)

// stmtSetForms are the statement sets FuzzStatementSetParse mutates, one
// token a line.
var stmtSetForms = []string{
	"EXECUTE STATEMENT SET BEGIN INSERT INTO s1 VALUES (1) ; INSERT INTO s2 VALUES (2) ; END",
	"EXPLAIN STATEMENT SET BEGIN INSERT INTO s1 VALUES (1) ; INSERT INTO s2 VALUES (2) ; END",
	"EXPLAIN PLAN FOR EXECUTE STATEMENT SET BEGIN INSERT INTO s1 SELECT 1 ; INSERT INTO s2 VALUES (2) ; END",
	"EXECUTE STATEMENT SET BEGIN INSERT INTO s1 VALUES (1) ; END",
}

// stmtSetWords are what a mutation puts in: the words and marks of a
// statement set, and some that end or open things.
var stmtSetWords = []string{"EXECUTE", "EXPLAIN", "STATEMENT", "SET", "BEGIN", "END", ";", "INSERT", "INTO",
	"s1", "s2", "VALUES", "(", ")", "1", "SELECT", "x", "--", "'", "/*", "*/", "PLAN", "FOR", "\n", ",", "`end`"}

// FuzzStatementSetParse checks that a statement set that fails to parse
// runs no part of itself: a statement set (or EXPLAIN of one) with one
// token deleted, replaced, put in or doubled runs in a script that goes on
// after errors and at the prompt, and a row reaches its tables only when
// the mutated text is one statement that parses as a statement set. A
// mutation past the form's end appends a token. .ci/run fuzzes it; go test
// runs the seeds.
func FuzzStatementSetParse(f *testing.F) {
	for form := range stmtSetForms {
		for pos := 0; pos < 20; pos += 3 {
			for op := range 4 {
				f.Add(uint8(form), uint8(pos), uint8(op), uint8(pos*7+op))
			}
		}
	}
	f.Fuzz(func(t *testing.T, form, pos, op, word uint8) {
		toks := strings.Fields(stmtSetForms[int(form)%len(stmtSetForms)])
		w := stmtSetWords[int(word)%len(stmtSetWords)]
		i := int(pos) % (len(toks) + 1)
		switch op % 4 {
		case 0: // delete
			if i < len(toks) {
				toks = append(toks[:i], toks[i+1:]...)
			}
		case 1: // replace
			if i < len(toks) {
				toks[i] = w
			} else {
				toks = append(toks, w)
			}
		case 2: // put in
			toks = append(toks[:i], append([]string{w}, toks[i:]...)...)
		case 3: // double
			if i < len(toks) {
				toks = append(toks[:i], append([]string{toks[i]}, toks[i:]...)...)
			}
		}
		block := strings.Join(toks, " ")
		whole := false // the block is one statement set that parses
		ps := sqlmini.ParseEach("b.sql", block+";")
		if len(ps) == 1 && ps[0].Err == nil && ps[0].Stmt.StatementSet != nil {
			whole = true
		}
		// An INSERT that the statements' split leaves on its own, outside
		// the statement set that failed, runs as the SQL client runs it.
		alone := map[string]bool{}
		for _, p := range ps {
			if p.Err == nil && p.Stmt.Insert != nil {
				alone[strings.ToLower(string(p.Stmt.Insert.Table.Value))+".csv"] = true
			}
		}
		setup := "CREATE TABLE s1 (a INT) WITH ('connector' = 'filesystem', 'path' = 's1.csv', 'format' = 'csv');\n" +
			"CREATE TABLE s2 (a INT) WITH ('connector' = 'filesystem', 'path' = 's2.csv', 'format' = 'csv');\n"
		for _, prompt := range []bool{false, true} {
			dir := t.TempDir()
			var out bytes.Buffer
			sh, err := assembly.New(assembly.Options{Out: &out, Memory: true, BaseDir: dir, Format: "rows"})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if prompt {
				sh.RunEach(ctx, "", setup+block+";\n", &out)
			} else {
				_ = sh.Session.Exec(ctx, "", setup+"SET 'ptfsh.on-error' = 'continue';\n"+block+";\n")
			}
			cancel()
			sh.Close()
			for _, name := range []string{"s1.csv", "s2.csv"} {
				b, _ := os.ReadFile(filepath.Join(dir, name))
				if len(b) > 0 && !whole && !alone[name] {
					t.Fatalf("%s got rows from a statement set that does not parse as one statement (at the prompt: %v):\n%s\n-- output --\n%s", name, prompt, block, out.String())
				}
			}
		}
	})
}
