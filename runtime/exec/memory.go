package exec

import (
	"errors"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptfsh/ptfsh/runtime/settings"
)

// The memory limit of a statement (SET 'ptfsh.memory-limit'). What an
// operator keeps in memory (a join's rows, a Top-N's or an OVER
// window's rows: Execution.HoldsInMemory) grows with its input, and Go's answer to
// a heap that outgrows the machine is "fatal error: out of memory", which
// ends the process and loses what the shell holds. The limit turns that
// into an error of the statement that names what keeps the rows and the
// setting.
//
// One watcher serves the process (every session and statement: they
// share one heap). While a statement with a limit runs, it reads the
// live heap, as of Go's last collection, every memoryTick through
// runtime/metrics (counters: no collection, no pause), and it sets Go's
// own soft limit (debug.SetMemoryLimit) to the lowest limit of the
// statements running (SetSoftMemoryLimit: the process's own pacing never
// lifts it above), so that the collector runs more often as the heap
// nears it and the live heap it reports stays fresh; when the heap,
// garbage included, is past that limit and the last collection's live
// heap is not, it forces a collection (at most one every minForceGap) to
// know whether the limit was passed. A statement
// whose limit the live heap passes stops at its next row
// (Execution.MemoryError). The heap a statement frees when it stops is
// given back at once (a collection).

// SetMemoryLimit is the key of the limit: a size, or auto.
const SetMemoryLimit = "ptfsh.memory-limit"

// ErrMemoryLimit is what the error of a statement stopped at its memory
// limit wraps (its text begins as that of a function stopped by one of
// its limits).
var ErrMemoryLimit = errors.New("limit exceeded")

// memoryTick is how often the watcher reads the live heap.
const memoryTick = 25 * time.Millisecond

// autoShare is the share of the memory the process may use that auto
// takes: the heap a collection finds live, garbage beside it, the state
// file's map and the stacks share the rest.
const autoShare = 0.6

type memWatcher struct {
	mu      sync.Mutex
	limits  map[*Execution]int64 // the running statements and their limits
	low     int64                // the lowest of them
	stop    chan struct{}
	base    int64 // Go's soft limit without statements (SetSoftMemoryLimit)
	hasBase bool
	live    atomic.Int64
	sample  []metrics.Sample
	forced  time.Time // when the watcher last forced a collection
}

// minForceGap is the least time between two collections the watcher
// forces, when the heap (garbage included) is past the lowest limit and
// the live heap of Go's last collection is not.
const minForceGap = 200 * time.Millisecond

var memory = &memWatcher{limits: map[*Execution]int64{}}

// WatchMemory puts the statement under its memory limit (Opts.MemoryLimit;
// auto resolved now) until stop. A statement without a limit is not
// watched.
func (ex *Execution) WatchMemory() (stop func()) {
	limit, how := ex.Opts.MemoryLimit, ""
	if limit < 0 {
		limit, how = AutoMemoryLimit()
	}
	ex.memLimit, ex.memHow = limit, how
	if limit <= 0 {
		return func() {}
	}
	memory.add(ex, limit)
	return func() {
		memory.remove(ex)
		if ex.memStopped.Load() {
			// What the stopped statement held is garbage now: give it
			// back before the next statement reads the live heap.
			goruntime.GC()
			memory.read()
		}
	}
}

func (m *memWatcher) add(ex *Execution, limit int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.hasBase {
		m.base, m.hasBase = debug.SetMemoryLimit(-1), true // GOMEMLIMIT's, or none
	}
	if len(m.limits) == 0 {
		m.sample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
		m.readLocked()
		m.stop = make(chan struct{})
		go m.run(m.stop)
	}
	m.limits[ex] = limit
	m.softLocked()
}

func (m *memWatcher) remove(ex *Execution) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.limits, ex)
	if len(m.limits) == 0 {
		close(m.stop)
	}
	m.softLocked()
}

// SetSoftMemoryLimit sets Go's soft memory limit (debug.SetMemoryLimit)
// to n, or to the lowest memory limit of the statements running when that
// is lower. The process's pacing of the collector (cmd/ptfsh) sets it
// through here: set directly, a limit that follows the live heap would
// lift the soft limit past a statement's, and the collector would let the
// heap grow far past it before the watcher learns that it was passed.
func SetSoftMemoryLimit(n int64) {
	memory.mu.Lock()
	defer memory.mu.Unlock()
	memory.base, memory.hasBase = n, true
	memory.softLocked()
}

// softLocked sets Go's soft limit to the lowest limit of the running
// statements, unless the base is lower (GOMEMLIMIT, the pacing's).
func (m *memWatcher) softLocked() {
	low := int64(math.MaxInt64)
	for _, l := range m.limits {
		low = min(low, l)
	}
	if len(m.limits) == 0 {
		low = 0
	}
	m.low = low
	if !m.hasBase {
		return // no statement ran yet: the soft limit is still the base
	}
	if low == 0 {
		debug.SetMemoryLimit(m.base)
		return
	}
	debug.SetMemoryLimit(min(m.base, low))
}

func (m *memWatcher) run(stop chan struct{}) {
	t := time.NewTicker(memoryTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			m.read()
		}
	}
}

