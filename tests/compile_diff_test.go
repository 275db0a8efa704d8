package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompiledExamples runs every example script, lesson and lab with
// compiled functions ('ptf.compile' on) and on goja alone (off), and
// wants the same output: rows, errors, SHOW STATE, timers.
func TestCompiledExamples(t *testing.T) {
	var scripts []string
	for _, pat := range []string{"*.sql", "lessons/*/*.sql", "labs/*/*.sql"} {
		m, err := filepath.Glob(filepath.Join("..", "examples", pat))
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, m...)
	}
	if len(scripts) < 10 {
		t.Fatalf("%d example scripts", len(scripts))
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
			run := func(on string) string {
				return RunScriptNamed(t, dir, filepath.Base(path), "SET 'ptf.compile' = '"+on+"';\n"+string(src))
			}
			off, on := run("off"), run("on")
			if diff := cmp.Diff(off, on); diff != "" {
				t.Errorf("compiled output differs from goja's (-goja +compiled):\n%s", diff)
			}
		})
	}
}
