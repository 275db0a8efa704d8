package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// The collector's pacing. goja allocates on every call, so a lazy
// collector (GOGC=400) saves about a third of the CPU of a stateful
// function; but it lets the heap grow to five times what is live, most
// of it garbage. A soft memory limit that follows the live heap, three
// times it and never under gcFloor per worker (--parallelism), keeps the
// speed of GOGC=400 while the live heap is small and bounds the peak to
// about three times it when it is large. GOGC or GOMEMLIMIT in the
// environment win: then ptfsh leaves the collector as they set it.
const (
	gcPercent   = 400
	gcFloor     = 128 << 20 // bytes
	gcLiveTimes = 3
)

// gc is the process's pacing, nil when the environment sets it.
var gc *liveLimit

func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	exec.SetSoftMemoryLimit(gcFloor)
	gc = newLiveLimit()
	armGCHook(gc)
}

// gcWorkers sets the floor for n workers (--parallelism): each has a
// JavaScript runtime and a state cache of its own, and a floor shared by
// two made the collector run three times as often.
func gcWorkers(n int) {
	if gc == nil || n <= 1 {
		return
	}
	gc.floor.Store(int64(n) * gcFloor)
	exec.SetSoftMemoryLimit(int64(n) * gcFloor)
}

// liveLimit sets the memory limit from the live heap after a collection.
type liveLimit struct {
	sample []metrics.Sample
	last   int64 // the limit set last
	prev   int64 // the live heap at the collection before
	floor  atomic.Int64
	off    atomic.Bool // the hook stops re-arming (tests)
}

func newLiveLimit() *liveLimit {
	l := &liveLimit{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}, last: gcFloor, prev: math.MaxInt64 / gcLiveTimes}
	l.floor.Store(gcFloor)
	return l
}

// update reads the live heap and moves the limit when it changed by more
// than an eighth. The limit follows the lower live heap of the last two
// collections: a live heap that rises for one cycle only, as a large
// checkpoint's write set does at the end of a statement, does not lift
// it (B with 1M keys peaked 60 MB higher when it did).
func (l *liveLimit) update() {
	metrics.Read(l.sample)
	if l.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	live := int64(min(l.sample[0].Value.Uint64(), math.MaxInt64/gcLiveTimes))
	base := min(live, l.prev)
	l.prev = live
	limit := max(l.floor.Load(), gcLiveTimes*base)
	if d := limit - l.last; d > l.last/8 || -d > l.last/8 {
		exec.SetSoftMemoryLimit(limit) // never above a running statement's limit (SET 'ptfsh.memory-limit')
		l.last = limit
	}
}

// armGCHook runs l.update after each collection: a finalizer runs once
// the object it guards is found unreachable, so an object that re-arms
// itself from its finalizer sees every cycle.
func armGCHook(l *liveLimit) {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		if l.off.Load() {
			return
		}
		l.update()
		armGCHook(l)
	})
}
