package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_testShuffle: ptfsh test --shuffle passes a function that keeps
// state per key, and fails one that counts rows across keys in a module
// variable (an order Flink does not promise), naming the statement and
// the seed.
func TestRun_testShuffle(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const rows = "CREATE VIEW v(k, n) AS VALUES ('a', 1), ('b', 2), ('a', 3), ('c', 4), ('b', 5), ('c', 6), ('a', 7);\n"
	write("keyed.txtar", `-- keyed.js --
export default {
  output: "BIGINT",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, { s }, { r }) { s.n += r.n; ctx.collect(s.n); },
};
-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION keyed AS 'keyed.js';
`+rows+`SELECT * FROM keyed(r => TABLE v PARTITION BY k);
-- want.out --
+I[a, 1]
+I[b, 2]
+I[a, 4]
+I[c, 4]
+I[b, 7]
+I[c, 10]
+I[a, 11]
`)
	write("global.txtar", `-- global.js --
let seen = 0; // one count for all keys: it depends on the order of keys
export default {
  output: "BIGINT",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, state, { r }) { seen++; ctx.collect(seen); },
};
-- query.sql --
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION global AS 'global.js';
`+rows+`SELECT * FROM global(r => TABLE v PARTITION BY k);
-- want.out --
+I[a, 1]
+I[b, 2]
+I[a, 3]
+I[c, 4]
+I[b, 5]
+I[c, 6]
+I[a, 7]
`)
	code, out, errs := runCmd(t, "", "test", "--shuffle", "10", dir)
	if code != 1 || errs != "" {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	for _, want := range []string{
		"ok    " + filepath.Join(dir, "keyed.txtar"),
		"FAIL  " + filepath.Join(dir, "global.txtar"),
		"statement 4 prints other rows when its input comes in another order Flink may give it",
		"SET 'ptfsh.shuffle-seed' = '",
		"1 passed, 1 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// Without --shuffle both pass: the order is the one of the VALUES.
	if code, out, _ := runCmd(t, "", "test", dir); code != 0 {
		t.Errorf("without --shuffle: code %d\n%s", code, out)
	}
}
