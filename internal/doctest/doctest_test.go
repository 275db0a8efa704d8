package doctest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBlocks(t *testing.T) {
	page := strings.Join([]string{
		"# A page",
		"",
		"<!-- doc: run in examples as greet.sql -->",
		"```sql",
		"SELECT 1;",
		"```",
		"",
		"```",
		"+I[1]",
		"```",
		"- a list item",
		"",
		"    a continuation, not code",
		"",
		"```js",
		"```",
	}, "\n")
	blocks, err := Blocks(strings.Split(page, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Block{
		{Line: 4, Lang: "sql", Body: "SELECT 1;\n", Verb: "run", Arg: "in examples as greet.sql", Start: 4, End: 5},
		{Line: 8, Body: "+I[1]\n", Start: 8, End: 9},
		{Line: 15, Lang: "js", Start: 15, End: 15},
	}
	if !reflect.DeepEqual(blocks, want) {
		t.Errorf("got %+v\nwant %+v", blocks, want)
	}
	dir, name, err := RunArgs(blocks[0].Arg)
	if dir != "examples" || name != "greet.sql" || err != nil {
		t.Errorf("RunArgs: %q %q %v", dir, name, err)
	}
	if _, _, err := RunArgs("somewhere"); err == nil {
		t.Error("RunArgs took a word it does not know")
	}
}

func TestBlocks_errors(t *testing.T) {
	for name, page := range map[string]string{
		"indented": "text\n\n    code\n",
		"open":     "```sql\nSELECT 1;\n",
	} {
		if _, err := Blocks(strings.Split(page, "\n")); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCommands(t *testing.T) {
	cmds, ok := Commands("$ ptfsh -e \"SELECT 1;\"\n+I[1]\n$ ptfsh --format csv -f a.sql 2>&1\nEXPR$0\n1\n")
	want := []Command{{`ptfsh -e "SELECT 1;"`, "+I[1]\n"}, {"ptfsh --format csv -f a.sql 2>&1", "EXPR$0\n1\n"}}
	if !ok || !reflect.DeepEqual(cmds, want) {
		t.Errorf("got %q %v", cmds, ok)
	}
	for _, body := range []string{"", "+I[1]\n", "$ ptfsh -e x\n$ ls\n"} {
		if _, ok := Commands(body); ok {
			t.Errorf("%q is not a block of ptfsh commands", body)
		}
	}
	if got := ShellWords(`--format rows -e "SELECT 'a b';" x`); !reflect.DeepEqual(got, []string{"--format", "rows", "-e", "SELECT 'a b';", "x"}) {
		t.Errorf("ShellWords: %q", got)
	}
}

func TestCheckExcerpt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, []byte("a\nb\nc\nd\ne\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for body, ok := range map[string]bool{
		"b\nc\n":          true,
		"a\n...\nd\ne\n":  true,
		"b\nd\n":          false, // not contiguous
		"d\n...\nb\n":     false, // not in order
		"a\n...\nx\n":     false,
		"...\ne\n...\n":   true,
		"c\n...\nc\n":     false, // each line once
		"a\nb\nc\nd\ne\n": true,
	} {
		if err := CheckExcerpt(file, body); (err == nil) != ok {
			t.Errorf("%q: %v", body, err)
		}
	}
}

func TestReplaced(t *testing.T) {
	lines := []string{"```", "old", "```", "```", "x", "y", "```"}
	got := Replaced(lines, []Replacement{
		NewBody(Block{Start: 1, End: 2}, "new\nlines\n"),
		NewBody(Block{Start: 4, End: 6}, ""),
	})
	want := []string{"```", "new", "lines", "```", "```", "```"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q", got)
	}
}
