package ptfop

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/state"
)

// Value state in the store.
//
// Each value state entry of a call is an opstate.Table in namespace
// state/<uid>/<entry>, used for its generations only: the call's own
// cache (keyed.go, cache.go) holds the values in memory, and what the
// store holds of a key is its stored form (the 8-byte processing time
// it was written at, then the function's encoding), under its encoded
// partition key. A checkpoint writes the changed keys, in key order, as
// one packed generation per entry (runtime/exec/opstate/packed.go): a
// few values of some kilobytes each, whatever the size of the state,
// where writing each key into one tree of all of them cost a search of
// the tree per key and rewrote most of its pages. The warm tier spilled
// when memory is full is a packed generation too, listed at the next
// checkpoint, so that a restart after a crash never sees it. A read
// looks in the generations, newest first; compactions merge them in the
// operator's steps (compactValues). A state file of an older build, which
// keeps one key a value in the namespace itself, reads as the oldest
// generation.

// valueTables are the tables of a call's value state entries (nil for
// list and map entries), shared by the call's workers (parallel.go), as
// viewTables are; mu serialises their use. due: a checkpoint or a spill
// added a generation since compactValues last found nothing to do.
// writer is the keyedState that flushed first, and shared says that
// another one flushed too (the workers of a parallel call): none of them
// holds every key then, and none writes a snapshot.
//
// A periodic checkpoint's writes to the tables may run on the commit's
// goroutine after the checkpoint's function returned (flushValues,
// state.Defer): jobs are those of the checkpoint of transaction
// pendingTx (each worker's), and pending is closed when they have run.
// They take no lock, so that nothing they wait for waits for them: every
// other use of the tables holds mu and settles first.
type valueTables struct {
	mu     sync.Mutex
	tabs   []*opstate.Table[[]byte]
	due    atomic.Bool
	writer *keyedState
	shared bool

	jobs      []func(state.Tx) error
	pending   chan struct{}
	pendingTx state.Tx
}

// settle waits until the writes deferred by a checkpoint have run, unless
// that checkpoint is tx's own (its writes run after it). The caller holds
// vt.mu.
func (vt *valueTables) settle(tx state.Tx) {
	if vt.pending == nil || tx != nil && vt.pendingTx == tx {
		return
	}
	<-vt.pending
	vt.pending, vt.pendingTx = nil, nil
}

// deferWrite hands write on to run before tx commits, after the writes
// of the workers that flushed before in the same checkpoint. The caller
// holds vt.mu.
func (vt *valueTables) deferWrite(tx state.Tx, write func(state.Tx) error) error {
	if vt.pending != nil && vt.pendingTx == tx {
		vt.jobs = append(vt.jobs, write)
		return nil
	}
	done := make(chan struct{})
	vt.jobs, vt.pending, vt.pendingTx = []func(state.Tx) error{write}, done, tx
	return state.Defer(tx, func(tx state.Tx) error {
		defer close(done)
		jobs := vt.jobs
		vt.jobs = nil
		var first error
		for _, job := range jobs {
			if err := job(tx); err != nil && first == nil {
				first = err
			}
		}
		return first
	})
}

// openValues opens the tables of the call's value state, dropping what a
// run that stopped before its next checkpoint wrote, and reports whether
// the store holds value state of the call.
func (s *keyedState) openValues() (stored bool, err error) {
	s.vals = &valueTables{tabs: make([]*opstate.Table[[]byte], len(s.decls))}
	for i, sd := range s.decls {
		if sd.Kind != ptf.ValueState {
			continue
		}
		tab, err := opstate.Open[[]byte](s.ex.Store, s.nss[i], recordCodec{}, opstate.Options{CacheEntries: 1})
		if err != nil {
			return false, err
		}
		s.vals.tabs[i] = tab
		stored = stored || tab.MayHold()
	}
	return stored, nil
}

// readStored reads the stored form of entry i of a key, or nil: a
// tombstone reads as absent. It must not be called inside a transaction.
func (s *keyedState) readStored(i int, enc []byte) ([]byte, error) {
	if s.vals == nil || s.vals.tabs[i] == nil {
		return nil, nil
	}
	s.vals.mu.Lock()
	defer s.vals.mu.Unlock()
	s.vals.settle(nil)
	b, ok, err := s.vals.tabs[i].ReadStored(enc)
	if err != nil || !ok || len(b) == 0 {
		return nil, err
	}
	return b, nil
}

