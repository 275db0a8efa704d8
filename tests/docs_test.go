package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/internal/doctest"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// TestDocs executes the fenced blocks of README.md and of every page under
// docs/ (internal/doctest says how each is checked): it saves the files,
// runs the statements of run blocks and compares what they print, parses
// the other SQL, loads the functions and checks the excerpts. The command
// blocks ("$ ptfsh ...") run in cmd/ptfsh/docs_test.go, through the
// command. go test ./tests -run TestDocs -update rewrites the outputs.
func TestDocs(t *testing.T) {
	pages, err := doctest.Pages("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		if doctest.FlinkPages[page] {
			continue
		}
		t.Run(page, func(t *testing.T) {
			t.Parallel()
			checkPage(t, page)
		})
	}
}

// checkPage checks the blocks of one page in order, in a scratch folder of
// its own.
func checkPage(t *testing.T, page string) {
	lines, blocks, err := doctest.PageBlocks("..", page)
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	var repls []doctest.Replacement
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		where := fmt.Sprintf("%s:%d", page, b.Line)
		switch b.Verb {
		case "file":
			file, err := doctest.ScratchPath(scratch, b.Arg)
			if err != nil {
				t.Errorf("%s: %v", where, err)
			} else if err := doctest.WriteFile(file, b.Body); err != nil {
				t.Fatal(err)
			}
		case "run":
			dir, name, err := doctest.RunArgs(b.Arg)
			switch {
			case err != nil:
				t.Errorf("%s: %v", where, err)
				continue
			case b.Lang != "sql":
				t.Errorf("%s: doc: run is for an sql block, not %q", where, b.Lang)
				continue
			case i+1 == len(blocks) || blocks[i+1].Verb != "" || blocks[i+1].Lang != "" && blocks[i+1].Lang != "text":
				t.Errorf("%s: doc: run needs the next block to be its output (a block without a language, or text, and without a directive)", where)
				continue
			}
			if dir == "" {
				dir = scratch
			} else if dir, err = filepath.Abs(filepath.Join("..", dir)); err != nil {
				t.Fatal(err)
			}
			if name != "" {
				file, err := doctest.ScratchPath(scratch, name)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if err := doctest.WriteFile(file, b.Body); err != nil {
					t.Fatal(err)
				}
			} else {
				name = "query.sql"
			}
			i++
			got := RunScriptNamed(t, dir, name, b.Body)
			if got == blocks[i].Body {
				continue
			}
			if *update {
				repls = append(repls, doctest.NewBody(blocks[i], got))
				continue
			}
			t.Errorf("%s: the statements print\n%s\nthe page shows (line %d)\n%s", where, got, blocks[i].Line, blocks[i].Body)
		case "excerpt":
			if err := doctest.CheckExcerpt(filepath.Join("..", b.Arg), b.Body); err != nil {
				t.Errorf("%s: doc: excerpt: %v", where, err)
			}
		case "checked-by":
			checkedBy(t, where, b.Arg)
		case "":
			switch b.Lang {
			case "sql":
				if _, err := sqlmini.Parse(page, b.Body); err != nil {
					t.Errorf("%s: the block does not parse: %v", where, err)
				}
			case "js", "ts":
				checkLoads(t, where, b)
			default:
				if _, ok := doctest.Commands(b.Body); !ok {
					t.Errorf("%s: a %q block that no rule checks: give it a doc directive (see internal/doctest)", where, b.Lang)
				}
				// The commands run in cmd/ptfsh/docs_test.go.
			}
		default:
			t.Errorf("%s: unknown doc directive %q (file, run, excerpt, checked-by)", where, b.Verb)
		}
	}
	if err := doctest.Rewrite("..", page, lines, repls); err != nil {
		t.Fatal(err)
	}
}

// checkedBy checks that the tests a block names exist.
func checkedBy(t *testing.T, where, arg string) {
	for _, p := range strings.Split(arg, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			t.Errorf("%s: doc: checked-by needs the tests that check the block", where)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", p)); err != nil {
			t.Errorf("%s: doc: checked-by %s: %v", where, p, err)
		}
	}
}

// checkLoads loads a js or ts block as a function: CREATE FUNCTION must
// take it.
func checkLoads(t *testing.T, where string, b doctest.Block) {
	dir := t.TempDir()
	file := "f." + b.Lang
	if err := doctest.WriteFile(filepath.Join(dir, file), b.Body); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sh, err := assembly.New(assembly.Options{Out: &out, Memory: true, BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if err := sh.Session.Exec(context.Background(), "", "CREATE FUNCTION f AS '"+file+"';"); err != nil {
		t.Errorf("%s: the function does not load: %v", where, err)
	}
}
