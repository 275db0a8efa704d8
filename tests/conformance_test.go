package tests

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// knownFailing lists the conformance archives (by file name without
// .txtar) that do not meet Flink's oracle yet, with the reason. They are
// skipped; the test fails when one of them starts to pass, so that the list
// stays honest.
var knownFailing = map[string]string{
	"sql_coll_array_map": "ARRAY[1, 2][5]: Flink 2.3.0 gives -1 (it reads past the end of a constant array), where its documentation says an index out of range gives NULL; ptfsh gives NULL",
}

// TestConformance checks each archive of testdata/conformance against
// Flink's own oracle, written in the archive's comment, independently of
// its golden want.out. The comment holds one or more directives:
//
//	flink-expected:      the rows Flink's test asserts, one per line up to a
//	                     blank line, compared with the +I/-U/+U/-D lines of
//	                     the output as multisets (Flink's containsExactlyInAnyOrder)
//	derived-expected:    the same, for rows derived from a Flink plan test
//	                     that runs no query
//	flink-error: TEXT    TEXT must occur in the output (Flink matches some
//	                     cause's message by substring)
//	flink-columns: T c, ...  the output columns of Flink's optimized plan
//	                     ("INTEGER score, VARCHAR(2147483647) out"), compared
//	                     with the one DESCRIBE table the script prints
func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no conformance archives found")
	}
	seen := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			problems := checkConformance(t, file)
			reason, known := knownFailing[name]
			switch {
			case known && len(problems) == 0:
				t.Errorf("%s passes now: remove it from knownFailing (was: %s)", name, reason)
			case known:
				t.Skipf("known failing: %s\n%s", reason, strings.Join(problems, "\n"))
			default:
				for _, p := range problems {
					t.Error(p)
				}
			}
		})
	}
	for name := range knownFailing {
		if !seen[name] {
			t.Errorf("knownFailing names %s, which has no archive in testdata/conformance", name)
		}
	}
}

// oracle is what an archive's comment says Flink expects.
type oracle struct {
	rows    []string // flink-expected and derived-expected rows
	hasRows bool
	errors  []string
	columns []column
	hasCols bool
}

type column struct{ name, typ string }

// parseOracle reads the directives of an archive's comment.
func parseOracle(comment string) (oracle, error) {
	var o oracle
	lines := strings.Split(comment, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t\r")
		switch {
		case line == "flink-expected:" || line == "derived-expected:":
			o.hasRows = true
			for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
				i++
				o.rows = append(o.rows, strings.TrimRight(lines[i], " \t\r"))
			}
		case strings.HasPrefix(line, "flink-error:"):
			msg := strings.TrimSpace(strings.TrimPrefix(line, "flink-error:"))
			if msg == "" {
				return o, fmt.Errorf("empty flink-error directive")
			}
			o.errors = append(o.errors, msg)
		case strings.HasPrefix(line, "flink-columns:"):
			o.hasCols = true
			for _, c := range strings.Split(strings.TrimPrefix(line, "flink-columns:"), ",") {
				c = strings.TrimSpace(c)
				sp := strings.LastIndexByte(c, ' ')
				if sp < 0 {
					return o, fmt.Errorf("flink-columns: %q is not \"TYPE name\"", c)
				}
				o.columns = append(o.columns, column{name: c[sp+1:], typ: c[:sp]})
			}
		}
	}
	if !o.hasRows && len(o.errors) == 0 && !o.hasCols {
		return o, fmt.Errorf("the archive's comment has no flink-expected, derived-expected, flink-error or flink-columns directive")
	}
	return o, nil
}

// checkConformance runs an archive's query and returns how its output
// departs from the oracle (nothing when it conforms).
func checkConformance(t *testing.T, file string) []string {
	t.Helper()
	test, dir := extractArchive(t, file)
	o, err := parseOracle(test.Comment())
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := RunScript(t, dir, test.Query)

	var problems []string
	if o.hasRows {
		got := changelogRows(out)
		want := append([]string(nil), o.rows...)
		sort.Strings(got)
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			problems = append(problems, fmt.Sprintf("rows differ from Flink's as multisets (-flink +ptfsh):\n%s\nfull output:\n%s", diff, out))
		}
	}
	for _, msg := range o.errors {
		if !strings.Contains(out, msg) {
			problems = append(problems, fmt.Sprintf("the output does not contain Flink's message\n  %s\nfull output:\n%s", msg, out))
		}
	}
	if o.hasCols {
		got, err := describedColumns(out)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%v; full output:\n%s", err, out))
		} else {
			want := make([]column, len(o.columns))
			for i, c := range o.columns {
				want[i] = column{name: c.name, typ: normalizeType(c.typ)}
			}
			for i := range got {
				got[i].typ = normalizeType(got[i].typ)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(column{})); diff != "" {
				problems = append(problems, fmt.Sprintf("output columns differ from Flink's plan (-flink +ptfsh):\n%s", diff))
			}
		}
	}
	return problems
}

// changelogRows returns the output lines that are rows printed as Flink's
// Row.toString: +I[...], -U[...], +U[...], -D[...].
func changelogRows(out string) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		if len(line) >= 3 && (line[0] == '+' || line[0] == '-') && strings.ContainsRune("IUD", rune(line[1])) && line[2] == '[' {
			rows = append(rows, line)
		}
	}
	return rows
}

// describedColumns reads the name and type columns of the one DESCRIBE
// table in out.
func describedColumns(out string) ([]column, error) {
	lines := strings.Split(out, "\n")
	var cols []column
	tables := 0
	for i := 0; i < len(lines); i++ {
		cells := tableCells(lines[i])
		if len(cells) < 2 || cells[0] != "name" || cells[1] != "type" {
			continue
		}
		tables++
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			c := tableCells(lines[i])
			cols = append(cols, column{name: c[0], typ: c[1]})
		}
	}
	if tables != 1 {
		return nil, fmt.Errorf("want exactly one DESCRIBE table in the output, found %d", tables)
	}
	return cols, nil
}

func tableCells(line string) []string {
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// normalizeType maps Flink's plan spelling of a type to ptfsh's DESCRIBE
// spelling; nullability is not compared.
func normalizeType(t string) string {
	t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "NOT NULL"))
	switch t {
	case "VARCHAR(2147483647)":
		return "STRING"
	case "INTEGER":
		return "INT"
	}
	return t
}
