package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/assembly"
)

// TestCancel_filterDropsEveryRow cancels (as Ctrl-C does) a query whose
// filter drops every row of a large file: no row reaches the printer, so
// only the source can notice; it must stop at once, and the session go on.
func TestCancel_filterDropsEveryRow(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.csv"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < 3_000_000; i++ {
		fmt.Fprintf(w, "u%d,%d\n", i%1000, i%100)
	}
	w.Flush()
	f.Close()
	sh, err := assembly.New(assembly.Options{Out: io.Discard, Memory: true, BaseDir: dir, Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if err := sh.Session.Exec(context.Background(), "", `CREATE TABLE big (u STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'big.csv', 'format' = 'csv');`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	err = sh.Session.Exec(ctx, "", "SELECT * FROM big WHERE v < 0;")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "statement cancelled") {
		t.Fatalf("err = %v, want the statement cancelled", err)
	}
	if took > 1200*time.Millisecond {
		t.Errorf("the statement stopped %v after it started (cancelled at 200 ms)", took)
	}
	if err := sh.Session.Exec(context.Background(), "", "SELECT COUNT(*) FROM (VALUES (1)) AS T(a);"); err != nil {
		t.Errorf("the next statement: %v", err)
	}
}
