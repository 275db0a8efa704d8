package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_init: ptfsh init writes a project whose script runs, whose
// test passes against the function beside it, and which it does not
// overwrite.
func TestRun_init(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	code, out, errs := runCmd(t, "", "init", dir)
	if code != 0 || errs != "" {
		t.Fatalf("init: code %d\n%s%s", code, out, errs)
	}
	for _, f := range []string{"hello.js", "hello.sql", "hello.txtar", "ptf.d.ts", "globals.d.ts", "tsconfig.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("init did not write %s: %v", f, err)
		}
	}
	code, out, errs = runCmd(t, "", "--format", "rows", "-f", filepath.Join(dir, "hello.sql"))
	if code != 0 || out != "+I[Bob, Hello Bob, 1]\n+I[Alice, Hello Alice, 1]\n+I[Bob, Hello Bob, 2]\n" {
		t.Errorf("hello.sql: code %d, out %q, err %q", code, out, errs)
	}
	test := filepath.Join(dir, "hello.txtar")
	if code, out, _ := runCmd(t, "", "test", dir); code != 0 || out != "ok    "+test+"\n1 passed, 0 failed\n" {
		t.Errorf("ptfsh test: code %d\n%s", code, out)
	}
	// The test calls the function beside it: an edit shows in its diff,
	// with the function's file named as in the folder.
	js := filepath.Join(dir, "hello.js")
	src, _ := os.ReadFile(js)
	os.WriteFile(js, []byte(strings.Replace(string(src), "`Hello ", "`Hi ", 1)), 0o644)
	if code, out, _ := runCmd(t, "", "test", test); code != 1 || !strings.Contains(out, "  +  +I[Bob, Hi Bob, 1]\n") {
		t.Errorf("ptfsh test after an edit: code %d\n%s", code, out)
	}
	os.WriteFile(js, []byte("export default {"), 0o644)
	if _, out, _ := runCmd(t, "", "test", test); !strings.Contains(out, "  +  query.sql:2:17: hello.js:1:17: hello: SyntaxError") {
		t.Errorf("ptfsh test of a broken function:\n%s", out)
	}
	if code, _, errs := runCmd(t, "", "init", dir); code != 1 || !strings.Contains(errs, "already has hello.js") {
		t.Errorf("init over a project: code %d, %s", code, errs)
	}
}

// TestRun_check: ptfsh check runs tsc on a function (skipped without
// tsc), and says how to get tsc when it is not on PATH.
func TestRun_check(t *testing.T) {
	dir := t.TempDir()
	if code, _, _ := runCmd(t, "", "init", dir); code != 0 {
		t.Fatal("init failed")
	}
	t.Run("without tsc", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		code, _, errs := runCmd(t, "", "check", filepath.Join(dir, "hello.js"))
		if code != 2 || !strings.Contains(errs, "tsc (TypeScript's compiler) is not on PATH") || !strings.Contains(errs, "npm install -g typescript") {
			t.Errorf("code %d, stderr %q", code, errs)
		}
	})
	if _, err := exec.LookPath("tsc"); err != nil {
		t.Skip("tsc is not on PATH (npm install -g typescript)")
	}
	js := filepath.Join(dir, "hello.js")
	if code, out, errs := runCmd(t, "", "check", js); code != 0 || !strings.Contains(out, "no type errors") {
		t.Fatalf("check of the template: code %d\n%s%s", code, out, errs)
	}
	src, _ := os.ReadFile(js)
	os.WriteFile(js, []byte(strings.Replace(string(src), "seen.count++;", "seen.count = \"many\";", 1)), 0o644)
	if code, out, _ := runCmd(t, "", "check", js); code != 1 || !strings.Contains(out, "error TS2322") {
		t.Errorf("check of a state of the wrong type: code %d\n%s", code, out)
	}
	// Without a tsconfig.json the file is checked alone against ptf.d.ts.
	alone := filepath.Join(t.TempDir(), "f.ts")
	os.WriteFile(alone, []byte(`export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC"] }],
  eval(ctx, state, { input }) { ctx.collect("Hi " + input.name); },
} satisfies PTF<{}, { input: Row }>;
`), 0o644)
	if code, out, _ := runCmd(t, "", "check", alone); code != 1 || !strings.Contains(out, alone+"(3,36): error TS2322") {
		t.Errorf("check of a file alone: code %d\n%s", code, out)
	}
}