// compactValues goes on with the compaction of the value state's
// generations, one batch a table, when a checkpoint or a spill added one.
func (s *keyedState) compactValues() error {
	vt := s.vals
	if vt == nil || !vt.due.Load() {
		return nil
	}
	vt.mu.Lock()
	defer vt.mu.Unlock()
	vt.settle(nil)
	more := false
	for i, tab := range vt.tabs {
		if tab == nil || !tab.Compacting() {
			continue
		}
		if err := tab.Compact(); err != nil {
			return fmt.Errorf("%s: state %q: %w", s.fn, s.decls[i].Name, err)
		}
		more = more || tab.Compacting()
	}
	vt.due.Store(more)
	return nil
}

// valueRuns are the packed generations that one write of changed keys
// (a checkpoint, a spill) makes, one per value state entry, begun when
// the first key of the entry comes; or, whole, the snapshots of a
// checkpoint that writes every key (snapshotDue), one per entry.
type valueRuns struct {
	s     *keyedState
	tx    state.Tx
	runs  []*opstate.Run[[]byte]
	whole bool
}

func (s *keyedState) beginRuns(tx state.Tx) *valueRuns {
	return &valueRuns{s: s, tx: tx, runs: make([]*opstate.Run[[]byte], len(s.decls))}
}

// beginSnapshots begins a snapshot of every value state table, in tx.
func (s *keyedState) beginSnapshots(tx state.Tx) *valueRuns {
	r := s.beginRuns(tx)
	r.whole = true
	for i, tab := range s.vals.tabs {
		if tab != nil {
			r.runs[i] = tab.BeginSnapshot(tx)
		}
	}
	return r
}

// snapshotDue reports whether this checkpoint of s writes a snapshot of
// every key instead of the changed ones: when s holds every key the
// store may hold (the store held none of the call's value state when it
// began, none was spilled, and no other worker writes to the tables),
// and a table has so many generations that merging them is near.
// Writing the keys unchanged since the last checkpoint too costs less
// than a merge, which reads every generation back and rewrites each key:
// with 100k keys of which 60k changed at each checkpoint, merges took
// 2.3 % of a keyed count's CPU over 5M rows. The caller holds s.vals.mu.
func (s *keyedState) snapshotDue() bool {
	vt := s.vals
	if vt.writer == nil {
		vt.writer = s
	}
	vt.shared = vt.shared || vt.writer != s
	if s.stored || s.spilled || vt.shared {
		return false
	}
	for _, tab := range vt.tabs {
		if tab != nil && tab.SnapshotDue() {
			return true
		}
	}
	return false
}

// put writes entry i of key: its stored form b, or with b nil its
// deletion. Keys come in increasing order.
func (r *valueRuns) put(i int, key, b []byte) error {
	if b == nil && r.whole {
		return nil // a snapshot has nothing older to hide
	}
	run := r.runs[i]
	if run == nil {
		tab := r.s.vals.tabs[i]
		if tab == nil {
			return nil // list or map state (views.go)
		}
		if b == nil && !tab.MayHold() {
			return nil // nothing stored to delete
		}
		run = tab.BeginRun(r.tx)
		r.runs[i] = run
	}
	if b == nil {
		return run.Delete(key)
	}
	return run.Put(key, b)
}

// close ends the runs, adding their generations to the tables.
func (r *valueRuns) close() error {
	for _, run := range r.runs {
		if run == nil {
			continue
		}
		if err := run.Close(); err != nil {
			return err
		}
		r.s.vals.due.Store(true)
	}
	return nil
}

// dirtySorter puts a checkpoint's changed keys in key order (sort), with
// buffers kept from one checkpoint to the next (release): a periodic
// checkpoint of 60k keys made 8 MB of garbage.
type dirtySorter struct {
	keys   []dirtyKey
	a, tmp []sortItem
	recs   []byte // the records of the live keys (flushValues)
}

// sortItem is a key of dirtySorter.keys (i) by 8 bytes of it (p).
type sortItem struct {
	p uint64 // the 8 bytes after the prefix all keys share, zero-padded
	i int32
}

