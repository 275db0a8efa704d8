package session

import (
	"path/filepath"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/catalog"
)

// InputFiles returns the absolute paths of the files the session's
// catalog reads: every user function's file and the files it imports,
// and every file table's path (a file or a folder). ptfsh watch reruns a
// script when one of them, or the script, changes.
func (s *Session) InputFiles() []string {
	seen := map[string]bool{}
	for _, f := range s.cat.Functions() {
		if f.BuiltIn {
			continue
		}
		for _, st := range f.Files {
			seen[st.Path] = true
		}
	}
	for _, name := range s.cat.TableNames() {
		t, ok := s.cat.Table(name)
		if !ok || t.Kind != catalog.TableConnector {
			continue
		}
		p := t.Options["path"]
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.BaseDir, p)
		}
		if abs, err := filepath.Abs(p); err == nil {
			seen[abs] = true
		}
	}
	files := make([]string, 0, len(seen))
	for p := range seen {
		files = append(files, p)
	}
	sort.Strings(files)
	return files
}
