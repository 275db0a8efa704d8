package script

import (
	"math"
	goruntime "runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// The memory guard (SET 'ptf.max-memory'). goja cannot limit allocations,
// so the guard watches the Go heap from outside the calls. There is one
// guard for the process: a goroutine that runs while some Engine has a
// memory limit (guard.watch) and serves all of them, the Engines of
// several sessions and the isolated Engines of parallel workers, which
// share one heap. (A guard per Engine made each force collections of the
// whole heap on its own, and a forced collection stalls every worker.)
//
// Every memoryTick it reads the heap through runtime/metrics (counters: no
// collection, no stop-the-world) and looks at the call each Engine runs.
// A call seen at two ticks in a row is a long call. Its baseline is the
// heap when it was first seen, live and garbage together (every live byte
// is in it), lowered to the live heap of the first collection that ends
// after that. What it can have kept since is bounded from above by the
// bytes the process allocated since, by the heap now, and by the live
// heap of the last forced collection plus every byte allocated since that
// began. While a bound stays within the limit, nothing more is done: that is the usual case, however
// loaded the machine, and it costs a few reads of counters.
//
// Past that, the guard forces a collection if Go's own last collection
// read the call over its limit, or if Go's collector would let the heap
// grow more than half a limit further before it collects by itself (its
// heap goal, which GOGC and the memory limit set: GOMEMLIMIT,
// debug.SetMemoryLimit, ptfsh's own pacing); otherwise it waits for Go's
// own collection, which comes soon. It forces at most one collection
// every minForceGap, and while they are quick, for at most about a tenth
// of the time (forceCost).
//
// The live heap a collection reports counts every object allocated while
// it marked (they are marked as they are allocated): a call that makes
// garbage fast reads as keeping much of it. That is why a baseline taken
// from Go's own last collection, with no forced one, stopped a call that
// only made garbage (TestEngine_SetMaxMemory): the readings during the
// call carried garbage that the baseline did not. The guard therefore
// decides on a forced collection, less every byte allocated while it ran:
// that figure is never more than what was live when it began, so a call
// that only makes garbage is never stopped, and one that keeps more than
// its limit by that figure is. Go's own collections alone stop a call
// only when two of them read it keeping twice its limit (a forced
// collection waits for a stop-the-world, which a built-in copying
// gigabytes, "s + s", holds off).
//
// The guard cannot tell which of several long calls running at once kept
// the memory: each is held to its own baseline, so a call that began
// after the heap grew is not blamed for it, and calls that ran through
// the growth are all stopped.

// memoryTick is how often the memory guard samples the heap.
const memoryTick = 20 * time.Millisecond

// minForceGap is the least time between two collections the guard forces;
// the gap is also forceCost times the length of the last one, up to
// maxForceGap (a collection slowed by a loaded machine must not leave a
// call unmeasured for long).
const (
	minForceGap = 100 * time.Millisecond
	maxForceGap = time.Second
	forceCost   = 10
)

// guard is the process's memory guard.
var guard = &memGuard{engines: map[*Engine]*memWatch{}}

type memGuard struct {
	mu      sync.Mutex
	engines map[*Engine]*memWatch // the Engines watched (those with a limit, until Close)
	running bool                  // the goroutine runs

	// forced counts the collections the guard forced, goroutines the
	// guard's goroutines started and not ended (tests).
	forced     atomic.Int64
	goroutines atomic.Int32

	// The goroutine's own.
	samples   []metrics.Sample
	due       []*memWatch // the calls a forced collection is to measure
	lastForce time.Time
	gap       time.Duration
	// The last forced collection: its live heap, and the bytes allocated
	// before it began (heapSample.allocs).
	fLive, fAllocs int64
	fDone          bool
}

// memWatch is what the guard knows of an Engine's running call.
type memWatch struct {
	e       *Engine
	seq     uint64 // the call (Engine.callSeq)
	seen    bool   // seen at an earlier tick
	base    int64  // its baseline
	allocs  int64  // bytes allocated (heapSample.allocs) when it was first seen
	cycles  uint64 // collections completed when it was first seen
	lowered bool   // base lowered to the live heap of a collection after it
	// over is the collection whose live heap first read the call over
	// twice its limit (0: none).
	over  uint64
	limit int64
}

// heapSample is one reading of runtime/metrics.
type heapSample struct {
	objects int64  // live and not yet swept: a bound of what is live now
	live    int64  // marked live by the last collection
	cycles  uint64 // completed collections
	allocs  int64  // bytes allocated since the process began
	goal    int64  // where Go's collector means to collect next
	limit   int64  // the memory limit (GOMEMLIMIT); MaxInt64 for none
	forced  uint64 // completed collections that runtime.GC forced
}

var heapMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:bytes",
	"/gc/heap/goal:bytes",
	"/gc/gomemlimit:bytes",
	"/gc/cycles/forced:gc-cycles",
}

