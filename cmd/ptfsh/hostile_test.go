package main

import (
	"strings"
	"testing"
)

// TestRun_replSurvivesHostileFunctions feeds the shell functions that
// loop, recurse, emit too much and throw: each statement fails with its
// message (source line, caret, key, row, stack) and the shell runs the
// next one.
func TestRun_replSurvivesHostileFunctions(t *testing.T) {
	in := `SET 'ptf.eval-timeout' = '200 ms';
SET 'ptf.max-rows-per-call' = '10';
CREATE VIEW t(k) AS VALUES ('a');
CREATE FUNCTION spin LANGUAGE JAVASCRIPT AS $$
({ output: "INT", args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }], eval() { let i = 0; for (;;) i++; } })
$$;
SELECT * FROM spin(TABLE t PARTITION BY k);
CREATE FUNCTION deep LANGUAGE JAVASCRIPT AS $$
const down = (n) => down(n + 1);
({ output: "INT", args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }], eval() { down(0); } })
$$;
SELECT * FROM deep(TABLE t PARTITION BY k);
CREATE FUNCTION flood LANGUAGE JAVASCRIPT AS $$
({ output: "INT", args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }], eval(ctx) { for (;;) ctx.collect(1); } })
$$;
SELECT * FROM flood(TABLE t PARTITION BY k);
CREATE FUNCTION boom LANGUAGE JAVASCRIPT AS $$
({ output: "INT", args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }], eval() { throw new TypeError("boom"); } })
$$;
SELECT * FROM boom(TABLE t PARTITION BY k);
SELECT 'alive' AS still;
`
	code, out, errs := runCmd(t, in, "--format", "rows")
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, errs)
	}
	if out != "+I[alive]\n" {
		t.Errorf("stdout %q", out)
	}
	for _, want := range []string{
		"spin: call ran longer than the eval timeout of 200ms",
		"deep: call stack exceeded 5000 nested calls (infinite recursion?)",
		"flood: call collected more than 10 rows",
		"boom: TypeError: boom\n | ...\", args: [{ name: \"r\", traits: [\"SET_SEMANTIC_TABLE\"] }], eval() { throw new TypeError(\"boom\"); } })\n |",
		"  ^\nat key (a), input row +I[a]\n    at eval (<inline boom>:2:89)\n",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
}

// TestRun_seed checks that --seed makes Math.random and the clock
// deterministic from one run to the next.
func TestRun_seed(t *testing.T) {
	stmts := `CREATE FUNCTION r LANGUAGE JAVASCRIPT AS $$ ({ output: "STRING", eval(ctx) { ctx.collect(Math.random() + " " + Date.now()); } }) $$;
SELECT * FROM r();`
	run := func(args ...string) string {
		code, out, errs := runCmd(t, "", append(args, "--format", "rows", "-e", stmts)...)
		if code != 0 {
			t.Fatalf("code %d: %s", code, errs)
		}
		return out
	}
	a, b, c := run("--seed", "3"), run("--seed", "3"), run("--seed", "4")
	if a != b || a == c || !strings.HasSuffix(a, " 1735689600000]\n") {
		t.Errorf("--seed 3: %q, %q; --seed 4: %q", a, b, c)
	}
	if code, _, errs := runCmd(t, "", "--seed", "x", "-e", "SHOW TABLES;"); code != 2 || !strings.Contains(errs, `ptfsh: --seed: invalid seed "x"`) {
		t.Errorf("--seed x: code %d, %q", code, errs)
	}
}
