package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateLessons = flag.Bool("update", false, "rewrite the want sections of the lessons' exercises from their solutions, and the outputs of the commands shown in the docs")

// TestLessons runs every exercise of examples/lessons against its
// solution (solutions/ beside it), which must pass, and against the stub
// the learner starts from, which must fail and show the exercise's hint;
// -update rewrites the exercises' want sections from the solutions. The
// lesson scripts run in tests/examples_test.go.
func TestLessons(t *testing.T) {
	exercises, err := filepath.Glob(filepath.Join("..", "..", "examples", "lessons", "*", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exercises) < 3 {
		t.Fatalf("%d exercises in examples/lessons, want at least 3", len(exercises))
	}
	for _, file := range exercises {
		name := filepath.Base(filepath.Dir(file)) + "/" + strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			solutions, err := filepath.Abs(filepath.Join(filepath.Dir(file), "solutions"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(solutions); err != nil {
				t.Fatalf("no solutions folder: %v", err)
			}
			if ok, msg := runTestFileWith(file, solutions, *updateLessons, 0); !ok {
				t.Fatalf("the solution fails its exercise:\n%s", msg)
			}
			if *updateLessons {
				return
			}
			ok, msg := runTestFile(file, false, 0)
			if ok {
				t.Fatalf("the stub passes its exercise: nothing to do for the learner")
			}
			if !strings.Contains(msg, "  hint: ") {
				t.Errorf("a failing exercise shows no hint:\n%s", msg)
			}
		})
	}
}
