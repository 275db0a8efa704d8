package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// historyRe finds what narrates the project's history rather than
// describing the code: issue numbers, numbered sessions of work, and the
// product contract under a name it does not have in the repository.
var historyRe = regexp.MustCompile(`(?i)\bissues? #?\d+\b|\b(third|fourth|fifth|sixth|seventh|eighth|ninth|tenth) session\b|\bDESIGN §`)

// TestDocs_noHistory checks that the docs, comments, examples and test
// data of the repository describe what is, not how it came to be: the
// history goes to CHANGES.md (and the commit log).
func TestDocs_noHistory(t *testing.T) {
	exts := map[string]bool{".go": true, ".md": true, ".sql": true, ".js": true, ".ts": true, ".txtar": true,
		".tmpl": true, ".java": true, ".mjs": true, ".sh": true, ".out": true}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == "node_modules" || strings.HasSuffix(rel, "/target") {
				return filepath.SkipDir
			}
			return nil
		}
		if rel == "CHANGES.md" || !exts[filepath.Ext(path)] && rel != ".ci/run" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := historyRe.FindString(line); m != "" {
				t.Errorf("%s:%d: %q narrates history (%q): say what the code does, and put the history in CHANGES.md", rel, i+1, strings.TrimSpace(line), m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
