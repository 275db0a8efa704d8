package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/internal/testarchive"
	"github.com/ptfsh/ptfsh/state"
)

// The Flink SQL cookbook (github.com/ververica/flink-sql-cookbook) as a
// test: tests/cookbook holds one archive per recipe, its SQL as the recipe
// writes it (copied: the cookbook is under the Apache License 2.0, see
// tests/cookbook/README.md), and what ptfsh prints for it. The recipes are
// written for unbounded generated tables and the wall clock; the test runs
// them with a fixed seed, the processing-time clock of ptfsh test, and
// every generated table that sets no number-of-rows bounded to
// cookbookRows rows, so that each query ends and its rows are the same on
// every run: they are compared whole.
//
// Each archive's comment says, in lines "key: value":
//
//	recipe: the section and title, as the cookbook's table of contents
//	source: the recipe's file in the cookbook
//	status: runs | refused | not yet
//	why: (refused, not yet) the reason, one line
//	adapted: (optional) what the recipe itself says to change, changed
//	note: (optional) where ptfsh's result differs from Flink's
//	kafka: (optional) the topics of a recipe that reads and writes Kafka
//	  at localhost:9092: the test runs it against a fake cluster (or with
//	  PTFSH_KAFKA=1 a real broker) with those topics, at whose address
//	  the recipe's localhost:9092 points
//
// A recipe that runs prints no error; one refused or not yet stops at
// the error that says why. docs/cookbook.md lists the recipes with their
// status; go test ./tests -run TestCookbook -update rewrites it and the
// archives' outputs.

// cookbookRows bounds the generated tables of the recipes.
const cookbookRows = 20

// cookbookRecipe is one archive of tests/cookbook.
type cookbookRecipe struct {
	file, recipe, source, status, why, adapted, note, kafka string
}

// readRecipe reads an archive's comment.
func readRecipe(t *testing.T, file string, test *testarchive.Test) cookbookRecipe {
	t.Helper()
	r := cookbookRecipe{file: file}
	for _, line := range strings.Split(test.Comment(), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case "recipe":
			r.recipe = v
		case "source":
			r.source = v
		case "status":
			r.status = v
		case "why":
			r.why = v
		case "adapted":
			r.adapted = v
		case "note":
			r.note = v
		case "kafka":
			r.kafka = v
		}
	}
	if r.recipe == "" || r.source == "" {
		t.Fatalf("%s: the comment needs 'recipe:' and 'source:' lines", file)
	}
	switch r.status {
	case "runs":
	case "refused", "not yet":
		if r.why == "" {
			t.Fatalf("%s: status %q needs a 'why:' line", file, r.status)
		}
	default:
		t.Fatalf("%s: status %q is not runs, refused or not yet", file, r.status)
	}
	return r
}

// errorLine matches an error that ptfsh prints for a statement.
var errorLine = regexp.MustCompile(`(?m)^query\d*\.sql:\d+:\d+: `)

// runRecipe runs a recipe's statements as ptfsh -f would, with the
// cookbook's bounds, and returns what it printed.
func runRecipe(t *testing.T, dir, name, query string) string {
	t.Helper()
	var out bytes.Buffer
	seed := int64(1)
	sh, err := assembly.New(assembly.Options{Out: &out, Store: state.NewMem(), BaseDir: dir, Seed: &seed, Format: "rows",
		EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime, GeneratedRows: cookbookRows})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh.RunEach(ctx, name, query, &out)
	return strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
}

func TestCookbook(t *testing.T) {
	files, err := filepath.Glob("cookbook/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 35 {
		t.Fatalf("tests/cookbook has %d recipes, want the cookbook's 35", len(files))
	}
	var recipes []cookbookRecipe
	for _, file := range files {
		test, dir := extractArchive(t, file)
		r := readRecipe(t, file, test)
		recipes = append(recipes, r)
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			// A recipe of several examples that each stand alone has a
			// section for each (query.sql, query2.sql, ...), run in a
			// session of its own.
			var got string
			servers := ""
			if r.kafka != "" {
				servers = startKafka(t, func(string) (string, bool) {
					return strings.Join(strings.Fields(r.kafka), "\n"), true
				})
			}
			for i := 1; ; i++ {
				name := "query.sql"
				if i > 1 {
					name = fmt.Sprintf("query%d.sql", i)
				}
				query, ok := test.Section(name)
				if !ok {
					if i == 1 {
						t.Fatalf("%s: no query.sql section", file)
					}
					break
				}
				if servers != "" {
					query = strings.ReplaceAll(query, "'localhost:9092'", "'"+servers+"'")
				}
				out := runRecipe(t, dir, name, query)
				if servers != "" {
					out = strings.ReplaceAll(out, servers, "localhost:9092")
				}
				got += out
			}
			failed := errorLine.MatchString(got)
			switch {
			case r.status == "runs" && failed:
				t.Errorf("%s: the recipe runs, but ptfsh printed an error:\n%s", file, firstError(got))
			case r.status != "runs" && !failed:
				t.Errorf("%s: the recipe is %s, but ptfsh printed no error", file, r.status)
			}
			if *update {
				if err := test.Update(got); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, _ := test.Want()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: output differs (-want +got):\n%s", file, diff)
			}
		})
	}
	checkCookbookDoc(t, recipes)
}

// firstError is the first error ptfsh printed, with its caret lines.
func firstError(out string) string {
	loc := errorLine.FindStringIndex(out)
	rest := out[loc[0]:]
	lines := strings.SplitN(rest, "\n", 4)
	return strings.Join(lines[:min(3, len(lines))], "\n")
}

// checkCookbookDoc compares the table of docs/cookbook.md with the
// archives (-update rewrites it).
func checkCookbookDoc(t *testing.T, recipes []cookbookRecipe) {
	t.Helper()
	sort.SliceStable(recipes, func(i, j int) bool { return recipes[i].file < recipes[j].file })
	runs := 0
	var b strings.Builder
	b.WriteString("| recipe | status | archive |\n|---|---|---|\n")
	for _, r := range recipes {
		status := r.status
		if r.why != "" {
			status += ": " + r.why
		}
		if r.adapted != "" {
			status += " (adapted: " + r.adapted + ")"
		}
		if r.note != "" {
			status += " (note: " + r.note + ")"
		}
		if r.status == "runs" {
			runs++
		}
		fmt.Fprintf(&b, "| %s (`%s`) | %s | [%s](../tests/%s) |\n", r.recipe, r.source, status, filepath.Base(r.file), filepath.ToSlash(r.file))
	}
	fmt.Fprintf(&b, "\n%d of %d recipes run with their SQL unchanged.\n", runs, len(recipes))
	table := b.String()
	const path = "../docs/cookbook.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- recipes: generated by go test ./tests -run TestCookbook -update -->\n", "<!-- end of recipes -->\n"
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/cookbook.md has no %q ... %q block", strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	if got := s[i+len(begin) : j]; got != table {
		if *update {
			if err := os.WriteFile(path, []byte(s[:i+len(begin)]+table+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("docs/cookbook.md's table of recipes differs from tests/cookbook (go test ./tests -run TestCookbook -update rewrites it):\n%s", cmp.Diff(got, table))
	}
	// The README's line on the cookbook gives the count too.
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	count := fmt.Sprintf("%d of %d run", runs, len(recipes))
	if !strings.Contains(string(readme), "Ververica's recipes on ptfsh ("+count) {
		t.Errorf("README.md's line on the cookbook should say \"Ververica's recipes on ptfsh (%s\"", count)
	}
}
