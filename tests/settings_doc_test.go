package tests

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/script"
)

// The tables of docs/settings.md, by their header lines.
const (
	settingsHeader = "| key | default | what it does |"
	ignoredHeader  = "| Flink option | why ptfsh ignores it |"
	groupsHeader   = "| Flink options | why ptfsh ignores them |"
)

// settingsPage is the page of settings, whose tables are generated.
const settingsPage = "../docs/settings.md"

// settingsRows renders the rows of the settings table.
func settingsRows() []string {
	var rows []string
	for _, s := range settings.All() {
		def := ""
		if s.Default != "" {
			def = "`" + s.Default + "`"
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", s.Key, def, s.Doc))
	}
	return rows
}

// ignoredRows renders the rows of the table of ignored Flink options.
func ignoredRows() []string {
	var rows []string
	for _, ig := range settings.IgnoredKeys() {
		rows = append(rows, fmt.Sprintf("| `%s` | %s |", ig.Key, ig.Reason))
	}
	return rows
}

// groupRows renders the rows of the table of the groups of Flink's
// documented options that ptfsh ignores.
func groupRows() []string {
	var rows []string
	for _, g := range settings.IgnoredGroups() {
		keys := "any other of Flink's documentation"
		if g.Prefix != "" {
			keys = "`" + g.Prefix + "*`"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s |", keys, g.Reason))
	}
	return rows
}

// docTable finds the table under header in the lines of page: the index
// of its first row and its rows.
func docTable(t *testing.T, page string, lines []string, header string) (int, []string) {
	t.Helper()
	for i, l := range lines {
		if l != header {
			continue
		}
		start := i + 2 // the header and the |---| line
		end := start
		for end < len(lines) && strings.HasPrefix(lines[end], "|") {
			end++
		}
		return start, lines[start:end]
	}
	t.Fatalf("%s has no table with the header %q", page, header)
	return 0, nil
}

// parseRow splits a table row into its cells, backquotes removed.
func parseRow(row string) []string {
	cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(row, "| "), " |"), " | ")
	for i, c := range cells {
		cells[i] = strings.Trim(strings.TrimSpace(c), "`")
	}
	return cells
}

// TestSettingsDoc keeps the tables of docs/settings.md equal to
// runtime/settings: every key with its default and doc, every ignored
// Flink option with its reason, and the groups of the others. go test
// ./tests -run TestSettingsDoc -update rewrites the tables from the package.
func TestSettingsDoc(t *testing.T) {
	b, err := os.ReadFile(settingsPage)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	for _, tab := range []struct {
		header string
		want   []string
	}{{settingsHeader, settingsRows()}, {ignoredHeader, ignoredRows()}, {groupsHeader, groupRows()}} {
		start, got := docTable(t, "docs/settings.md", lines, tab.header)
		if *update {
			lines = append(lines[:start], append(append([]string(nil), tab.want...), lines[start+len(got):]...)...)
			continue
		}
		// Keys and defaults first, for a message that says what drifted.
		readme := map[string][]string{}
		for _, r := range got {
			c := parseRow(r)
			readme[c[0]] = c
		}
		for _, r := range tab.want {
			w := parseRow(r)
			g, ok := readme[w[0]]
			switch {
			case !ok:
				t.Errorf("docs/settings.md: the table %q lacks '%s'", tab.header, w[0])
			case len(g) != len(w):
				t.Errorf("docs/settings.md: the row of '%s' has %d cells, want %d", w[0], len(g), len(w))
			case g[1] != w[1]:
				t.Errorf("docs/settings.md: '%s' is listed with %q, runtime/settings says %q", w[0], g[1], w[1])
			}
			delete(readme, w[0])
		}
		for k := range readme {
			t.Errorf("docs/settings.md: the table %q lists '%s', which runtime/settings does not have", tab.header, k)
		}
		if diff := cmp.Diff(tab.want, got); diff != "" {
			t.Errorf("docs/settings.md: the table %q differs from runtime/settings (-want +got); go test ./tests -run TestSettingsDoc -update rewrites it:\n%s", tab.header, diff)
		}
	}
	if *update {
		if err := os.WriteFile(settingsPage, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSettingsOwners checks the table against the packages that read the
// settings: each key constant of theirs is in the table, and the defaults
// they fall back on are the table's.
func TestSettingsOwners(t *testing.T) {
	for _, key := range []string{exec.SetParallelism, exec.SetOnIncompatible, exec.SetCacheSize, exec.SetCacheBytes, exec.SetTrace,
		exec.SetTraceKey, exec.SetTraceFunction, exec.SetTraceLate, exec.SetLineage, exec.SetShuffleSeed,
		exec.SetSourcePositions, connector.SetSeed, connector.SetNotNullEnforcer,
		exec.SetProcessingTime, exec.SetStateTTL, exec.SetEndOfInput, exec.SetMaxTimerFirings, exec.SetCheckpointRows} {
		if _, ok := settings.Lookup(key); !ok {
			t.Errorf("'%s' is read by its package but is not in runtime/settings", key)
		}
	}
	if s, _ := settings.Lookup("ptfsh.format"); !reflect.DeepEqual(s.Values, format.FormatNames) {
		t.Errorf("the values of ptfsh.format are %v, runtime/format knows %v", s.Values, format.FormatNames)
	}
	// The options of runtime/exec are read from the table itself
	// (exec.NewOptions); the script engine keeps defaults of its own.
	for key, got := range map[string]any{
		"ptf.max-call-depth":    script.DefaultMaxCallDepth,
		"ptf.max-rows-per-call": int64(script.DefaultMaxRowsPerCall),
		"ptf.max-memory":        int64(script.DefaultMaxMemory),
		"ptf.eval-timeout":      assembly.DefaultEvalTimeout,
	} {
		s, _ := settings.Lookup(key)
		want, err := s.Check(s.Default)
		if err != nil || want != got {
			t.Errorf("the default of '%s' is %v (%v) in runtime/settings, %v in the package that reads it", key, want, err, got)
		}
	}
}
