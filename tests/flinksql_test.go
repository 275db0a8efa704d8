package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"golang.org/x/tools/txtar"
)

// flinkArchives are the archives whose rows and messages TestFlinkSQL
// checks against Flink itself.
var flinkArchives = []string{"testdata/sql/match_recognize.txtar", "testdata/sql/match_recognize_proctime.txtar", "testdata/sql/lateral.txtar", "testdata/sql/lookup_join.txtar", "testdata/sql/rand.txtar", "testdata/sql/str_to_map_convert_tz.txtar", "testdata/sql/subscripts.txtar", "testdata/sql/unnest.txtar",
	"testdata/sql/batch_mode.txtar", "testdata/sql/batch_sort.txtar", "testdata/sql/batch_refusals.txtar", "testdata/sql/json_functions.txtar", "testdata/sql/cast_fraction_to_timestamp_ltz.txtar"}

// flinkUnordered are the archives of flinkArchives whose rows are compared
// with Flink's as a multiset: Flink's batch hash aggregation gives its
// groups in the order of its hash table, and its CROSS JOIN UNNEST over a
// VALUES view gives the rows of the first query in an order that changes
// between runs (1 before 2 in one run, 2 before 1 in another). ptfsh's own
// order is checked by the archives' golden test.
var flinkUnordered = map[string]bool{"testdata/sql/batch_mode.txtar": true, "testdata/sql/unnest.txtar": true}

// TestFlinkSQL runs the query.sql of each of flinkArchives on a Flink 2.3
// mini cluster (tests/flinksql: streaming mode, parallelism 1, watermarks
// as soon as they move) and checks that Flink gives the rows want.out
// holds, in the same order, and fails the statements that fail there.
// Opt-in: PTFSH_FLINK=1 (Maven downloads what ~/.m2 lacks).
func TestFlinkSQL(t *testing.T) {
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and a Flink mini cluster: set PTFSH_FLINK=1")
	}
	dir, cp := flinkClasspath(t)
	for _, name := range flinkArchives {
		ar, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		var query, want, flinkQuery string
		for _, f := range ar.Files {
			switch f.Name {
			case "query.sql":
				query = string(f.Data)
			case "flink.sql":
				// The same statements where Flink needs another table
				// declaration (a lookup connector for a dimension table).
				flinkQuery = string(f.Data)
			case "want.out":
				want = string(f.Data)
			default:
				if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if flinkQuery != "" {
			query = flinkQuery
		}
		query = regexp.MustCompile(`'path' = '([^'/]+)'`).ReplaceAllString(query, "'path' = '"+tmp+"/$1'")
		if err := os.WriteFile(filepath.Join(tmp, "flink.sql"), []byte(query), 0o644); err != nil {
			t.Fatal(err)
		}
		run := exec.Command("java", "-cp", filepath.Join(dir, "target/classes")+":"+cp, "ptfsh.RunSql", filepath.Join(tmp, "flink.sql"))
		var out bytes.Buffer
		run.Stdout = &out
		if err := run.Run(); err != nil {
			t.Fatalf("%s: Flink: %v", name, err)
		}
		got, exp := flinkLines(out.String(), "ERROR: "), flinkLines(want, "query.sql:")
		if flinkUnordered[name] {
			got, exp = sortedLines(got+"\n"), sortedLines(exp+"\n") // crash_live_test.go
		}
		if got != exp {
			t.Errorf("%s: Flink gave (rows, and E for each error)\n%s\nwant.out has\n%s", name, got, exp)
		}
	}
}

// flinkLines keeps the rows of an output and an E for each error line
// (those starting with errPrefix).
func flinkLines(s, errPrefix string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, errPrefix):
			out = append(out, "E")
		case len(l) > 2 && l[0] == '+' || strings.HasPrefix(l, "-U[") || strings.HasPrefix(l, "-D["):
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// flinkClasspath builds tests/flinksql with Maven and returns its folder
// and its class path (its dependencies'); it skips the test without
// PTFSH_FLINK=1 or Maven.
func flinkClasspath(t *testing.T) (dir, cp string) {
	t.Helper()
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and Flink: set PTFSH_FLINK=1")
	}
	return mavenClasspath(t, "flinksql")
}

// mavenClasspath builds the Maven project in the folder name of tests and
// returns the folder and its class path (its dependencies'); it skips the
// test without Maven.
func mavenClasspath(t *testing.T, name string) (dir, cp string) {
	t.Helper()
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	dir, _ = filepath.Abs(name)
	build := exec.Command(mvn, "-q", "-B", "compile", "dependency:build-classpath", "-Dmdep.outputFile=cp.txt")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("mvn: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "cp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSpace(string(b))
}

// TestFlinkSettings checks that runtime/settings knows every documented
// configuration option of the Flink on tests/flinksql's class path
// (flinksql's ListOptions lists them): SET takes each, with a note. Opt-in:
// PTFSH_FLINK=1; -update rewrites runtime/settings/flink_keys.go.
func TestFlinkSettings(t *testing.T) {
	dir, cp := flinkClasspath(t)
	out, err := exec.Command("java", "-cp", filepath.Join(dir, "target/classes")+":"+cp, "ptfsh.ListOptions").Output()
	if err != nil {
		t.Fatalf("ListOptions: %v", err)
	}
	want := strings.Fields(string(out))
	if *update {
		var b strings.Builder
		b.WriteString(flinkKeysHead)
		for _, k := range want {
			fmt.Fprintf(&b, "\t%q,\n", k)
		}
		b.WriteString("}\n")
		if err := os.WriteFile("../runtime/settings/flink_keys.go", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, settings.FlinkKeys()); diff != "" {
		t.Errorf("Flink's documented options differ from runtime/settings/flink_keys.go (-flink +ptfsh); PTFSH_FLINK=1 go test ./tests -run TestFlinkSettings -update rewrites it:\n%s", diff)
	}
	for _, k := range want {
		if _, err := settings.Check(k, "x"); err != nil {
			var unknown *settings.UnknownError
			if errors.As(err, &unknown) {
				t.Errorf("SET '%s' is refused as unknown", k)
			}
		}
	}
}

// flinkKeysHead is the start of runtime/settings/flink_keys.go.
const flinkKeysHead = `// Code generated from Flink 2.3.0 by tests/flinksql's ListOptions (go test ./tests
// -run TestFlinkSettings -update with PTFSH_FLINK=1); DO NOT EDIT.

package settings

// flinkKeys are the keys of Flink 2.3.0's configuration options, as its
// documentation lists them: those of its configuration, table, client, CEP
// and runtime modules, sorted. SET takes each with a note (IgnoredReason);
// a key that is neither one of these nor a setting of ptfsh's is an error.
var flinkKeys = []string{
`
