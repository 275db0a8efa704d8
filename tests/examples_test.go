package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExamples runs every examples/*.sql script, lesson
// (examples/lessons/*/*.sql) and lab (examples/labs/*/*.sql) and compares what it prints (results and
// errors) with <name>.out beside it; -update rewrites the .out files.
func TestExamples(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join("..", "examples", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	lessons, err := filepath.Glob(filepath.Join("..", "examples", "lessons", "*", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(lessons) < 3 {
		t.Errorf("%d lessons in examples/lessons, want 3", len(lessons))
	}
	labs, err := filepath.Glob(filepath.Join("..", "examples", "labs", "*", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(labs) < 4 {
		t.Errorf("%d labs in examples/labs, want 4", len(labs))
	}
	scripts = append(append(scripts, lessons...), labs...)
	if len(scripts) == 0 {
		t.Fatal("no examples found")
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(path), "../examples/"), ".sql")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			dir, err := filepath.Abs(filepath.Dir(path))
			if err != nil {
				t.Fatal(err)
			}
			got := RunScriptNamed(t, dir, filepath.Base(path), string(src))
			golden := strings.TrimSuffix(path, ".sql") + ".out"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./tests -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s: output differs (-want +got):\n%s", golden, diff)
			}
		})
	}
}
