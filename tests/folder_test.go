package tests

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/state"
)

// TestResume_folder runs a statement that stops without end of input over
// a folder table, several times over one state file: the files read
// before give nothing more (or what was appended to them: a plain line, a
// gzip member), a file added to the folder since is read, a hidden file
// never is, a finished file removed is fine, a read file rewritten is an
// error that names it until positions are reset.
func TestResume_folder(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(data, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	appendTo := func(name string, b []byte) {
		f, err := os.OpenFile(filepath.Join(data, name), os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
		f.Close()
	}
	run := resumeRunner(t, dir, "data")

	write("a.csv", []byte("alice,10\nbob,20\n"))
	write("b.csv.gz", gzipBytes(t, "alice,1\n"))
	write(".c.csv.inprogress", []byte("alice,1000\n"))
	if got, want := run(""), "+I[alice, 10]\n+I[bob, 20]\n+I[alice, 11]\n"; got != want {
		t.Fatalf("first run:\n%s\nwant:\n%s", got, want)
	}
	write("c.csv", []byte("carol,5\n"))
	appendTo("a.csv", []byte("bob,2\n"))
	appendTo("b.csv.gz", gzipBytes(t, "alice,100\n"))
	got := run("")
	if want := "+I[bob, 22]\n+I[alice, 111]\n+I[carol, 5]\nnote: table 'c' goes on after row 3 of the folder 'data' (2 files read before), where the last run stopped\n"; got != want {
		t.Fatalf("after adding and appending:\n%s\nwant:\n%s", got, want)
	}
	if err := os.Remove(filepath.Join(data, "a.csv")); err != nil {
		t.Fatal(err)
	}
	write("d.csv", []byte("dave,1\n"))
	if got, want := run(""), "+I[dave, 1]\nnote: table 'c' goes on after row 3 of the folder 'data' (2 files read before), where the last run stopped\n"; got != want {
		t.Fatalf("after removing a read file:\n%s\nwant:\n%s", got, want)
	}
	write("c.csv", []byte("carol,6\n"))
	if got := run(""); !strings.Contains(got, "table 'c': the file 'data/c.csv' changed since the last checkpoint (at byte 8, row 1), other than by growing; SET 'state.source-positions' = 'reset' to read the folder again from the start") {
		t.Fatalf("rewritten file: %q", got)
	}
	if got, want := run("SET 'state.source-positions' = 'reset';\n"), "+I[alice, 112]\n+I[alice, 212]\n+I[carol, 11]\n+I[dave, 2]\n"; got != want { // the PTF's state stays
		t.Fatalf("after reset:\n%s\nwant:\n%s", got, want)
	}
}

// TestCrash_folderGzip kills a job that reads a folder of gzip and plain
// CSV files into a gzip CSV sink at seeded moments, with checkpoints every
// 5,000 rows, and runs it again each time with the same state file; the
// sink must decompress byte for byte as an uninterrupted run's: the
// position inside the file being read (in decompressed bytes for a .gz)
// and the files finished come back from the last checkpoint, and the sink
// is cut back to the end of the gzip member of that checkpoint.
func TestCrash_folderGzip(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process")
	}
	bin := ptfshBinary(t)
	work := t.TempDir()
	data := filepath.Join(work, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for part := 0; part < 4; part++ {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		for i := 0; i < 60_000; i++ {
			fmt.Fprintf(w, "u%03d,%d\n", (i*7919+part)%500, (i+part)%100)
		}
		w.Flush()
		name := fmt.Sprintf("part-%d.csv", part)
		content := b.Bytes()
		if part != 2 {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(content)
			zw.Close()
			name, content = name+".gz", z.Bytes()
		}
		if err := os.WriteFile(filepath.Join(data, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fn := `export default {
  output: "ROW<total BIGINT, n INT>",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { total: 0, n: 0 } } },
  eval(ctx, { s }, { r }) { s.total += r.v; s.n++; ctx.collect([s.total, s.n]); },
};`
	job := func(dir string) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(fn), 0o644); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf(`SET 'execution.checkpointing.interval-rows' = '5000';
CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE clicks (user_id STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv');
CREATE TABLE totals (user_id STRING, total BIGINT, n INT) WITH ('connector' = 'filesystem', 'path' = 'totals.csv.gz', 'format' = 'csv');
INSERT INTO totals SELECT * FROM sum(TABLE clicks PARTITION BY user_id);
`, data)
		if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string, kill time.Duration) bool {
		return runKilled(t, bin, []string{"--state", filepath.Join(dir, "state.db"), "-f", filepath.Join(dir, "job.sql")}, kill)
	}
	ref := filepath.Join(work, "ref")
	job(ref)
	start := time.Now()
	run(ref, 0)
	whole := time.Since(start)
	crash := filepath.Join(work, "crash")
	job(crash)
	rng := rand.New(rand.NewPCG(2026, 12))
	kills, finished := 0, false
	for i := 0; i < 10; i++ {
		if !run(crash, 30*time.Millisecond+time.Duration(rng.Int64N(int64(whole/6)+1))) {
			finished = true // it finished before its kill: a run more would run the script afresh
			break
		}
		kills++
	}
	if !finished {
		run(crash, 0) // what is left
	}
	want := gunzipFile(t, filepath.Join(ref, "totals.csv.gz"))
	got := gunzipFile(t, filepath.Join(crash, "totals.csv.gz"))
	if n := bytes.Count(want, []byte("\n")); n != 240_000 {
		t.Fatalf("the uninterrupted run wrote %d rows", n)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("after %d kills the sink differs from an uninterrupted run: %d bytes, want %d", kills, len(got), len(want))
	}
	t.Logf("%d kills; an uninterrupted run took %v", kills, whole)
}

// gunzipFile returns the decompressed contents of a gzip file.
func gunzipFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// TestResume_fileBecomesFolder: a table whose path was a file at the last
// checkpoint and is a folder now (or the other way round) is an error that
// says so, until positions are reset.
func TestResume_fileBecomesFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(resumeSum), 0o644); err != nil {
		t.Fatal(err)
	}
	query := `SET 'ptfsh.end-of-input' = 'false';
SET 'ptfsh.format' = 'rows';
CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE c (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'c', 'format' = 'csv');
SELECT * FROM sum(TABLE c PARTITION BY name);
`
	store, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := func(prefix string) string { return runWithStore(t, dir, prefix+query, store) }
	c := filepath.Join(dir, "c")
	if err := os.WriteFile(c, []byte("a,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(""); got != "+I[a, 1]\n" {
		t.Fatalf("file: %q", got)
	}
	os.Remove(c)
	if err := os.MkdirAll(c, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c, "p.csv"), []byte("a,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(""); !strings.Contains(got, "table 'c': 'c' was a file at the last checkpoint and is a folder now; SET 'state.source-positions' = 'reset'") {
		t.Fatalf("folder: %q", got)
	}
	if got := run("SET 'state.source-positions' = 'reset';\n"); got != "+I[a, 3]\n" {
		t.Fatalf("folder after reset: %q", got)
	}
	os.RemoveAll(c)
	if err := os.WriteFile(c, []byte("a,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(""); !strings.Contains(got, "table 'c': 'c' was a folder at the last checkpoint and is a file now") {
		t.Fatalf("file again: %q", got)
	}
}
