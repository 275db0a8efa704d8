package exec_test

import (
	"context"
	"errors"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// TestSoftMemoryLimit: while a statement with a memory limit runs, Go's
// soft limit is at most that limit, whatever the process's pacing sets
// (SetSoftMemoryLimit); without statements it is the pacing's again.
// A soft limit lifted past the statement's let the heap grow far past it
// before a collection said so (a join under ulimit -v died of Go's out
// of memory).
func TestSoftMemoryLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const stmtLimit = 1 << 36
	exec.SetSoftMemoryLimit(1 << 40)
	ex := exec.NewExecution(context.Background(), nil, exec.Options{MemoryLimit: stmtLimit})
	stop := ex.WatchMemory()
	if got := debug.SetMemoryLimit(-1); got != stmtLimit {
		t.Errorf("soft limit with a statement running: %d, want its limit %d", got, stmtLimit)
	}
	exec.SetSoftMemoryLimit(1 << 41) // the pacing follows a growing live heap
	if got := debug.SetMemoryLimit(-1); got != stmtLimit {
		t.Errorf("soft limit after the pacing lifted its own: %d, want the statement's %d", got, stmtLimit)
	}
	exec.SetSoftMemoryLimit(1 << 30) // lower than the statement's: it wins
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("soft limit under the statement's: %d, want %d", got, 1<<30)
	}
	exec.SetSoftMemoryLimit(1 << 41)
	stop()
	if got := debug.SetMemoryLimit(-1); got != 1<<41 {
		t.Errorf("soft limit after the statement: %d, want the pacing's %d", got, 1<<41)
	}
}

// TestMemoryError: a statement whose limit the live heap passed gets an
// error that names what keeps rows in memory and the setting.
func TestMemoryError(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	ex := exec.NewExecution(context.Background(), nil, exec.Options{MemoryLimit: 1, EndOfInput: true})
	if err := ex.InMemory("a join keeps its rows"); err != nil {
		t.Fatal(err)
	}
	stop := ex.WatchMemory()
	defer stop()
	err := ex.MemoryError()
	if !errors.Is(err, exec.ErrMemoryLimit) {
		t.Fatalf("MemoryError = %v, want ErrMemoryLimit", err)
	}
	for _, w := range []string{"limit exceeded: ", "past SET 'ptfsh.memory-limit' = '1 bytes'", "what keeps rows in memory here: a join keeps its rows"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, err)
		}
	}
	if err := ex.CheckCancelled(); !errors.Is(err, exec.ErrMemoryLimit) {
		t.Errorf("CheckCancelled = %v, want the memory error (a source's check)", err)
	}
}