// maxKeptSort bounds the buffers a dirtySorter keeps between checkpoints.
const maxKeptSort = 128 << 10

// sort returns ds.keys (no key twice) in key order: a radix sort on 8
// bytes of each key, taken after the prefix all keys share, then a
// comparison sort of the keys whose 8 bytes are equal. A comparison sort
// of the strings themselves (pdqsort) took 2.6 times as long for 60k
// keys, most of a periodic checkpoint's time.
func (ds *dirtySorter) sort() []dirtyKey {
	d := ds.keys
	n := len(d)
	if n < 2 {
		return d
	}
	first := d[0].k
	lcp := len(first)
	for i := 1; i < n && lcp > 0; i++ {
		k := d[i].k
		j, m := 0, min(lcp, len(k))
		for j < m && k[j] == first[j] {
			j++
		}
		lcp = j
	}
	a, tmp := slices.Grow(ds.a[:0], n)[:n], slices.Grow(ds.tmp[:0], n)[:n]
	for i := range d {
		var p uint64
		k := d[i].k[lcp:]
		for j := range 8 {
			p <<= 8
			if j < len(k) {
				p |= uint64(k[j])
			}
		}
		a[i] = sortItem{p, int32(i)}
	}
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, x := range a {
			count[(x.p>>shift)&0xff+1]++
		}
		if count[(a[0].p>>shift)&0xff+1] == n {
			continue // one byte value: the order stays
		}
		for j := 1; j < len(count); j++ {
			count[j] += count[j-1]
		}
		for _, x := range a {
			c := (x.p >> shift) & 0xff
			tmp[count[c]] = x
			count[c]++
		}
		a, tmp = tmp, a
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && a[hi].p == a[lo].p {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(a[lo:hi], func(x, y sortItem) int { return strings.Compare(d[x.i].k, d[y.i].k) })
		}
		lo = hi
	}
	// Place j takes the key at a[j].i: d is put in order in place, one
	// cycle of the permutation at a time (a[j].i is -1 once place j
	// holds its key), not copied.
	for j := range a {
		if a[j].i < 0 {
			continue
		}
		first, k := d[j], j
		for {
			from := int(a[k].i)
			a[k].i = -1
			if from == j {
				d[k] = first
				break
			}
			d[k], k = d[from], from
		}
	}
	ds.a, ds.tmp = a, tmp
	return d
}

// release drops the keys' references, and the buffers when they grew
// past maxKeptSort keys (a final checkpoint of a million keys).
func (ds *dirtySorter) release() {
	if cap(ds.keys) > maxKeptSort || cap(ds.recs) > 64*maxKeptSort {
		*ds = dirtySorter{}
		return
	}
	clear(ds.keys[:cap(ds.keys)])
	ds.keys, ds.recs = ds.keys[:0], ds.recs[:0]
}

// sortDedup sorts keys and drops repeats.
func sortDedup(keys []string) []string {
	slices.Sort(keys)
	return slices.Compact(keys)
}

// ValueEntryOf returns the value state entry of uid that namespace ns
// belongs to: its table's namespace and the entry's name; false for
// other namespaces. A table's namespace is the table's itself (a state
// file of an older build) or its list of generations (namespace~meta):
// both name the table, and a caller that lists namespaces sees a table
// once or twice.
func ValueEntryOf(ns, uid string) (table, entry string, ok bool) {
	table = ns
	if i := strings.IndexByte(ns, '~'); i >= 0 {
		if !strings.HasSuffix(ns, "~meta") {
			return "", "", false // a generation
		}
		table = ns[:i]
	}
	entry, ok = strings.CutPrefix(table, exec.StateNamespace(uid, ""))
	if !ok || entry == "" {
		return "", "", false
	}
	return table, entry, true
}

// ScanValues calls fn with each key of the value state table of
// namespace ns (ValueEntryOf) and its stored form, in key order, as of
// the last checkpoint, reading in tx; the slices are valid only during
// the call.
func ScanValues(tx state.Tx, ns string, fn func(key, stored []byte) error) error {
	return opstate.ScanStored(tx, ns, nil, fn)
}
