package tests

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/internal/doctest"
)

// TestDocs_architecture keeps the package table of docs/architecture.md
// and the import graph of deps_test.go (layers) listing the same
// packages, so that a package added, moved or removed is described where
// a reader of the source looks first.
func TestDocs_architecture(t *testing.T) {
	lines, err := doctest.ReadPage("..", "docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile("`([^`]+)`")
	described := map[string]bool{}
	in := false
	for _, l := range lines {
		switch {
		case l == "| package | what it owns |":
			in = true
		case in && !strings.HasPrefix(l, "|"):
			in = false
		case in && !strings.HasPrefix(l, "|---"):
			first := strings.SplitN(strings.TrimPrefix(l, "| "), " | ", 2)[0]
			for _, m := range cell.FindAllStringSubmatch(first, -1) {
				described[m[1]] = true
			}
		}
	}
	if len(described) == 0 {
		t.Fatal("docs/architecture.md has no table under \"| package | what it owns |\"")
	}
	for pkg := range layers {
		if !described[pkg] {
			t.Errorf("docs/architecture.md does not describe package %s: add a row to its table of packages", pkg)
		}
	}
	for pkg := range described {
		if _, ok := layers[pkg]; !ok {
			t.Errorf("docs/architecture.md describes package %s, which tests/deps_test.go does not know: remove or rename its row", pkg)
		}
	}
}
