package main

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/settings"
)

// setList runs the command with args and SET; and returns the listed
// values by key.
func setList(t *testing.T, args ...string) map[string]string {
	t.Helper()
	code, out, errs := runCmd(t, "", append(args, "-e", "SET;")...)
	if code != 0 || errs != "" {
		t.Fatalf("ptfsh %v -e 'SET;': code %d, stderr %q", args, code, errs)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 4 || strings.TrimSpace(cells[1]) == "key" {
			continue
		}
		rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
	}
	return rows
}

// TestRun_settingsDefaults: SET; in a fresh ptfsh lists every setting
// with the default of runtime/settings (the table of docs/settings.md), and the flags
// change the settings they stand for.
func TestRun_settingsDefaults(t *testing.T) {
	rows := setList(t)
	for _, s := range settings.All() {
		if got, ok := rows[s.Key]; !ok || got != s.Default {
			t.Errorf("SET; lists %s = %q (listed %v), the table's default is %q", s.Key, got, ok, s.Default)
		}
	}
	if len(rows) != len(settings.All()) {
		t.Errorf("SET; lists %d settings, the table has %d", len(rows), len(settings.All()))
	}
	rows = setList(t, "--format", "rows", "--parallelism", "2", "--trace", "--seed", "7")
	for key, want := range map[string]string{"ptfsh.format": "rows", "sql-client.execution.result-mode": "tableau",
		"parallelism.default": "2", "ptfsh.trace": "on", "ptfsh.seed": "7"} {
		if rows[key] != want {
			t.Errorf("with flags SET; lists %s = %q, want %q", key, rows[key], want)
		}
	}
}

// TestRun_setKeys: an ignored Flink option is a note on stderr and no
// error; an unknown key fails the script with the closest key.
func TestRun_setKeys(t *testing.T) {
	code, out, errs := runCmd(t, "", "-e", "SET 'pipeline.name' = 'x';")
	if code != 0 || out != "" || errs != "note: ptfsh ignores 'pipeline.name' (ptfsh runs no named jobs)\n" {
		t.Errorf("ignored option: code %d, out %q, err %q", code, out, errs)
	}
	code, _, errs = runCmd(t, "", "-e", "SET 'state.cache_sise' = '10';")
	if code != 1 || !strings.Contains(errs, "unknown setting 'state.cache_sise' (did you mean 'state.cache-size'?); SET; lists the settings") {
		t.Errorf("unknown key: code %d, err %q", code, errs)
	}
}
