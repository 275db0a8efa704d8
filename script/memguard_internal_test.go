package script

import "testing"

// ForcedCollections is how many collections the process's memory guard
// has forced, for the tests of script_test.
func ForcedCollections() int64 { return guard.forced.Load() }

// GuardedEngines is how many Engines the memory guard watches.
func GuardedEngines() int {
	guard.mu.Lock()
	defer guard.mu.Unlock()
	return len(guard.engines)
}

// GuardGoroutines is how many goroutines the memory guard runs.
func GuardGoroutines() int { return int(guard.goroutines.Load()) }

// BenchmarkMemGuard_tick: one tick of the guard over four Engines whose
// calls run long and keep nothing: what every 20 ms costs while parallel
// workers run (reading the heap's counters, no collection).
func BenchmarkMemGuard_tick(b *testing.B) {
	g := &memGuard{engines: map[*Engine]*memWatch{}}
	for range 4 {
		e := &Engine{maxMemory: 1 << 30, active: &loading}
		e.run.Store(1<<runShift | runIn)
		g.engines[e] = &memWatch{e: e}
	}
	forced := g.forced.Load()
	b.ReportAllocs()
	for b.Loop() {
		g.tick()
	}
	if g.forced.Load() != forced {
		b.Fatal("the guard forced a collection for calls that keep nothing")
	}
}
