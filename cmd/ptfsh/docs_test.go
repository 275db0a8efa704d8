package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/internal/doctest"
)

// TestDocs_commands runs the command blocks of README.md and of the pages
// under docs/ through the command itself: each "$ ptfsh ..." line runs in
// the page's scratch folder, which holds the page's file blocks and the
// statements of its "run ... as NAME" blocks (or, for a path with a folder
// that only the repository has, such as examples/quickstart.sql, in the
// repository), and
// what it prints on stdout (and stderr, after 2>&1) must be what the page
// shows. tests/docs_test.go checks the other blocks. -update rewrites the
// outputs.
func TestDocs_commands(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := doctest.Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, page := range pages {
		if doctest.FlinkPages[page] {
			continue
		}
		lines, blocks, err := doctest.PageBlocks(root, page)
		if err != nil {
			t.Fatal(err)
		}
		scratch := t.TempDir()
		var repls []doctest.Replacement
		for _, b := range blocks {
			switch b.Verb {
			case "file", "run":
				// tests/docs_test.go reports bad names; here they are skipped.
				name := b.Arg
				if b.Verb == "run" {
					_, name, _ = doctest.RunArgs(b.Arg)
				}
				if file, err := doctest.ScratchPath(scratch, name); err == nil {
					if err := doctest.WriteFile(file, b.Body); err != nil {
						t.Fatal(err)
					}
				}
			case "":
				cmds, ok := doctest.Commands(b.Body)
				if !ok {
					continue
				}
				var got strings.Builder
				for _, c := range cmds {
					got.WriteString("$ " + c.Line + "\n")
					got.WriteString(runDocCommand(t, c.Line, scratch, root))
					ran++
				}
				if got.String() == b.Body {
					continue
				}
				if *updateLessons {
					repls = append(repls, doctest.NewBody(b, got.String()))
					continue
				}
				t.Errorf("%s:%d: the commands print\n%s\nthe page shows\n%s", page, b.Line, got.String(), b.Body)
			}
		}
		if err := doctest.Rewrite(root, page, lines, repls); err != nil {
			t.Fatal(err)
		}
	}
	if ran == 0 {
		t.Error("no command of the docs ran")
	}
}

// runDocCommand runs one command line of a page ("ptfsh ARGS [2>&1]") in
// the scratch folder, or in the repository when it names a file that only
// the repository has, and returns what it prints.
func runDocCommand(t *testing.T, line, scratch, root string) string {
	args := doctest.ShellWords(strings.TrimPrefix(line, "ptfsh "))
	combined := false
	if n := len(args); n > 0 && args[n-1] == "2>&1" {
		combined, args = true, args[:n-1]
	}
	dir := scratch
	for _, a := range args {
		if strings.HasPrefix(a, "-") || strings.ContainsAny(a, " ;'") || !strings.Contains(a, "/") {
			continue // a flag, statements, or a name without a folder
		}
		if _, err := os.Stat(filepath.Join(scratch, a)); err != nil {
			if _, err := os.Stat(filepath.Join(root, a)); err == nil {
				dir = root
			}
		}
	}
	t.Chdir(dir)
	// The exit status is not compared: a page may show a test that fails
	// on purpose, and a command that fails otherwise prints other lines.
	var out, errb bytes.Buffer
	stderr := &errb
	if combined {
		stderr = &out
	}
	run(args, strings.NewReader(""), &out, stderr)
	return out.String()
}