// TestRun_checkPatterns: ptfsh check knows the types of ptfsh/patterns,
// in a project of ptfsh init and for a file alone (skipped without tsc).
func TestRun_checkPatterns(t *testing.T) {
	if _, err := exec.LookPath("tsc"); err != nil {
		t.Skip("tsc is not on PATH (npm install -g typescript)")
	}
	good := `import { sessionize, thresholdWithReset } from "ptfsh/patterns";
export const hot = thresholdWithReset({ value: "temp", above: 30, reset: 25, output: "STRING",
  emit: (ctx, out) => ctx.collect(out.alert + " at " + out.alert_value) });
export default sessionize({ gap: "10 min" });
`
	bad := `import { topN, dedup } from "ptfsh/patterns";
export const top = topN({ value: "delay", n: "3" });
export default dedup({ within: "5 min" });
`
	dir := t.TempDir()
	if code, _, _ := runCmd(t, "", "init", dir); code != 0 {
		t.Fatal("init failed")
	}
	alone := t.TempDir()
	for _, d := range []string{dir, alone} {
		g, b := filepath.Join(d, "good.js"), filepath.Join(d, "bad.ts")
		os.WriteFile(g, []byte(good), 0o644)
		os.WriteFile(b, []byte(bad), 0o644)
		// A project is checked whole (bad.ts too): good.js alone only.
		if code, out, errs := runCmd(t, "", "check", g); code != 0 && d == alone {
			t.Errorf("%s: code %d\n%s%s", g, code, out, errs)
		}
		code, out, _ := runCmd(t, "", "check", b)
		if code != 1 || !strings.Contains(out, "(2,43): error TS2322") || !strings.Contains(out, "(3,22): error TS2741: Property 'output' is missing") {
			t.Errorf("%s: code %d\n%s", b, code, out)
		}
	}
}

// TestRun_checkTypedOutput: with definePTF (ptfsh/ptf), tsc reads the
// declared output type and checks what ctx.collect is given: a misspelt
// column, a value of the wrong type and a missing NOT NULL column are
// errors; nullable columns may be left out; an array is accepted.
func TestRun_checkTypedOutput(t *testing.T) {
	if _, err := exec.LookPath("tsc"); err != nil {
		t.Skip("tsc is not on PATH (npm install -g typescript)")
	}
	good := `import { definePTF } from "ptfsh/ptf";
export default definePTF({
  output: "ROW<url STRING, click_count BIGINT NOT NULL, at TIMESTAMP(3), tags ARRAY<STRING>, r ROW<x INT>>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    ctx.collect({ url: String(input.url), click_count: 1, at: new Date(0), tags: ["a"], r: { x: 1 } });
    ctx.collect({ click_count: 2n });
    ctx.collect(["u", 3, null, null, null]);
  },
});
`
	bad := `import { definePTF } from "ptfsh/ptf";
export default definePTF({
  output: "ROW<url STRING, click_count BIGINT NOT NULL>",
  eval(ctx) {
    ctx.collect({ url: "u", clickcount: 1 });
    ctx.collect({ url: 3, click_count: 1 });
    ctx.collect({ url: "u" });
  },
});
`
	dir := t.TempDir()
	g, b := filepath.Join(dir, "good.js"), filepath.Join(dir, "bad.ts")
	os.WriteFile(g, []byte(good), 0o644)
	os.WriteFile(b, []byte(bad), 0o644)
	if code, out, errs := runCmd(t, "", "check", g); code != 0 {
		t.Errorf("%s: code %d\n%s%s", g, code, out, errs)
	}
	code, out, _ := runCmd(t, "", "check", b)
	for _, want := range []string{
		"(5,29): error TS2353: Object literal may only specify known properties, and 'clickcount' does not exist",
		"(6,19): error TS2322: Type 'number' is not assignable to type 'string'",
		"(7,17): error TS2345",
	} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("%s: code %d, no %q in\n%s", b, code, want, out)
		}
	}
	// It runs as it is: definePTF returns its argument.
	if code, out, errs := runCmd(t, "", "-e", "CREATE FUNCTION g AS '"+g+"'; CREATE VIEW v(url) AS VALUES ('x'); SET 'ptfsh.format' = 'rows'; SELECT * FROM g(input => TABLE v PARTITION BY url);"); code != 0 ||
		out != "+I[x, x, 1, 1970-01-01T00:00, [a], +I[1]]\n+I[x, null, 2, null, null, null]\n+I[x, u, 3, null, null, null]\n" {
		t.Errorf("running it: code %d\n%s%s", code, out, errs)
	}
}