func (g *memGuard) read() heapSample {
	if g.samples == nil {
		for _, n := range heapMetrics {
			g.samples = append(g.samples, metrics.Sample{Name: n})
		}
	}
	metrics.Read(g.samples)
	v := func(i int) int64 {
		if g.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(min(g.samples[i].Value.Uint64(), math.MaxInt64))
	}
	return heapSample{objects: v(0), live: v(1), cycles: uint64(v(2)), allocs: v(3), goal: v(4), limit: v(5), forced: uint64(v(6))}
}

// watch puts e under the guard, and starts the guard's goroutine if it
// is not running.
func (g *memGuard) watch(e *Engine) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.engines[e] == nil {
		g.engines[e] = &memWatch{e: e}
	}
	if !g.running {
		g.running = true
		g.goroutines.Add(1)
		go g.run()
	}
}

// forget takes e off the guard (Engine.Close); the goroutine ends at its
// next tick when no Engine is left.
func (g *memGuard) forget(e *Engine) {
	g.mu.Lock()
	delete(g.engines, e)
	g.mu.Unlock()
}

func (g *memGuard) run() {
	t := time.NewTicker(memoryTick)
	defer t.Stop()
	for range t.C {
		if !g.tick() {
			return
		}
	}
}

// verdicts of look
const (
	memFine  = iota // nothing to do
	memCheck        // a forced collection is to measure the call
	memStop         // Go's own collections read it over: stop it
)

// tick looks at every watched Engine's call once; false when no Engine is
// left and the goroutine is to end.
func (g *memGuard) tick() bool {
	g.mu.Lock()
	if len(g.engines) == 0 {
		g.running = false
		g.goroutines.Add(-1)
		g.mu.Unlock()
		return false
	}
	h := g.read()
	g.due = g.due[:0]
	var stops []*memWatch
	for e, w := range g.engines {
		e.mu.Lock()
		limit, seq, running := e.maxMemory, e.callSeq, e.active != nil
		e.mu.Unlock()
		switch g.look(w, h, limit, seq, running) {
		case memCheck:
			g.due = append(g.due, w)
		case memStop:
			stops = append(stops, w)
		}
	}
	g.mu.Unlock()
	for _, w := range stops {
		w.stop()
	}
	if len(g.due) > 0 && time.Since(g.lastForce) >= g.gap {
		g.force()
	}
	return true
}

// look updates w with the Engine's call and says what to do about it.
func (g *memGuard) look(w *memWatch, h heapSample, limit int64, seq uint64, running bool) int {
	if limit <= 0 || !running {
		w.seen = false
		return memFine
	}
	if !w.seen || w.seq != seq {
		*w = memWatch{e: w.e, seq: seq, seen: true, base: h.objects, allocs: h.allocs, cycles: h.cycles}
		return memFine
	}
	w.limit = limit
	after := h.cycles > w.cycles // a collection ended since the call was first seen
	if after && !w.lowered {
		w.base, w.lowered = min(w.base, h.live), true
	}
	// Fine while the process allocated no more than the limit since the
	// call was first seen, or while the heap (or the last forced
	// collection's live heap and what was allocated since) is within the
	// limit over the baseline.
	bound := h.objects
	if g.fDone {
		bound = min(bound, g.fLive+h.allocs-g.fAllocs)
	}
	if h.allocs-w.allocs <= limit || bound-w.base <= limit {
		return memFine
	}
	if after && h.live-w.base > limit {
		if (h.live-w.base)/2 > limit {
			if w.over != 0 && h.cycles > w.over {
				return memStop
			}
			if w.over == 0 {
				w.over = h.cycles
			}
		}
		return memCheck
	}
	if min(h.goal, h.limit)-w.base-limit > limit/2 {
		return memCheck
	}
	return memFine
}

// force runs a collection and stops the calls of g.due that keep more
// than their limits. The collection runs on a goroutine of its own, and
// the guard measures as soon as it has marked (the count of forced
// collections goes up): runtime.GC returns only once it has also swept the
// whole heap, yielding to the running goroutines after each span, which
// with a call that never waits takes seconds, or minutes. (That goroutine
// ends early when the next collection begins: its first step finishes
// the sweep.)
func (g *memGuard) force() {
	h0 := g.read()
	start := time.Now()
	go goruntime.GC()
	var h heapSample
	for {
		time.Sleep(time.Millisecond)
		if h = g.read(); h.forced > h0.forced {
			break
		}
	}
	g.lastForce = time.Now()
	g.gap = min(max(minForceGap, forceCost*g.lastForce.Sub(start)), maxForceGap)
	g.forced.Add(1)
	g.fLive, g.fAllocs, g.fDone = h.live, h0.allocs, true
	// What was live when the collection began is at least what it marked
	// less what was allocated while it ran (marked as it was allocated).
	live := h.live - (h.allocs - h0.allocs)
	for _, w := range g.due {
		if live-w.base > w.limit {
			w.stop()
		} else {
			w.over = 0
		}
	}
}

// stop interrupts the Engine's call if it is still the one watched.
func (w *memWatch) stop() {
	e := w.e
	e.mu.Lock()
	if e.active != nil && e.callSeq == w.seq {
		e.interruptLocked(memoryError(w.limit))
	}
	e.mu.Unlock()
}
