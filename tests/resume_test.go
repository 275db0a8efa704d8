package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// TestResume_fileGrows runs a statement that stops without end of input
// three times over one state file while its CSV grows, then rewrites the
// file: the first runs go on where the last stopped, the rewrite is an
// error until positions are reset.
func TestResume_fileGrows(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "c.csv")
	write := func(s string, flag int) {
		f, err := os.OpenFile(csv, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	run := resumeRunner(t, dir, "c.csv")

	write("alice,10\nbob,20\nalice,30\n", os.O_TRUNC)
	if got, want := run(""), "+I[alice, 10]\n+I[bob, 20]\n+I[alice, 40]\n"; got != want {
		t.Fatalf("first run:\n%s\nwant:\n%s", got, want)
	}
	write("bob,5\ncarol,1\n", os.O_APPEND)
	got := run("")
	if want := "+I[bob, 25]\n+I[carol, 1]\nnote: table 'c' goes on after row 3 (byte 25) of 'c.csv', where the last run stopped\n"; got != want {
		t.Fatalf("after growing:\n%s\nwant:\n%s", got, want)
	}
	if got := run(""); !strings.HasPrefix(got, "note: table 'c' goes on after row 5") {
		t.Fatalf("unchanged file: %q", got)
	}
	write("zed,1\n", os.O_TRUNC)
	if got := run(""); !strings.Contains(got, "changed since the last checkpoint (at byte 39, row 5), other than by growing") {
		t.Fatalf("rewritten file: %q", got)
	}
	if got := run("SET 'state.source-positions' = 'reset';\n"); got != "+I[zed, 1]\n" {
		t.Fatalf("after reset: %q", got)
	}
}

// TestResume_fileChangedInTheMiddle: a change inside the part of a file a
// statement already read (past the first 64 KiB and before the last 4 KiB
// read, where a partial fingerprint would not look) stops the resumed
// statement instead of going on with a wrong count.
func TestResume_fileChangedInTheMiddle(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 20_000; i++ {
		fmt.Fprintf(&b, "k%03d,%d\n", i%100, i%7)
	}
	data := b.String()
	csv := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(csv, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(resumeSum), 0o644); err != nil {
		t.Fatal(err)
	}
	query := `SET 'ptfsh.end-of-input' = 'false';
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE c (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
SELECT * FROM sum(TABLE c PARTITION BY name) WHERE total < 0;
`
	store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	runWithStore(t, dir, query, store)
	// One digit changes at about byte 100,000 of some 160,000 read.
	i := strings.Index(data[100_000:], ",") + 100_000 + 1
	changed := data[:i] + "9" + data[i+1:]
	if err := os.WriteFile(csv, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := runWithStore(t, dir, query, store); !strings.Contains(got, "changed since the last checkpoint") {
		t.Fatalf("a file changed inside its read part resumed: %q", got)
	}
}

// resumeSum keeps a running total of column n per key.
const resumeSum = `export default {
  output: "ROW<total INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { total: 0 } } },
  eval(ctx, { s }, { r }) { s.total += r.n; ctx.collect({ total: s.total }); },
};`

// resumeRunner writes sum.js into dir and returns a run of the resume
// tests' query (sum over table c at path, without end of input) over one
// state file in dir, kept across runs; prefix goes before the query.
func resumeRunner(t *testing.T, dir, path string) func(prefix string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(resumeSum), 0o644); err != nil {
		t.Fatal(err)
	}
	query := `SET 'ptfsh.end-of-input' = 'false';
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE c (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = '` + path + `', 'format' = 'csv');
SELECT * FROM sum(TABLE c PARTITION BY name);
`
	store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return func(prefix string) string { return runWithStore(t, dir, prefix+query, store) }
}
