package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCIFuzzesEveryTarget: every fuzz target of the repository is in
// .ci/run's fuzz smoke, as ./package:FuzzName:count, so that a new
// parser's or decoder's fuzz target runs in CI beyond its seeds.
func TestCIFuzzesEveryTarget(t *testing.T) {
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	n := 0
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != ".." || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../"))
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			n++
			if want := pkg + ":" + string(m[1]) + ":"; !strings.Contains(string(ci), want) {
				t.Errorf("%s: %s is not in .ci/run's fuzz smoke: add %s<count>", path, m[1], want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("found %d fuzz targets; the walk missed the repository", n)
	}
}
