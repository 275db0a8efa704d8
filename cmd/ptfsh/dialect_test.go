package main

import (
	"strings"
	"testing"
)

// TestRun_dialect: --dialect is the default of SET 'ptfsh.dialect'.
func TestRun_dialect(t *testing.T) {
	const stmt = "SELECT n AS sum FROM (VALUES (1)) AS T(n);"
	code, out, errs := runCmd(t, "", "--format", "rows", "-e", stmt)
	if code != 0 || out != "+I[1]\n" || errs != "" {
		t.Errorf("default: code %d, %q, %q", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "--dialect", "warn", "--format", "rows", "-e", stmt)
	if code != 0 || out != "+I[1]\n" || !strings.Contains(errs, "note: 1:13: 'sum' as a plain name is a ptfsh extension") {
		t.Errorf("--dialect warn: code %d, %q, %q", code, out, errs)
	}
	code, out, errs = runCmd(t, "", "--dialect", "flink", "--format", "rows", "-e", stmt)
	if code != 1 || out != "" || !strings.Contains(errs, "1:13: 'sum' as a plain name is a ptfsh extension") {
		t.Errorf("--dialect flink: code %d, %q, %q", code, out, errs)
	}
	code, _, errs = runCmd(t, "", "--dialect", "FLINK", "-e", "SET;")
	if code != 0 {
		t.Errorf("--dialect FLINK: code %d, %q", code, errs)
	}
	code, _, errs = runCmd(t, "", "--dialect", "calcite", "-e", "SET;")
	if code != 2 || !strings.Contains(errs, "ptfsh: --dialect: SET 'ptfsh.dialect' is 'ptfsh', 'warn' or 'flink', not 'calcite'") {
		t.Errorf("--dialect calcite: code %d, %q", code, errs)
	}
}
