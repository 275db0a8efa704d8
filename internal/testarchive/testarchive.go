// Package testarchive reads the test files of `ptfsh test` and of the
// project's own golden tests: txtar archives whose `-- query.sql --`
// section holds the statements, `-- want.out --` what they print, and
// every other section a file the statements use (functions, data), except
// the sections of ptfsh test's other checks (Checks: want.state,
// want.timers, want.counts), `-- hint --` or `-- hint 1 --`, `-- hint 2
// --`, ..., the text a failing test shows, one more at each asking, and
// `-- want.hidden --`, what an exercise must print, kept out of sight
// (base64) so that a learner who opens the file does not read the answer.
package testarchive

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/txtar"
)

// Checks are the sections, besides want.out, that hold what a test must
// leave behind; they are not files of the test.
var Checks = []string{"want.state", "want.timers", "want.counts"}

// notFiles are the sections Extract does not write (besides the
// numbered hints, "hint 1", "hint 2", ...).
var notFiles = map[string]bool{"query.sql": true, "want.out": true, "want.hidden": true, "hint": true,
	"want.state": true, "want.timers": true, "want.counts": true}

// isHint reports whether a section is a hint: "hint", or "hint N".
func isHint(name string) bool {
	if name == "hint" {
		return true
	}
	n, ok := strings.CutPrefix(name, "hint ")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// Test is one test file.
type Test struct {
	// File is the archive's path.
	File string
	// Query is the query.sql section.
	Query string

	ar   *txtar.Archive
	want int // index of want.out in ar.Files; -1: none
}

// Read parses the test file at path. A file without a query.sql section
// is an error.
func Read(path string) (*Test, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	t := &Test{File: path, ar: ar, want: -1}
	hasQuery := false
	for i, f := range ar.Files {
		switch f.Name {
		case "query.sql":
			t.Query, hasQuery = string(f.Data), true
		case "want.out":
			t.want = i
		}
	}
	if !hasQuery || t.Query == "" {
		return nil, fmt.Errorf("%s: no -- query.sql -- section", path)
	}
	return t, nil
}

// Extract writes the archive's other sections under dir. A section name
// must be a relative path that stays inside dir (no "..", not absolute).
func (t *Test) Extract(dir string) error {
	for _, f := range t.ar.Files {
		if notFiles[f.Name] || isHint(f.Name) {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(f.Name)) {
			return fmt.Errorf("%s: section %q: a file name must be a relative path inside the test's folder", t.File, f.Name)
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Comment returns the text before the first section (the test's
// description; the conformance archives keep Flink's expected rows there).
func (t *Test) Comment() string { return string(t.ar.Comment) }

// Want returns the want.out section, and false when there is none.
func (t *Test) Want() (string, bool) {
	if t.want < 0 {
		return "", false
	}
	return string(t.ar.Files[t.want].Data), true
}

// Update sets the want.out section to out (adding it at the end when
// missing) and rewrites the file.
func (t *Test) Update(out string) error {
	if t.want < 0 {
		t.ar.Files = append(t.ar.Files, txtar.File{Name: "want.out"})
		t.want = len(t.ar.Files) - 1
	}
	t.ar.Files[t.want].Data = []byte(out)
	return os.WriteFile(t.File, txtar.Format(t.ar), 0o644)
}

// Section returns the section called name, and false when there is none.
func (t *Test) Section(name string) (string, bool) {
	for _, f := range t.ar.Files {
		if f.Name == name {
			return string(f.Data), true
		}
	}
	return "", false
}

// SetSection sets the section called name to text (adding it at the end
// when missing); Save writes the file.
func (t *Test) SetSection(name, text string) {
	for i, f := range t.ar.Files {
		if f.Name == name {
			t.ar.Files[i].Data = []byte(text)
			return
		}
	}
	t.ar.Files = append(t.ar.Files, txtar.File{Name: name, Data: []byte(text)})
	if name == "want.out" {
		t.want = len(t.ar.Files) - 1
	}
}

// Save rewrites the file with its sections as they are now.
func (t *Test) Save() error {
	return os.WriteFile(t.File, txtar.Format(t.ar), 0o644)
}

// Hints returns the hints in the order they are shown: the hint section,
// then hint 1, hint 2, ... by number.
func (t *Test) Hints() []string {
	type numbered struct {
		n    int
		text string
	}
	var hs []numbered
	for _, f := range t.ar.Files {
		switch {
		case f.Name == "hint":
			hs = append(hs, numbered{0, string(f.Data)})
		case isHint(f.Name):
			n, _ := strconv.Atoi(strings.TrimPrefix(f.Name, "hint "))
			hs = append(hs, numbered{n, string(f.Data)})
		}
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].n < hs[j].n })
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		if strings.TrimSpace(h.text) != "" {
			out = append(out, h.text)
		}
	}
	return out
}

// Hidden returns what the want.hidden section keeps, decoded, and false
// when there is none; a section that does not decode is an error.
func (t *Test) Hidden() (string, bool, error) {
	text, ok := t.Section("want.hidden")
	if !ok {
		return "", false, nil
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
	if err != nil {
		return "", true, fmt.Errorf("%s: the want.hidden section is not base64 (ptfsh test -update writes it): %w", t.File, err)
	}
	return string(b), true, nil
}

// SetHidden sets the want.hidden section to out, encoded; Save writes
// the file.
func (t *Test) SetHidden(out string) {
	enc := base64.StdEncoding.EncodeToString([]byte(out))
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\n")
	t.SetSection("want.hidden", b.String())
}
