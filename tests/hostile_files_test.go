package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileJS_files: a function that imports a named pipe or a device,
// and a table whose file is one, fail at once with an error that names
// the file, instead of hanging or reading without end.
func TestHostileJS_files(t *testing.T) {
	fifo := func(t *testing.T, dir, name string) {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	zero := func(t *testing.T, dir, name string) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip("no /dev/zero")
		}
		if err := os.Symlink("/dev/zero", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	importer := func(file string) string {
		return `import x from "./` + file + `";
export default { output: "STRING", eval(ctx) { ctx.collect(String(x)); } };
`
	}
	tests := []struct {
		name string
		make func(t *testing.T, dir string)
		stmt string
		want string
	}{
		{name: "function_fifo", make: func(t *testing.T, dir string) { fifo(t, dir, "f.js") },
			stmt: createF, want: "cannot read function file 'f.js': is a named pipe, not a regular file"},
		{name: "function_dev_zero", make: func(t *testing.T, dir string) { zero(t, dir, "f.js") },
			stmt: createF, want: "cannot read function file 'f.js': is a device, not a regular file"},
		{name: "import_fifo", make: func(t *testing.T, dir string) {
			fifo(t, dir, "pipe.js")
			os.WriteFile(filepath.Join(dir, "f.js"), []byte(importer("pipe.js")), 0o644)
		}, stmt: createF, want: `f.js:1:15: f: cannot import "./pipe.js": pipe.js is a named pipe, not a regular file`},
		{name: "import_fifo_completed", make: func(t *testing.T, dir string) {
			fifo(t, dir, "pipe.js")
			os.WriteFile(filepath.Join(dir, "f.js"), []byte(importer("pipe")), 0o644)
		}, stmt: createF, want: `f.js:1:15: f: cannot import "pipe.js": pipe.js is a named pipe, not a regular file`},
		{name: "import_dev_zero", make: func(t *testing.T, dir string) {
			zero(t, dir, "zero.js")
			os.WriteFile(filepath.Join(dir, "f.js"), []byte(importer("zero.js")), 0o644)
		}, stmt: createF, want: `f.js:1:15: f: cannot import "./zero.js": zero.js is a device, not a regular file`},
		{name: "table_fifo", make: func(t *testing.T, dir string) { fifo(t, dir, "pipe.csv") },
			stmt: "CREATE TABLE p (a STRING) WITH ('connector' = 'filesystem', 'path' = 'pipe.csv', 'format' = 'csv'); SELECT * FROM p;",
			want: "table 'p': cannot read 'pipe.csv': is a named pipe, not a regular file"},
		{name: "table_dev_zero", make: func(t *testing.T, dir string) { zero(t, dir, "zero.json") },
			stmt: "CREATE TABLE z (a STRING) WITH ('connector' = 'filesystem', 'path' = 'zero.json', 'format' = 'json'); SELECT * FROM z;",
			want: "table 'z': cannot read 'zero.json': is a device, not a regular file"},
		{name: "table_fifo_parquet", make: func(t *testing.T, dir string) { fifo(t, dir, "pipe.parquet") },
			stmt: "CREATE TABLE q (a STRING) WITH ('connector' = 'filesystem', 'path' = 'pipe.parquet', 'format' = 'parquet'); SELECT * FROM q;",
			want: "table 'q': cannot read 'pipe.parquet': is a named pipe, not a regular file"},
		{name: "table_fifo_gzip", make: func(t *testing.T, dir string) { fifo(t, dir, "pipe.csv.gz") },
			stmt: "CREATE TABLE g (a STRING) WITH ('connector' = 'filesystem', 'path' = 'pipe.csv.gz', 'format' = 'csv'); SELECT * FROM g;",
			want: "table 'g': cannot read 'pipe.csv.gz': is a named pipe, not a regular file"},
		{name: "infer_fifo", make: func(t *testing.T, dir string) { fifo(t, dir, "pipe.csv") },
			stmt: "CREATE TABLE i WITH ('connector' = 'filesystem', 'path' = 'pipe.csv', 'format' = 'csv', 'csv.header' = 'true');",
			want: "table 'i': cannot read 'pipe.csv': is a named pipe, not a regular file"},
		{name: "infer_dev_zero_json", make: func(t *testing.T, dir string) { zero(t, dir, "zero.json") },
			stmt: "CREATE TABLE i WITH ('connector' = 'filesystem', 'path' = 'zero.json', 'format' = 'json');",
			want: "table 'i': cannot read 'zero.json': is a device, not a regular file"},
		{name: "infer_fifo_parquet", make: func(t *testing.T, dir string) { fifo(t, dir, "pipe.parquet") },
			stmt: "CREATE TABLE i WITH ('connector' = 'filesystem', 'path' = 'pipe.parquet', 'format' = 'parquet');",
			want: "table 'i': cannot read 'pipe.parquet': is a named pipe, not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileSession(t)
			tc.make(t, h.dir)
			start := time.Now()
			_, err := h.exec(context.Background(), tc.stmt)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if got := h.mustExec("SELECT 'alive';"); got != "+I[alive]\n" {
				t.Errorf("the next statement: %q", got)
			}
		})
	}
}

// TestHostileFolder: a folder table reads its regular files only: a named
// pipe and a link to /dev/zero in it are passed over, not read (which
// would hang or never end).
func TestHostileFolder(t *testing.T) {
	h := newHostileSession(t)
	data := filepath.Join(h.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(data, "a-pipe.csv"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if err := os.Symlink("/dev/zero", filepath.Join(data, "b-zero.csv")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "c.csv"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got := h.mustExec("CREATE TABLE d (a STRING) WITH ('connector' = 'filesystem', 'path' = 'data', 'format' = 'csv'); SELECT * FROM d;")
	if got != "+I[x]\n" {
		t.Fatalf("got %q", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}
