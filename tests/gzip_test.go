package tests

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipBytes compresses s as one gzip member.
func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestResume_gzip: a .gz table is read decompressed; a statement stopped
// without end of input keeps its position in decompressed bytes with the
// hash of the decompressed prefix, and the next run goes on after it when
// the file grew by a gzip member appended (as `gzip -c more >> f.gz`
// does), fails when the file was rewritten, and reads it afresh after a
// reset. INSERT INTO the table is refused.
func TestResume_gzip(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "c.csv.gz")
	run := resumeRunner(t, dir, "c.csv.gz")

	first := gzipBytes(t, "alice,10\nbob,20\nalice,30\n")
	if err := os.WriteFile(gz, first, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := run(""), "+I[alice, 10]\n+I[bob, 20]\n+I[alice, 40]\n"; got != want {
		t.Fatalf("first run:\n%s\nwant:\n%s", got, want)
	}
	grown := append(append([]byte{}, first...), gzipBytes(t, "bob,5\ncarol,1\n")...)
	if err := os.WriteFile(gz, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	got := run("")
	if want := "+I[bob, 25]\n+I[carol, 1]\nnote: table 'c' goes on after row 3 (byte 25) of 'c.csv.gz', where the last run stopped\n"; got != want {
		t.Fatalf("after growing:\n%s\nwant:\n%s", got, want)
	}
	if err := os.WriteFile(gz, gzipBytes(t, "zed,1\nzed,2\nzed,3\nzed,4\nzed,5\nzed,6\nzed,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := run(""); !strings.Contains(got, "table 'c': the file 'c.csv.gz' changed since the last checkpoint (at byte 39, row 5), other than by growing") {
		t.Fatalf("rewritten file: %q", got)
	}
	if got := run("SET 'state.source-positions' = 'reset';\n"); !strings.HasPrefix(got, "+I[zed, 1]\n+I[zed, 3]\n") {
		t.Fatalf("after reset: %q", got)
	}
}

// TestGzip_sink: INSERT INTO a .gz table writes gzip, a member per
// checkpoint, which ptfsh and Go's gzip reader read back as one stream;
// a second INSERT appends members; a parquet table on a .gz path is
// refused.
func TestGzip_sink(t *testing.T) {
	dir := t.TempDir()
	got := RunScript(t, dir, `SET 'ptfsh.format' = 'rows';
SET 'execution.checkpointing.interval-rows' = '2';
CREATE TABLE out (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv.gz', 'format' = 'csv', 'csv.header' = 'true');
INSERT INTO out VALUES ('a', 1), ('b', 2), ('c', 3);
INSERT INTO out VALUES ('d', 4);
SELECT * FROM out;
CREATE TABLE j (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'j.json.gzip', 'format' = 'json');
INSERT INTO j SELECT * FROM out;
SELECT * FROM j;
CREATE TABLE pq (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'pq.parquet.gz', 'format' = 'parquet');
INSERT INTO pq VALUES ('x', 1);
`)
	// The INSERT reports ([INFO] ... rows written) aside.
	var rows []string
	for _, l := range strings.SplitAfter(got, "\n") {
		if !strings.HasPrefix(l, "[INFO] ") {
			rows = append(rows, l)
		}
	}
	got = strings.Join(rows, "")
	want := "+I[a, 1]\n+I[b, 2]\n+I[c, 3]\n+I[d, 4]\n+I[a, 1]\n+I[b, 2]\n+I[c, 3]\n+I[d, 4]\n"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "table 'pq' cannot be written: a Parquet file compresses its own pages, and 'pq.parquet.gz' names a gzip file; drop the .gz") {
		t.Fatalf("got:\n%s\nwant first:\n%s", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if members := bytes.Count(b, []byte{0x1f, 0x8b, 8}); members < 2 {
		t.Errorf("%d gzip members, want one per checkpoint", members)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(plain) != "name,n\na,1\nb,2\nc,3\nd,4\n" {
		t.Fatalf("decompressed: %q", plain)
	}
}

// TestGzip_damaged: a .gz file that is not gzip, or is cut short, is an
// error that names the file and says what is wrong.
func TestGzip_damaged(t *testing.T) {
	dir := t.TempDir()
	whole := gzipBytes(t, strings.Repeat("alice,10\n", 1000))
	for name, data := range map[string][]byte{
		"plain.csv.gz": []byte("alice,10\nbob,20\n"),
		"cut.csv.gz":   whole[:len(whole)/2],
		"short.csv.gz": []byte("a,1\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := RunScript(t, dir, `SET 'ptfsh.format' = 'rows';
CREATE TABLE p (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'plain.csv.gz', 'format' = 'csv');
CREATE TABLE c (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'cut.csv.gz', 'format' = 'csv');
SELECT COUNT(*) FROM p;
CREATE TABLE s (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'short.csv.gz', 'format' = 'csv');
SELECT COUNT(*) FROM c;
SELECT COUNT(*) FROM s;
`)
	for _, want := range []string{
		"table 'p': cannot read 'plain.csv.gz': not a gzip file (its name ends in .gz, so it is read decompressed; rename it if it is not compressed)",
		"table 'c': cannot read 'cut.csv.gz': the gzip data ends early (the file is cut short)",
		"table 's': cannot read 'short.csv.gz': not a gzip file",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

// TestGzip_infer: the columns of a .gz JSON or CSV file declared without
// them are inferred from its decompressed rows.
func TestGzip_infer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "e.json.gz"), gzipBytes(t, "{\"id\": 1, \"at\": \"2025-03-27 12:00:00\"}\n{\"id\": 2, \"ok\": true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.csv.gz"), gzipBytes(t, "name,n\nalice,1.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := RunScript(t, dir, `SET 'ptfsh.format' = 'rows';
CREATE TABLE e WITH ('connector' = 'filesystem', 'path' = 'e.json.gz', 'format' = 'json');
SELECT * FROM e;
CREATE TABLE c WITH ('connector' = 'filesystem', 'path' = 'c.csv.gz', 'format' = 'csv', 'csv.header' = 'true');
SELECT * FROM c;
`)
	want := "note: table 'e': columns inferred from the first 1000 rows of 'e.json.gz' (a ptfsh extension: Flink needs them declared; SHOW CREATE TABLE e prints the statement with them): id BIGINT, at TIMESTAMP(3), ok BOOLEAN\n" +
		"+I[1, 2025-03-27T12:00, null]\n+I[2, null, true]\n" +
		"note: table 'c': columns inferred from the first 1000 rows of 'c.csv.gz' (a ptfsh extension: Flink needs them declared; SHOW CREATE TABLE c prints the statement with them): name STRING, n DOUBLE\n" +
		"+I[alice, 1.5]\n"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
