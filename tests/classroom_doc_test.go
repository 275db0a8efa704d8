package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDocs = update // -update also rewrites the text blocks of docs/classroom.md

// TestClassroomDoc runs each sql block of docs/classroom.md that a text
// block follows, in examples/ or the folder a "<!-- dir: ... -->" line
// before it names, and compares what it prints with the text block;
// -update rewrites the text blocks. (cmd/ptfsh's TestClassroomDoc_commands
// runs its "$ ptfsh" blocks.)
func TestClassroomDoc(t *testing.T) {
	const doc = "../docs/classroom.md"
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	ran := 0
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```sql" {
			continue
		}
		dir := "examples"
		if i > 0 && strings.HasPrefix(lines[i-1], "<!-- dir: ") {
			dir = strings.TrimSuffix(strings.TrimPrefix(lines[i-1], "<!-- dir: "), " -->")
		}
		j := i + 1
		for j < len(lines) && lines[j] != "```" {
			j++
		}
		src := strings.Join(lines[i+1:j], "\n") + "\n"
		k := j + 1
		for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k >= len(lines) || lines[k] != "```text" {
			continue
		}
		end := k + 1
		for end < len(lines) && lines[end] != "```" {
			end++
		}
		want := strings.Join(lines[k+1:end], "\n")
		if end > k+1 {
			want += "\n"
		}
		abs, err := filepath.Abs(filepath.Join("..", filepath.FromSlash(dir)))
		if err != nil {
			t.Fatal(err)
		}
		got := RunScriptNamed(t, abs, "doc.sql", src)
		ran++
		if *updateDocs {
			var body []string
			if got != "" {
				body = strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			}
			lines = append(lines[:k+1], append(body, lines[end:]...)...)
			i = k + 1 + len(body)
			continue
		}
		if got != want {
			t.Errorf("%s:%d: the block prints\n%s\nthe doc shows\n%s", doc, i+1, got, want)
		}
		i = end
	}
	if ran < 2 {
		t.Errorf("%d blocks of %s ran, want at least 2", ran, doc)
	}
	if *updateDocs {
		if err := os.WriteFile(doc, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