func (m *memWatcher) read() {
	m.mu.Lock()
	objects := m.readLocked()
	// The live heap is as of Go's last collection. When the heap with
	// its garbage is past the lowest limit and that reading is not, it
	// may be old: a collection now says whether the limit was passed,
	// before the heap grows on into the machine's end. It runs without
	// the lock (it may take seconds on a large heap).
	force := m.low > 0 && objects > m.low && m.live.Load() <= m.low && time.Since(m.forced) > minForceGap
	if force {
		m.forced = time.Now()
	}
	m.mu.Unlock()
	if force {
		goruntime.GC()
		m.mu.Lock()
		m.forced = time.Now() // the gap runs from the collection's end
		m.readLocked()
		m.mu.Unlock()
	}
}

// readLocked reads the live heap, and returns the bytes of the heap's
// objects, garbage included.
func (m *memWatcher) readLocked() int64 {
	if m.sample == nil {
		return 0
	}
	metrics.Read(m.sample)
	if s := m.sample[0]; s.Value.Kind() == metrics.KindUint64 {
		m.live.Store(int64(s.Value.Uint64()))
	}
	if s := m.sample[1]; s.Value.Kind() == metrics.KindUint64 {
		return int64(s.Value.Uint64())
	}
	return 0
}

// HoldsInMemory notes that an operator of the statement keeps rows in
// memory for it (held says what: "a join keeps its rows"): no checkpoint
// is taken before the end (NoCheckpoints), and an error of the memory
// limit names it.
func (ex *Execution) HoldsInMemory(held string) {
	if ex.stateInMemory == "" {
		ex.stateInMemory = held
	}
	ex.KeepsInMemory(held)
	ex.NoCheckpoints(held + " in memory")
}

// KeepsInMemory notes what keeps rows in memory beside the operators (the
// table result mode's rows), for the error of the memory limit.
func (ex *Execution) KeepsInMemory(held string) { ex.held = append(ex.held, held) }

// MemoryError returns the error that stops the statement when the live
// heap passed its memory limit, else nil. The driver calls it between
// rows: it costs an atomic load.
func (ex *Execution) MemoryError() error {
	if ex.memLimit <= 0 {
		return nil
	}
	live := memory.live.Load()
	if live <= ex.memLimit {
		return nil
	}
	ex.memStopped.Store(true)
	what := "no operator that keeps all its rows; the state caches of its operators and PTF calls (SET 'state.cache-size' and 'state.cache-bytes' bound them) and the rows on their way"
	if len(ex.held) > 0 {
		what = strings.Join(dedup(ex.held), "; ")
	}
	limit := "'" + settings.FormatSize(ex.memLimit) + "'"
	if ex.memHow != "" {
		limit = "'auto', " + roughSize(ex.memLimit) + " (" + ex.memHow + ")"
	}
	return fmt.Errorf("%w: the statement stopped before the process ran out of memory: %s of the heap live, past SET '%s' = %s; what keeps rows in memory here: %s. Raise the limit if the machine has the memory, or give the operators less to keep (filter or aggregate their inputs first, or lower the state caches)",
		ErrMemoryLimit, roughSize(live), SetMemoryLimit, limit, what)
}

// roughSize writes n bytes in the units of the settings, to a tenth.
func roughSize(n int64) string {
	for _, u := range []struct {
		name string
		size float64
	}{{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}} {
		if float64(n) >= u.size {
			return strconv.FormatFloat(float64(n)/u.size, 'f', 1, 64) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " b"
}

// dedup returns xs without repeats, in order.
func dedup(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// AutoMemoryLimit is the limit auto stands for: autoShare of the memory
// the process may use, the least of its cgroup's limit, the address space
// left under its limit (ulimit -v) and the machine's memory, and how it
// was found; 0 when none is known.
func AutoMemoryLimit() (int64, string) {
	best, how := int64(0), ""
	take := func(n int64, what string) {
		if n > 0 && (best == 0 || n < best) {
			best, how = n, what
		}
	}
	if n, ok := readLimitFile("/sys/fs/cgroup/memory.max"); ok {
		take(n, "of the cgroup's memory.max")
	} else if n, ok := readLimitFile("/sys/fs/cgroup/memory/memory.limit_in_bytes"); ok {
		take(n, "of the cgroup's memory limit")
	}
	if as, ok := addressSpaceLimit(); ok {
		// Address space already taken (the state file's map, the Go
		// runtime's reservations) is not the heap's to grow into.
		take(as-procVmSize(), "of the address space left under ulimit -v")
	}
	take(memTotal(), "of the machine's memory")
	if best <= 0 {
		return 0, ""
	}
	return int64(float64(best) * autoShare), fmt.Sprintf("%d %% %s", int(autoShare*100), how)
}

// readLimitFile reads a cgroup limit: a number of bytes, or "max" (none).
func readLimitFile(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 || n >= 1<<60 {
		return 0, false
	}
	return n, true
}

// memTotal is the machine's memory (/proc/meminfo), 0 when unknown.
func memTotal() int64 { return procField("/proc/meminfo", "MemTotal:") }

// procVmSize is the process's address space in use, 0 when unknown.
func procVmSize() int64 { return procField("/proc/self/status", "VmSize:") }

// procField reads a "Name: N kB" line of a /proc file, in bytes.
func procField(path, name string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 0
}

// StateInMemory says which operator keeps state in memory that no
// checkpoint holds (HoldsInMemory), or "" when none does: a statement
// stopped then cannot go on from a final checkpoint.
func (ex *Execution) StateInMemory() string { return ex.stateInMemory }
