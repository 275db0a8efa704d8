package tests

import (
	"bytes"
	"context"
	"os"
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
