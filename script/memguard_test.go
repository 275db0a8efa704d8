package script_test

import (
	"errors"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/script"
)

// The functions of the memory guard's tests: keep holds on to 64 KiB
// strings until it is stopped; keepSome keeps 48 MiB and returns;
// garbage makes 200 MiB of strings it drops at once; spin runs 300 ms
// keeping nothing.
const (
	keepSrc = `export default {
  output: "INT",
  eval(ctx) {
    const kept = [];
    for (;;) kept.push("x".repeat(1 << 16) + kept.length);
  },
};`
	keepSomeSrc = `export default {
  output: "INT",
  eval(ctx) {
    const kept = [];
    for (let i = 0; i < 768; i++) kept.push("x".repeat(1 << 16) + i);
    ctx.collect(kept.length);
  },
};`
	garbageSrc = `export default {
  output: "INT",
  eval(ctx) {
    let n = 0;
    for (let i = 0; i < 3000; i++) n += ("x".repeat(1 << 16) + i).length;
    ctx.collect(n > 0 ? 1 : 0);
  },
};`
	spinSrc = `export default {
  output: "INT",
  eval(ctx) {
    const end = Date.now() + 300;
    let n = 0;
    while (Date.now() < end) n++;
    ctx.collect(n > 0 ? 1 : 0);
  },
};`
)

func memEngine(t *testing.T, limit int64) *script.Engine {
	t.Helper()
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, EvalTimeout: time.Minute, MaxMemory: limit})
	t.Cleanup(func() { e.Close() })
	return e
}

// wantMemoryLimit fails unless err is the memory guard's stop at limit.
func wantMemoryLimit(t *testing.T, err error, limit string) {
	t.Helper()
	if !errors.Is(err, ptf.ErrLimit) || !strings.Contains(err.Error(), "call kept more than "+limit+" of new memory") {
		t.Errorf("err = %v, want the memory limit of %s", err, limit)
	}
}

// TestMemoryGuard_collectorOff: with Go's collector off (GOGC=off, no
// memory limit) nothing collects by itself, so the guard must force the
// collections it measures with: it still stops a call that keeps more than
// its limit, and still leaves alone one that only makes garbage.
func TestMemoryGuard_collectorOff(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(1<<63 - 1)
	goruntime.GC()
	e := memEngine(t, 16<<20)
	forced := script.ForcedCollections()
	_, err := scalarHarness(t, e, keepSrc).Process()
	wantMemoryLimit(t, err, "16 mb")
	if script.ForcedCollections() == forced {
		t.Errorf("the guard stopped the call without a forced collection: with the collector off, what did it measure?")
	}
	if got := process(t, scalarHarness(t, e, garbageSrc)); got != "+I[1]" {
		t.Errorf("garbage: %s", got)
	}
}

// TestMemoryGuard_quiet: long calls that allocate far less than the
// limit (the interpreter's numbers are still allocated) cost no forced
// collection, whatever the heap holds besides.
func TestMemoryGuard_quiet(t *testing.T) {
	e := memEngine(t, 1<<30)
	spin := scalarHarness(t, e, spinSrc)
	time.Sleep(200 * time.Millisecond) // a collection an earlier test forced is measured
	forced := script.ForcedCollections()
	for range 3 {
		if got := process(t, spin); got != "+I[1]" {
			t.Fatalf("spin: %s", got)
		}
	}
	if n := script.ForcedCollections() - forced; n != 0 {
		t.Errorf("%d forced collections for calls that keep nothing", n)
	}
}

// TestMemoryGuard_oneForSeveralEngines: one guard goroutine watches every
// Engine with a limit, each call against its own Engine's limit, calls
// running at once on several goroutines (as parallel workers do): the
// call over its engine's 16 mb is stopped, the one that keeps 48 MiB under
// its engine's 1 gb runs to its end, and the garbage under 16 mb too.
func TestMemoryGuard_oneForSeveralEngines(t *testing.T) {
	before := script.GuardedEngines()
	small, large, other := memEngine(t, 16<<20), memEngine(t, 1<<30), memEngine(t, 16<<20)
	if n := script.GuardedEngines() - before; n != 3 {
		t.Errorf("the guard watches %d more engines, want 3", n)
	}
	if n := script.GuardGoroutines(); n != 1 {
		t.Errorf("%d memory guard goroutines, want 1", n)
	}
	keep, keepSome := scalarHarness(t, small, keepSrc), scalarHarness(t, large, keepSomeSrc)
	var (
		wg       sync.WaitGroup
		keepErr  error
		someRows string
		someErr  error
	)
	wg.Add(2)
	go func() { defer wg.Done(); _, keepErr = keep.Process() }()
	go func() {
		defer wg.Done()
		out, err := keepSome.Process()
		someErr = err
		if err == nil {
			someRows = formatRows(out, keepSome.Schema())
		}
	}()
	wg.Wait()
	wantMemoryLimit(t, keepErr, "16 mb")
	if someErr != nil || someRows != "+I[768]" {
		t.Errorf("keeping 48 MiB under 1 gb: %s, %v", someRows, someErr)
	}
	if got := process(t, scalarHarness(t, other, garbageSrc)); got != "+I[1]" {
		t.Errorf("garbage: %s", got)
	}
	// Closing an Engine takes it off the guard.
	other.Close()
	if n := script.GuardedEngines() - before; n != 2 {
		t.Errorf("after a Close the guard watches %d more engines, want 2", n)
	}
}
