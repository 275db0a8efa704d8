package script

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
