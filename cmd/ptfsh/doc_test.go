package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClassroomDoc_commands runs the "$ ptfsh ..." commands of
// docs/classroom.md's plain blocks from the repository's root, and
// compares what they print (stdout) with the lines after them.
func TestClassroomDoc_commands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "classroom.md"))
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	lines := strings.Split(string(b), "\n")
	ran := 0
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```" || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "$ ptfsh ") {
			continue
		}
		j := i + 2
		for j < len(lines) && lines[j] != "```" {
			j++
		}
		cmd := strings.Fields(strings.TrimPrefix(lines[i+1], "$ ptfsh "))
		want := strings.Join(lines[i+2:j], "\n") + "\n"
		_, got, _ := runCmd(t, "", cmd...)
		if got != want {
			t.Errorf("docs/classroom.md:%d: %s prints\n%s\nthe doc shows\n%s", i+2, lines[i+1], got, want)
		}
		ran++
		i = j
	}
	if ran == 0 {
		t.Error("no $ ptfsh command of docs/classroom.md ran")
	}
}
