package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/state"
)

// TestState_unreadableValueIsNotCatchable: a stored state value that cannot
// be decoded stops the call with the state's name, even inside the
// function's try/catch: a store's fault is not the function's to handle.
func TestState_unreadableValueIsNotCatchable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.js"), []byte(`export default {
  output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { n: 0 } } },
  eval(ctx, state) {
    try { state.s.n++; ctx.collect("read"); } catch (e) { ctx.collect("caught: " + e); }
  },
};`), 0o644); err != nil {
		t.Fatal(err)
	}
	store := state.NewMem()
	defer store.Close()
	junk := append(make([]byte, 8), 0xff, 0xfe, 0xfd) // a write time, then no valid encoding
	if err := store.Update(func(tx state.Tx) error {
		return tx.Put("state/f/s", keycodec.Encode([]any{"a"}), junk)
	}); err != nil {
		t.Fatal(err)
	}
	got := runWithStore(t, dir, `SET 'ptfsh.end-of-input' = 'false';
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION f AS 'f.js';
CREATE VIEW v(k) AS VALUES ('a');
SELECT * FROM f(TABLE v PARTITION BY k);
`, store)
	if strings.Contains(got, "+I[a, ") || !strings.Contains(got, `state "s"`) {
		t.Fatalf("output:\n%s", got)
	}
}
