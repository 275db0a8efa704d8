package tests

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/expr"
)

// The table of built-in scalar functions of docs/sql.md, by its header
// line.
const functionsHeader = "| function | what it gives |"

// sqlPage is the page with the table of functions.
const sqlPage = "../docs/sql.md"

// functionRows renders the rows of the table of functions from
// runtime/expr's catalogue.
func functionRows() []string {
	var rows []string
	for _, f := range expr.Functions() {
		rows = append(rows, fmt.Sprintf("| `%s` | %s |", strings.ReplaceAll(f.Signature, "|", `\|`), f.Doc))
	}
	return rows
}

// TestFunctionsDoc keeps the table of functions of docs/sql.md equal to
// the catalogue that compiles them and that SHOW FUNCTIONS lists. go test
// ./tests -run TestFunctionsDoc -update rewrites it.
func TestFunctionsDoc(t *testing.T) {
	b, err := os.ReadFile(sqlPage)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start, got := docTable(t, "docs/sql.md", lines, functionsHeader)
	want := functionRows()
	if *update {
		lines = append(lines[:start], append(want, lines[start+len(got):]...)...)
		if err := os.WriteFile(sqlPage, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/sql.md: the table of functions differs from runtime/expr's catalogue (-want +got); go test ./tests -run TestFunctionsDoc -update rewrites it:\n%s", diff)
	}
}
