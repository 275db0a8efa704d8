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
// when two of them read it over its limit, the later no lower: a forced
// collection waits for a stop-the-world, which a built-in copying
// gigabytes ("s + s") holds off for seconds.
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
	due       []memCall // the calls a forced collection is to measure
	pending   *forcing  // a forced collection that has not marked yet
	lastForce time.Time
	gap       time.Duration
	// The last forced collection: its live heap, and the bytes allocated
	// before it began (heapSample.allocs).
	fLive, fAllocs int64
	fDone          bool
}

// memCall is a call a forced collection is to measure, as it was when the
// guard decided to force it.
type memCall struct {
	w           *memWatch
	seq         uint64
	base, limit int64
}

// forcing is a forced collection under way.
type forcing struct {
	before heapSample
	start  time.Time
	due    []memCall
	// marked is the allocations at the last reading (since before) taken
	// before the collection began to mark, as far as can be told.
	// readings holds those taken since, with the stops of the world each
	// had seen.
	marked   int64
	readings []heapSample
}

// add notes a reading of the heap taken while p runs; true when p has
// marked (its allocations before the mark are then in p.marked).
//
// Marking begins as the stop of the world that begins a collection ends,
// and ends with the next stop; the forced collection has marked when the
// count of forced collections goes up. A reading that had seen at least
// two stops fewer than the first one that sees the count up was taken
// before the forced collection's first stop (unless the next collection
// stopped the world in the millisecond between, or a mark had to resume
// after its end, both rare): what was allocated after it was allocated
// while the collection marked, or later.
func (p *forcing) add(h heapSample) bool {
	if h.forced <= p.before.forced {
		p.readings = append(p.readings, h)
		return false
	}
	p.marked = p.before.allocs
	for _, r := range p.readings {
		if r.stops+2 <= h.stops {
			p.marked = r.allocs
		}
	}
	return true
}

// memWatch is what the guard knows of an Engine's running call.
type memWatch struct {
	e       *Engine
	seq     uint64 // the call (Engine.seq)
	seen    bool   // seen at an earlier tick
	base    int64  // its baseline
	allocs  int64  // bytes allocated (heapSample.allocs) when it was first seen
	cycles  uint64 // collections completed when it was first seen
	lowered bool   // base lowered to the live heap of a collection after it
	// over is the collection whose live heap first read the call over
	// its limit (0: none), overLive what it read.
	over     uint64
	overLive int64
	limit    int64
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
	// stops counts the collector's stops of the world: two a collection,
	// one as it begins to mark, one as it ends marking.
	stops uint64
}

var heapMetrics = []string{
	"/memory/classes/heap/objects:bytes",
	"/gc/heap/live:bytes",
	"/gc/cycles/total:gc-cycles",
	"/gc/heap/allocs:bytes",
	"/gc/heap/goal:bytes",
	"/gc/gomemlimit:bytes",
	"/gc/cycles/forced:gc-cycles",
	"/sched/pauses/stopping/gc:seconds",
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
	h := heapSample{objects: v(0), live: v(1), cycles: uint64(v(2)), allocs: v(3), goal: v(4), limit: v(5), forced: uint64(v(6))}
	if g.samples[7].Value.Kind() == metrics.KindFloat64Histogram {
		for _, n := range g.samples[7].Value.Float64Histogram().Counts {
			h.stops += n
		}
	}
	return h
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
	var stops []memCall
	for e, w := range g.engines {
		e.mu.Lock()
		run := e.run.Load()
		limit, seq, running := e.maxMemory, run>>runShift, run&runIn != 0
		e.mu.Unlock()
		switch g.look(w, h, limit, seq, running) {
		case memCheck:
			g.due = append(g.due, memCall{w, w.seq, w.base, w.limit})
		case memStop:
			stops = append(stops, memCall{w, w.seq, w.base, w.limit})
		}
	}
	g.mu.Unlock()
	for _, c := range stops {
		c.stop()
	}
	switch p := g.pending; {
	case p != nil:
		if p.add(h) {
			g.pending = nil
			g.measure(p, h)
		}
	case len(g.due) > 0 && time.Since(g.lastForce) >= g.gap:
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
		switch {
		case w.over == 0:
			w.over, w.overLive = h.cycles, h.live
		case h.cycles > w.over && h.live >= w.overLive:
			return memStop
		}
		return memCheck
	}
	// Go's collector would let the heap grow more than half a limit
	// further before it collects, or the heap has grown that much already
	// (a built-in making gigabytes at once, while a collection runs).
	if min(h.goal, h.limit)-w.base-limit > limit/2 || h.objects-w.base-limit > limit/2 {
		return memCheck
	}
	return memFine
}

// force starts a collection and, once it has marked (the count of forced
// collections goes up), stops the calls of g.due that keep more than
// their limits. The collection runs on a goroutine of its own:
// runtime.GC returns only once it has also swept the whole heap, yielding
// to the running goroutines after each span, which with a call that never
// waits takes seconds, or minutes (that goroutine ends early when the next
// collection begins: its first step finishes the sweep). The guard polls
// for the mark for up to forcePolls ms, then goes on with its ticks and
// measures at the first tick after the mark: a copy of gigabytes ("s + s")
// holds off a collection's stop-the-world for seconds, and meanwhile Go's
// own collections may show the call over.
func (g *memGuard) force() {
	p := &forcing{before: g.read(), start: time.Now(), due: append([]memCall(nil), g.due...)}
	go goruntime.GC()
	for range forcePolls {
		time.Sleep(time.Millisecond)
		if h := g.read(); p.add(h) {
			g.measure(p, h)
			return
		}
	}
	g.pending = p
}

// forcePolls is how many times, a millisecond apart, force looks for the
// end of the mark before it leaves the measuring to the next ticks.
const forcePolls = 2 * int(memoryTick/time.Millisecond)

// measure reads h, taken after the forced collection p marked, and stops
// the calls of p.due that keep more than their limits.
func (g *memGuard) measure(p *forcing, h heapSample) {
	g.lastForce = time.Now()
	g.gap = min(max(minForceGap, forceCost*g.lastForce.Sub(p.start)), maxForceGap)
	g.forced.Add(1)
	g.fLive, g.fAllocs, g.fDone = h.live, p.marked, true
	// What was live when the collection began to mark is at least what it
	// marked less what was allocated since (marked as it was allocated).
	live := h.live - (h.allocs - p.marked)
	for _, c := range p.due {
		if live-c.base > c.limit {
			c.stop()
		} else if c.w.seq == c.seq {
			c.w.over = 0
		}
	}
}

// stop interrupts the Engine's call if it is still the one measured.
func (c memCall) stop() {
	e := c.w.e
	e.mu.Lock()
	e.interruptLocked(c.seq, memoryError(c.limit))
	e.mu.Unlock()
}
