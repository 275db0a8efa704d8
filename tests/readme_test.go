package tests

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
)

// readmeBlocks returns the README's fenced blocks in order: the language
// after the fence and the lines inside.
func readmeBlocks(t *testing.T) (langs []string, bodies []string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		lang := strings.TrimSpace(lines[i][3:])
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		langs = append(langs, lang)
		bodies = append(bodies, strings.Join(lines[i+1:j], "\n")+"\n")
		i = j
	}
	return langs, bodies
}

// TestReadme_tour runs the statements of the README's five-minute tour in
// examples/ and compares what ptfsh prints with the README's blocks: the
// tableau result and the `--format rows` run of the same statements. (The
// other command blocks of the README show part of an output, "...", or an
// edit between runs: TestWatch and the pty test run those loops.)
func TestReadme_tour(t *testing.T) {
	langs, bodies := readmeBlocks(t)
	tour := -1
	for i, l := range langs {
		if l == "sql" && strings.Contains(bodies[i], "CREATE FUNCTION GreetingWithMemory") {
			tour = i
			break
		}
	}
	if tour < 0 || tour+2 >= len(bodies) {
		t.Fatal("README.md: the tour's SQL block (CREATE FUNCTION GreetingWithMemory) and its outputs are not found")
	}
	examples := "../examples" // relative: New makes it absolute
	run := func(format string) string {
		var out bytes.Buffer
		sh, err := assembly.New(assembly.Options{Out: &out, Memory: true, BaseDir: examples, Format: format})
		if err != nil {
			t.Fatal(err)
		}
		defer sh.Close()
		if err := sh.Session.Exec(context.Background(), "greet.sql", bodies[tour]); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got, want := run("tableau"), bodies[tour+1]; got != want {
		t.Errorf("the tour's result differs from README.md:\n got:\n%s\nwant:\n%s", got, want)
	}
	rows := bodies[tour+2]
	const cmd = "$ ptfsh --format rows -f greet.sql\n"
	if !strings.HasPrefix(rows, cmd) {
		t.Fatalf("README.md: the block after the tour's result does not start with %q", cmd)
	}
	if got, want := run("rows"), strings.TrimPrefix(rows, cmd); got != want {
		t.Errorf("--format rows differs from README.md:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// shellWords splits a command line as sh does for plain words and
// "double" or 'single' quoted ones (no escapes, no expansions).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// TestReadme_commands runs each `$ ptfsh [--format F] -e "..."` of the
// README's blocks whose statements are written out (not "...") and
// compares what it prints (stdout) with the lines after it.
func TestReadme_commands(t *testing.T) {
	langs, bodies := readmeBlocks(t)
	ran := 0
	for i, body := range bodies {
		if langs[i] != "" {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		for j := 0; j < len(lines); j++ {
			if !strings.HasPrefix(lines[j], "$ ptfsh ") {
				continue
			}
			k := j + 1
			for k < len(lines) && !strings.HasPrefix(lines[k], "$ ") {
				k++
			}
			cmd, want := lines[j], strings.Join(lines[j+1:k], "\n")+"\n"
			j = k - 1
			args := shellWords(strings.TrimPrefix(cmd, "$ ptfsh "))
			format, src := "tableau", ""
			for a := 0; a < len(args); a++ {
				switch {
				case args[a] == "--format" && a+1 < len(args):
					format = args[a+1]
					a++
				case args[a] == "-e" && a+1 < len(args):
					src = args[a+1]
					a++
				default:
					src = "" // a command this test does not run (-f FILE, watch)
					a = len(args)
				}
			}
			if src == "" || strings.Contains(src, "...") {
				continue
			}
			var out bytes.Buffer
			sh, err := assembly.New(assembly.Options{Out: &out, Err: io.Discard, Memory: true, BaseDir: t.TempDir(), Format: format})
			if err != nil {
				t.Fatal(err)
			}
			if err := sh.Session.Exec(context.Background(), "", src); err != nil {
				t.Errorf("README.md: %s: %v", cmd, err)
			}
			sh.Close()
			if got := out.String(); got != want {
				t.Errorf("README.md: %s prints\n%s\nthe README shows\n%s", cmd, got, want)
			}
			ran++
		}
	}
	if ran == 0 {
		t.Error("no $ ptfsh -e command of the README ran")
	}
}

// TestReadme_testFile runs the README's example of a test file (Testing
// your PTFs) as ptfsh test does: its want.out must be what it prints.
func TestReadme_testFile(t *testing.T) {
	langs, bodies := readmeBlocks(t)
	for i, body := range bodies {
		if langs[i] != "" || !strings.HasPrefix(body, "-- greet.js --\n") {
			continue
		}
		file := filepath.Join(t.TempDir(), "greet.txtar")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		test, dir := extractArchive(t, file)
		want, _ := test.Want()
		if got := RunScript(t, dir, test.Query); got != want {
			t.Errorf("README.md's test file prints\n%s\nits want.out is\n%s", got, want)
		}
		return
	}
	t.Error("README.md: the example test file (-- greet.js --) is not found")
}
