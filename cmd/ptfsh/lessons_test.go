package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/internal/testarchive"
)

var updateLessons = flag.Bool("update", false, "rewrite the hidden wants of the lessons' and labs' exercises from their solutions, and the outputs of the commands shown in the docs")

// TestLessons runs every exercise of examples/lessons and examples/labs
// against its solution (solutions/ beside it), which must pass, and
// against the stub the learner starts from, which must fail, show its
// first hint and not show the expected lines; -update rewrites the
// exercises' hidden wants from the solutions. The lesson and lab scripts
// run in tests/examples_test.go.
func TestLessons(t *testing.T) {
	var exercises []string
	for _, glob := range []string{"lessons/*/*.txtar", "labs/*/*.txtar"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "examples", filepath.FromSlash(glob)))
		if err != nil {
			t.Fatal(err)
		}
		exercises = append(exercises, m...)
	}
	if len(exercises) < 11 {
		t.Fatalf("%d exercises in examples/lessons and examples/labs, want at least 11", len(exercises))
	}
	code := regexp.MustCompile(`ctx\.|=>|;\s*$|\bfunction\s*\(|\b(const|let|var)\s+\w+\s*=`)
	for _, file := range exercises {
		name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			test, err := testarchive.Read(file)
			if err != nil {
				t.Fatal(err)
			}
			want, hidden, err := test.Hidden()
			if !hidden || (err != nil && !*updateLessons) {
				t.Fatalf("the exercise keeps no hidden want (a want.hidden section): %v", err)
			}
			hints := test.Hints()
			if len(hints) < 2 {
				t.Errorf("%d hints, want at least two, one after the other", len(hints))
			}
			home := solutionHome(t, file)
			solution := solutionLines(t, home)
			for i, h := range hints {
				for _, l := range strings.Split(h, "\n") {
					if code.MatchString(l) {
						t.Errorf("hint %d gives code away: %q", i+1, l)
					}
				}
				for _, l := range solution {
					if strings.Contains(h, l) {
						t.Errorf("hint %d quotes the solution: %q", i+1, l)
					}
				}
			}
			if ok, msg := runTestFileWith(file, home, testOptions{update: *updateLessons}); !ok {
				t.Fatalf("the solution fails its exercise:\n%s", msg)
			}
			if *updateLessons {
				return
			}
			ok, msg := runTestFile(file, testOptions{})
			if ok {
				t.Fatalf("the stub passes its exercise: nothing to do for the learner")
			}
			if !strings.Contains(msg, "  hint") {
				t.Errorf("a failing exercise shows no hint:\n%s", msg)
			}
			if strings.Contains(msg, "hint 2 of") {
				t.Errorf("a failing exercise shows more than its first hint:\n%s", msg)
			}
			if strings.Contains(msg, "\n  -  ") || strings.HasPrefix(msg, "  -  ") {
				t.Errorf("the failure shows expected lines (a diff):\n%s", msg)
			}
			if len(want) == 0 {
				t.Error("the hidden want is empty")
			}
		})
	}
}

// solutionHome makes the folder a solution runs from: the exercise's
// folder as it is (its data, its helpers), with the files of solutions/
// over its stubs, and its parent's data beside it, as the exercise sees
// them.
func solutionHome(t *testing.T, file string) string {
	t.Helper()
	lab, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		t.Fatal(err)
	}
	solutions := filepath.Join(lab, "solutions")
	if _, err := os.Stat(solutions); err != nil {
		t.Fatalf("no solutions folder: %v", err)
	}
	root := t.TempDir()
	home := filepath.Join(root, filepath.Base(lab))
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if data := filepath.Join(filepath.Dir(lab), "data"); dirExists(data) {
		if err := os.Symlink(data, filepath.Join(root, "data")); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{lab, solutions} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			dst := filepath.Join(home, e.Name())
			os.Remove(dst)
			if err := os.Symlink(filepath.Join(dir, e.Name()), dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	return home
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// solutionLines are the lines of a home's solutions that are code worth
// quoting: long enough, not comments.
func solutionLines(t *testing.T, home string) []string {
	t.Helper()
	var out []string
	files, _ := filepath.Glob(filepath.Join(home, "*.js"))
	for _, f := range files {
		real, err := filepath.EvalSymlinks(f)
		if err != nil || filepath.Base(filepath.Dir(real)) != "solutions" {
			continue
		}
		b, err := os.ReadFile(real)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if len(l) >= 20 && !strings.HasPrefix(l, "//") && !strings.HasPrefix(l, "*") {
				out = append(out, l)
			}
		}
	}
	return out
}
