package exec_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
)

// TestNewOptions: the defaults are the settings table's, every key SET
// gave is read with the table's parser, and a text that does not parse is
// an error that names its key (every such key, not only the first).
func TestNewOptions(t *testing.T) {
	def := exec.DefaultOptions()
	want := exec.Options{EndOfInput: true, Parallelism: 1, ParallelWorkers: "auto", CacheSize: 20_000, CacheBytes: 256 << 20, MaxTimerFirings: 1_000_000, CheckpointRows: 100_000, CheckpointInterval: 10 * time.Second, MemoryLimit: -1}
	if diff := cmp.Diff(want, def); diff != "" {
		t.Errorf("DefaultOptions (-want +got):\n%s", diff)
	}
	got, err := exec.NewOptions(map[string]string{
		exec.SetEndOfInput: "false", exec.SetParallelism: "4", exec.SetCacheSize: "10", exec.SetCacheBytes: "1 mb",
		exec.SetStateTTL: "5 s", exec.SetMaxTimerFirings: "0", exec.SetOnIncompatible: "discard", exec.SetSourcePositions: "reset",
		exec.SetCheckpointRows: "0", exec.SetCheckpointInterval: "2 min", exec.SetProcessingTime: "2025-03-27 12:00:00", exec.SetTraceKey: " Bob ",
		exec.SetLineage: "on", exec.SetShuffleSeed: "7", exec.SetMemoryLimit: "2 gb", exec.SetParallelWorkers: "In-Turn",
	})
	if err != nil {
		t.Fatal(err)
	}
	want = exec.Options{Parallelism: 4, ParallelWorkers: "in-turn", CacheSize: 10, CacheBytes: 1 << 20, StateTTL: 5 * time.Second, DiscardIncompatible: true, ResetSources: true,
		CheckpointInterval: 2 * time.Minute, ProcessingTime: 1743076800000, FixedClock: true, Trace: true, TraceFilter: exec.TraceFilter{Key: "Bob"}, Lineage: true, ShuffleSeed: 7, MemoryLimit: 2 << 30}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewOptions (-want +got):\n%s", diff)
	}
	_, err = exec.NewOptions(map[string]string{exec.SetCacheSize: "x", exec.SetProcessingTime: "soon", exec.SetParallelism: "2"})
	for _, w := range []string{"SET 'state.cache-size' needs a number of keys of at least 1, not 'x'", "SET 'ptfsh.processing-time': want epoch milliseconds"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("NewOptions with bad values: %v; want %q in it", err, w)
		}
	}
}

// TestNewExecution_clock: a fixed processing time is the clock's.
func TestNewExecution_clock(t *testing.T) {
	o := exec.DefaultOptions()
	o.ProcessingTime, o.FixedClock = 42, true
	if got := exec.NewExecution(context.Background(), nil, o).Now(); got != 42 {
		t.Errorf("Now() = %d, want 42", got)
	}
	if exec.NewExecution(context.Background(), nil, exec.DefaultOptions()).Now() < 1_700_000_000_000 {
		t.Error("the default clock is not the wall clock")
	}
}
