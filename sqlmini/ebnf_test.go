package sqlmini_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

var update = flag.Bool("update", false, "rewrite testdata/grammar.ebnf from the parser")

// TestGrammar keeps testdata/grammar.ebnf equal to the grammar participle
// derives from the AST, so that a change to a parser tag shows in review.
// After changing the grammar on purpose, run go test ./sqlmini -update
// and read the diff.
func TestGrammar(t *testing.T) {
	golden := filepath.Join("testdata", "grammar.ebnf")
	got := sqlmini.Grammar() + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./sqlmini -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("grammar differs from %s (run go test ./sqlmini -update if the change is meant):\n%s", golden, lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	count := map[string]int{}
	for _, l := range strings.Split(got, "\n") {
		count[l]++
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("- " + l + "\n")
	}
	for _, l := range strings.Split(got, "\n") {
		if count[l] > 0 {
			count[l]--
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
