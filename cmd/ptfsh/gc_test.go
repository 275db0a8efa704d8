package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestLiveLimit: the limit follows three times the live heap, never under
// the floor, and the hook sees collections.
func TestLiveLimit(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	l := newLiveLimit()
	debug.SetMemoryLimit(gcFloor)
	keep := liveMiB(64) // 64 MiB live: 192 MiB limit
	runtime.GC()
	l.update()
	if got := debug.SetMemoryLimit(-1); got < 3*64<<20 {
		t.Errorf("with 64 MiB live, limit = %d MiB, want at least 192", got>>20)
	}
	runtime.KeepAlive(keep)
	keep = nil
	runtime.GC()
	l.update()
	if got := debug.SetMemoryLimit(-1); got != gcFloor {
		t.Errorf("with little live, limit = %d MiB, want the floor %d", got>>20, gcFloor>>20)
	}
	// A live heap that rises for one collection does not lift the limit;
	// one that stays for two does.
	keep = liveMiB(64)
	runtime.GC()
	l.update()
	if got := debug.SetMemoryLimit(-1); got != gcFloor {
		t.Errorf("one collection with 64 MiB live: limit = %d MiB, want the floor %d still", got>>20, gcFloor>>20)
	}
	runtime.GC()
	l.update()
	if got := debug.SetMemoryLimit(-1); got < 3*64<<20 {
		t.Errorf("two collections with 64 MiB live: limit = %d MiB, want at least 192", got>>20)
	}
	runtime.KeepAlive(keep)
	keep = nil
	runtime.GC()
	l.update()
	// Two workers: twice the floor.
	l.floor.Store(2 * gcFloor)
	l.update()
	if got := debug.SetMemoryLimit(-1); got != 2*gcFloor {
		t.Errorf("with 2 workers, limit = %d MiB, want %d", got>>20, 2*gcFloor>>20)
	}
	l.floor.Store(gcFloor)
	armGCHook(l)
	defer l.off.Store(true)
	l.last = 1 // any live heap moves the limit
	debug.SetMemoryLimit(1 << 40)
	for i := 0; i < 50 && debug.SetMemoryLimit(-1) == 1<<40; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // finalizers run on their own goroutine
	}
	if got := debug.SetMemoryLimit(-1); got != gcFloor {
		t.Errorf("after collections, limit = %d, want the floor set by the hook", got)
	}
}

// liveMiB allocates n MiB for the caller to keep live.
func liveMiB(n int) [][]byte {
	keep := make([][]byte, n)
	for i := range keep {
		keep[i] = make([]byte, 1<<20)
	}
	return keep
}
