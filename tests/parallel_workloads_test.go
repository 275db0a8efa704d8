package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeClicks writes n rows of the benchmark's clicks table (user_id, url,
// view_time, ts) to dir/clicks.csv: keys users, the low ranks far more
// frequent than the others, as in bench/gen's Zipf-like data, and the
// time rising a second a row.
func writeClicks(t *testing.T, dir string, n, keys int) {
	t.Helper()
	var b strings.Builder
	x := uint64(1)
	for i := range n {
		x = x*6364136223846793005 + 1442695040888963407
		r := int(x>>33) % keys
		u := r * r / keys // rank r^2/keys: user 0 takes a large share
		fmt.Fprintf(&b, "user%d,https://example.com/p/%d,%d,2026-12-01 %02d:%02d:%02d.000\n",
			u, (i*31)%97, int(x>>40)%1000, (i/3600)%24, (i/60)%60, i%60)
	}
	if err := os.WriteFile(filepath.Join(dir, "clicks.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestParallelism_workloads runs the benchmark's workloads (A the row
// filter, B the keyed count, C the greeting with memory; bench/workloads)
// over several batches of rows (a parallel call reads 4,096 events a
// batch, the read-ahead 1,024 rows) at 1 and at 2 workers, with and
// without checkpoints every 3,000 rows (the pipeline drains before each),
// concurrent and in turn, and requires the same output, row for row.
func TestParallelism_workloads(t *testing.T) {
	dir := t.TempDir()
	writeClicks(t, dir, 8*4096+1234, 700)
	for _, name := range []string{"row_filter", "keyed_count", "greeting"} {
		for _, f := range []string{name + ".sql", name + ".js"} {
			src, err := os.ReadFile(filepath.Join("..", "bench", "workloads", f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name, script, set string
	}{
		{"A", "row_filter", ""},
		{"B", "keyed_count", ""},
		{"C", "greeting", ""},
		{"B checkpoints", "keyed_count", "SET 'execution.checkpointing.interval-rows' = '3000';\n"},
		{"C checkpoints", "greeting", "SET 'execution.checkpointing.interval-rows' = '3000';\n"},
		{"A in turn", "row_filter", inTurn},
		{"B in turn", "keyed_count", inTurn},
		{"A in turn, checkpoints", "row_filter", inTurn + "SET 'execution.checkpointing.interval-rows' = '3000';\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, tt.script+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			query := "SET 'ptfsh.format' = 'rows';\n" + tt.set + string(src)
			want := runAt(t, dir, query, 1)
			got, n := stripWorkerNotes(runAt(t, dir, query, 2))
			got = parallelismRow.ReplaceAllString(got, "${1}1 |")
			if n != 1 {
				t.Fatalf("the call did not run on 2 workers:\n%s", got[max(0, len(got)-300):])
			}
			if lines := strings.Count(want, "\n"); lines < 4096 {
				t.Fatalf("%d lines out at parallelism 1, want at least a batch:\n%s", lines, want[:min(len(want), 500)])
			}
			if got != want {
				t.Fatalf("parallelism 2 differs from 1 (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}
