package tests

import (
	"context"
	"github.com/ptfsh/ptfsh/state"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileJS_realms: every function has a JavaScript realm of its own,
// so that one function cannot change another: a load that fails leaves
// nothing behind, a change to a built-in prototype stays in its function,
// and parallelism does not change what a function sees.
func TestHostileJS_realms(t *testing.T) {
	t.Run("failed_load", func(t *testing.T) {
		h := newHostileSession(t)
		os.WriteFile(filepath.Join(h.dir, "broken.js"), []byte(`globalThis.JSON = undefined; Array.prototype.map = null; Object.prototype.extra = 1;
throw new Error("broken on purpose");`), 0o644)
		os.WriteFile(filepath.Join(h.dir, "f.js"), []byte(`export default {
  output: "STRING",
  eval(ctx) { const o = {}; let keys = []; for (const k in o) keys.push(k); ctx.collect(JSON.stringify([1, 2].map((x) => x * 2)) + keys.length); },
};`), 0o644)
		if _, err := h.exec(context.Background(), "CREATE FUNCTION broken AS 'broken.js';"); err == nil || !strings.Contains(err.Error(), "broken on purpose") {
			t.Fatalf("broken: %v", err)
		}
		if got := h.mustExec(createF + "SELECT * FROM f();"); got != "+I[[2,4]0]\n" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("prototype_accessor", func(t *testing.T) {
		h := newHostileSession(t)
		os.WriteFile(filepath.Join(h.dir, "evil.js"), []byte(`Object.defineProperty(Object.prototype, "n", { get() { return 42; }, set(v) {}, configurable: true });
Array.prototype.join = function () { return "hacked"; };
export default { output: "STRING", eval(ctx) { ctx.collect("evil"); } };`), 0o644)
		os.WriteFile(filepath.Join(h.dir, "f.js"), []byte(stateFunction(`ctx.collect([c.n, "x"].join("-").length);`)), 0o644)
		h.mustExec("CREATE FUNCTION evil AS 'evil.js'; SELECT * FROM evil();" + createF + "CREATE VIEW bad(name) AS VALUES ('Bob'), ('Eve'), ('Eve');")
		if got, want := h.mustExec(selectBad), "+I[Bob, 1]\n+I[Eve, 3]\n+I[Eve, 1]\n+I[Eve, 3]\n+I[Eve, 2]\n"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
	t.Run("parallelism", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "evil.js"), []byte(`Array.prototype.join = function () { return "hacked"; };
export default { output: "STRING", eval(ctx) { ctx.collect("evil"); } };`), 0o644)
		os.WriteFile(filepath.Join(dir, "f.js"), []byte(stateFunction(`ctx.collect([c.n, "x"].join("-").length);`)), 0o644)
		query := `SET 'ptfsh.format' = 'rows';
CREATE FUNCTION evil AS 'evil.js';
CREATE FUNCTION f AS 'f.js';
CREATE VIEW bad(name) AS VALUES ('Bob'), ('Eve'), ('Ann'), ('Eve');
SELECT * FROM f(TABLE bad PARTITION BY name);
`
		one := runScriptParallel(t, dir, "query.sql", query, state.NewMem(), 1)
		two := runScriptParallel(t, dir, "query.sql", query, state.NewMem(), 2)
		if want := "+I[Bob, 1]\n+I[Eve, 3]\n+I[Eve, 1]\n+I[Ann, 1]\n+I[Eve, 3]\n+I[Eve, 2]\n"; one != want {
			t.Errorf("parallelism 1:\n%s\nwant\n%s", one, want)
		}
		if !strings.HasPrefix(two, one) {
			t.Errorf("parallelism 2 differs from 1:\n%s\nagainst\n%s", two, one)
		}
	})
}
