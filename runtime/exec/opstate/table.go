package opstate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/ptfsh/ptfsh/state"
)

// A Codec encodes the values of a Table.
type Codec[V any] interface {
	// Append appends the encoding of v to b and returns the result.
	Append(b []byte, v V) ([]byte, error)
	// Decode decodes a value that Append encoded. b is valid only during
	// the call: a value must not keep it.
	Decode(b []byte) (V, error)
}

// Options configure a Table.
type Options struct {
	// CacheEntries is how many values stay decoded in memory; 0 means
	// DefaultCacheEntries.
	CacheEntries int

	compactBatch int // 0: compactBatch (tests make it small)
	spillKeys    int // 0: spillKeys (tests make it small)
}

// DefaultCacheEntries is the cache of a Table whose Options give none.
const DefaultCacheEntries = 20_000

// batchSize is how many entries a Scan reads from the store in one
// transaction, and how many deletions of keys out of the cache it
// gathers before it writes them.
const batchSize = 512

// Markers of a value in a generation.
const (
	markValue   byte = 'v'
	markDeleted byte = 'x'
)

// entry flags.
const (
	fDirty   = 1 << iota // changed since the last checkpoint or eviction
	fDeleted             // deleted: the entry is a marker until written
	fUsed                // used since the CLOCK's hand last passed
	fListed              // in Table.dirty
	fStored              // a generation may hold the key
)

type entry[V any] struct {
	key   string
	val   V
	flags uint8
	slot  int // index in Table.ring
}

// Table is an operator's keyed state: values of type V under byte keys,
// in the state store behind a bounded cache (see the package comment).
type Table[V any] struct {
	store state.Store
	ns    string // the table's name: its generations' namespaces begin with it
	codec Codec[V]
	max   int
	batch int // keys a compaction writes in one transaction
	// spillAt is how many writes the live generation takes before it is
	// spilled (spillKeys).
	spillAt int

	cache map[string]*entry[V]
	ring  []*entry[V] // the cache's entries, for the CLOCK
	hand  int
	dirty []*entry[V] // entries with fDirty, some perhaps no longer
	// deadListed counts the entries of dirty that left the cache.
	deadListed int

	// stored: a checkpointed generation may hold keys (false for a table
	// that has written nothing yet, whose misses then cost no read).
	stored bool
	gens   generations
	// live is the namespace of the generation the cache writes to until
	// the next checkpoint seals it; inLive filters its keys and liveKeys
	// counts its writes (0: it is empty).
	live     string
	inLive   bloom
	liveKeys int
	// comp is the compaction under way; replan says that the generations
	// changed since the last look for one.
	comp   *compaction
	replan bool
	// relist: a snapshot replaced the generations (Run.replace), and the
	// next checkpoint lists what is left even when nothing is new;
	// dropped are the namespaces it replaced, which compactSome deletes
	// (dropUnlisted).
	relist  bool
	dropped []string
	// scanning is the depth of running Scans: eviction waits for them.
	scanning int
	// pinned is the entry an eviction leaves in the cache: the one that
	// Get or Put just added, whose value the caller may change in place
	// and Touch.
	pinned *entry[V]
	// gone are keys deleted during a Scan that the cache does not hold:
	// their markers go to the delta in batches. goneInScan holds them
	// all until the Scan ends, so that it does not visit them (its
	// cursors may have read them before their markers were written).
	gone       []string
	goneInScan map[string]struct{}
	buf        []byte
}

// Open returns the table of namespace ns in store. What a run that did
// not reach its next checkpoint left (an unsealed generation, a
// compaction's unfinished output) is dropped.
func Open[V any](store state.Store, ns string, codec Codec[V], opts Options) (*Table[V], error) {
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = DefaultCacheEntries
	}
	if opts.compactBatch <= 0 {
		opts.compactBatch = compactBatch
	}
	if opts.spillKeys <= 0 {
		opts.spillKeys = spillKeys
	}
	t := &Table[V]{store: store, ns: ns, codec: codec, max: opts.CacheEntries, batch: opts.compactBatch, spillAt: opts.spillKeys, cache: map[string]*entry[V]{}}
	if err := t.openGenerations(); err != nil {
		return nil, fmt.Errorf("opening the state %q: %w", ns, err)
	}
	return t, nil
}

// hasKeys reports whether namespace ns holds a key.
func hasKeys(tx state.Tx, ns string) (bool, error) {
	err := tx.Scan(ns, nil, func(_, _ []byte) error { return errBatch })
	if errors.Is(err, errBatch) {
		return true, nil
	}
	return false, err
}

// Namespace returns the table's namespace.
func (t *Table[V]) Namespace() string { return t.ns }

// Cached returns how many entries the cache holds (deletion markers
// included).
func (t *Table[V]) Cached() int { return len(t.cache) }

// Get returns the value under key and whether there is one.
func (t *Table[V]) Get(key []byte) (V, bool, error) {
	if e, ok := t.cache[string(key)]; ok {
		e.flags |= fUsed
		if e.flags&fDeleted != 0 {
			var zero V
			return zero, false, nil
		}
		return e.val, true, nil
	}
	var zero V
	if !t.stored && t.liveKeys == 0 {
		return zero, false, nil
	}
	if err := t.compactSome(); err != nil {
		return zero, false, err
	}
	v, found, err := t.read(key)
	if err != nil || !found {
		return zero, false, err
	}
	e := t.add(string(key), v, fStored)
	if err := t.evictBut(e); err != nil {
		return zero, false, err
	}
	return e.val, true, nil
}

// read reads key from the newest generation that holds it.
func (t *Table[V]) read(key []byte) (v V, found bool, err error) {
	err = t.store.View(func(tx state.Tx) error {
		b, raw, err := t.lookup(tx, key)
		if err != nil || b == nil {
			return err
		}
		if !raw {
			if len(b) == 0 || b[0] == markDeleted {
				return nil
			}
			b = b[1:]
		}
		v, err = t.codec.Decode(b)
		found = err == nil
		return err
	})
	if err != nil {
		err = fmt.Errorf("reading the state %q, key %x: %w", t.ns, key, err)
	}
	return v, found, err
}

// Put sets the value under key.
func (t *Table[V]) Put(key []byte, v V) error {
	if e, ok := t.cache[string(key)]; ok {
		e.val = v
		e.flags = e.flags&^fDeleted | fUsed
		t.markDirty(e)
		return nil
	}
	if err := t.compactSome(); err != nil {
		return err
	}
	e := t.add(string(key), v, t.mayBeStored(key))
	t.markDirty(e)
	return t.evictBut(e)
}

// Touch marks the value under key, changed in place, for writing. A key
// the cache does not hold is not changed.
func (t *Table[V]) Touch(key []byte) {
	if e, ok := t.cache[string(key)]; ok && e.flags&fDeleted == 0 {
		t.markDirty(e)
	}
}

// Delete removes key.
func (t *Table[V]) Delete(key []byte) error {
	e, ok := t.cache[string(key)]
	if !ok {
		if !t.stored && t.liveKeys == 0 {
			return nil
		}
		if t.scanning > 0 {
			t.gone = append(t.gone, string(key))
			if t.goneInScan == nil {
				t.goneInScan = map[string]struct{}{}
			}
			t.goneInScan[string(key)] = struct{}{}
			if len(t.gone) >= batchSize {
				return t.writeGone()
			}
			return nil
		}
		e = t.add(string(key), *new(V), fStored)
	}
	var zero V
	e.val = zero // the dirty list may hold e until the next checkpoint
	if e.flags&fStored == 0 {
		// No generation holds the key: it leaves the cache at once, and
		// no marker waits for the next checkpoint (a table used as a
		// queue adds and deletes many keys between two).
		t.remove(e)
		if t.deadListed > 1024 && t.deadListed > len(t.dirty)/2 {
			t.dropEvicted()
		}
		return nil
	}
	e.flags |= fDeleted | fUsed
	t.markDirty(e)
	return t.evict()
}

// mayBeStored is fStored when key, which the cache does not hold, may be
// in the store, else 0: before the first checkpoint no generation is
// sealed, and the live one's filter knows the keys it may hold.
func (t *Table[V]) mayBeStored(key []byte) uint8 {
	if t.stored || t.liveKeys > 0 && t.inLive.has(key) {
		return fStored
	}
	return 0
}

func (t *Table[V]) add(key string, v V, flags uint8) *entry[V] {
	e := &entry[V]{key: key, val: v, flags: flags | fUsed, slot: len(t.ring)}
	t.cache[key] = e
	t.ring = append(t.ring, e)
	return e
}

func (t *Table[V]) markDirty(e *entry[V]) {
	e.flags |= fDirty
	if e.flags&fListed == 0 {
		e.flags |= fListed
		t.dirty = append(t.dirty, e)
	}
}

// remove takes e out of the cache.
func (t *Table[V]) remove(e *entry[V]) {
	delete(t.cache, e.key)
	last := t.ring[len(t.ring)-1]
	t.ring[e.slot] = last
	last.slot = e.slot
	t.ring[len(t.ring)-1] = nil
	t.ring = t.ring[:len(t.ring)-1]
	if t.hand >= len(t.ring) {
		t.hand = 0
	}
	e.slot = -1
	if e.flags&fListed != 0 {
		t.deadListed++
	}
}

// evictBut evicts as evict does, but never e.
func (t *Table[V]) evictBut(e *entry[V]) error {
	t.pinned = e
	defer func() { t.pinned = nil }()
	return t.evict()
}

// evict brings the cache back under its size when it is over: the hand
// passes the entries, clearing their use bits, and takes the first ones
// found unused, down to nine tenths of the size, so that one eviction
// serves many additions. Changed entries go to the live generation, in
// one transaction.
func (t *Table[V]) evict() error {
	if len(t.cache) <= t.max || t.scanning > 0 {
		return nil
	}
	target := t.max - t.max/10
	var out []*entry[V]
	for len(t.cache)-len(out) > target {
		if t.hand >= len(t.ring) {
			t.hand = 0
		}
		e := t.ring[t.hand]
		if e == t.pinned {
			t.hand++
			continue
		}
		if e.flags&fUsed != 0 {
			e.flags &^= fUsed
			t.hand++
			continue
		}
		t.remove(e) // the slot now holds another entry: the hand stays
		if e.flags&fDirty != 0 && (e.flags&fDeleted == 0 || e.flags&fStored != 0) {
			out = append(out, e)
		} else {
			e.val = *new(V) // the value is the store's now
		}
	}
	t.dropEvicted()
	if len(out) == 0 {
		return nil
	}
	slices.SortFunc(out, func(a, b *entry[V]) int { return compareStrings(a.key, b.key) })
	err := t.store.Update(func(tx state.Tx) error {
		for _, e := range out {
			if err := t.putLive(tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("moving the state %q from memory to the store: %w", t.ns, err)
	}
	for _, e := range out {
		e.flags &^= fDirty
		e.val = *new(V)
	}
	t.spill()
	return nil
}

// dropEvicted takes the entries that left the cache out of the dirty list,
// so that memory holds the cache's values only, however many keys change
// between two checkpoints.
func (t *Table[V]) dropEvicted() {
	t.deadListed = 0
	keep := t.dirty[:0]
	for _, e := range t.dirty {
		if e.slot >= 0 {
			keep = append(keep, e)
		} else {
			e.flags &^= fListed
		}
	}
	clear(t.dirty[len(keep):])
	t.dirty = keep
}

// writeGone writes the markers of the keys deleted during a Scan.
func (t *Table[V]) writeGone() error {
	if len(t.gone) == 0 {
		return nil
	}
	slices.Sort(t.gone)
	err := t.store.Update(func(tx state.Tx) error {
		for _, k := range t.gone {
			if err := t.putLiveRaw(tx, []byte(k), []byte{markDeleted}); err != nil {
				return err
			}
		}
		return nil
	})
	t.gone = t.gone[:0]
	if err != nil {
		return fmt.Errorf("writing the state %q: %w", t.ns, err)
	}
	t.spill()
	return nil
}

// Flush takes the table's checkpoint in tx, the checkpoint's transaction:
// the cache's changed values go to the live generation, which is then
// sealed, listed among the table's generations; a new live one begins.
// The checkpoint writes no more than the cache's changes and the list,
// however large the table. The table goes on as if tx committed (the
// store's later transactions see its writes; a statement whose checkpoint
// fails to commit stops, and its tables with it).
func (t *Table[V]) Flush(tx state.Tx) error {
	if err := t.writeGoneTx(tx); err != nil {
		return err
	}
	dirty := t.dirty[:0]
	for _, e := range t.dirty {
		e.flags &^= fListed
		if e.slot >= 0 && e.flags&fDirty != 0 {
			dirty = append(dirty, e)
		}
	}
	slices.SortFunc(dirty, func(a, b *entry[V]) int { return compareStrings(a.key, b.key) })
	for _, e := range dirty {
		e.flags &^= fDirty
		if e.flags&fDeleted != 0 {
			if e.flags&fStored != 0 {
				if err := t.putLive(tx, e); err != nil {
					return fmt.Errorf("checkpointing the state %q: %w", t.ns, err)
				}
			}
			t.remove(e)
			continue
		}
		if err := t.putLive(tx, e); err != nil {
			return fmt.Errorf("checkpointing the state %q: %w", t.ns, err)
		}
		e.flags |= fStored
	}
	clear(t.dirty)
	t.dirty, t.deadListed = t.dirty[:0], 0
	if t.liveKeys == 0 && t.gens.sealed == len(t.gens.list) && !t.relist {
		return nil
	}
	if err := t.seal(tx); err != nil {
		return fmt.Errorf("checkpointing the state %q: %w", t.ns, err)
	}
	return nil
}

// writeGoneTx writes the deletion markers gathered during a Scan in tx.
func (t *Table[V]) writeGoneTx(tx state.Tx) error {
	for _, k := range t.gone {
		if err := t.putLiveRaw(tx, []byte(k), []byte{markDeleted}); err != nil {
			return err
		}
	}
	t.gone = t.gone[:0]
	return nil
}

// Drop deletes the table's state, in tx: the statement that kept it
// finished, and nothing will read it again.
func (t *Table[V]) Drop(tx state.Tx) error {
	if err := t.dropGenerations(tx); err != nil {
		return err
	}
	t.cache = map[string]*entry[V]{}
	t.ring, t.dirty, t.gone, t.hand, t.deadListed = nil, nil, nil, 0, 0
	return nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Scan calls fn with each key that starts with prefix and its value, in
// key order, until fn returns false or an error. fn may Get, Put and
// Delete keys of the table; a key it adds is not visited by this Scan.
// The key passed to fn is valid only during the call.
func (t *Table[V]) Scan(prefix []byte, fn func(key []byte, v V) (bool, error)) error {
	return t.ScanFrom(prefix, nil, fn)
}

// ScanFrom is Scan from the first key at or after from (nil: the first
// key with the prefix), so that the keys before it, and the deletion
// markers among them, cost nothing.
func (t *Table[V]) ScanFrom(prefix, from []byte, fn func(key []byte, v V) (bool, error)) (err error) {
	if err := t.compactSome(); err != nil {
		return err
	}
	t.scanning++
	defer func() {
		t.scanning--
		if t.scanning == 0 {
			t.goneInScan = nil
			err = errors.Join(err, t.writeGone(), t.evict())
		}
	}()
	var cached []string
	for k, e := range t.cache {
		if e.flags&fDeleted == 0 && bytes.HasPrefix([]byte(k), prefix) && k >= string(from) {
			cached = append(cached, k)
		}
	}
	slices.Sort(cached)
	// The generations' cursors, newest first.
	var cursors []*cursor
	if t.liveKeys > 0 {
		cursors = append(cursors, &cursor{store: t.store, ns: t.live, prefix: prefix, next: from})
	}
	for i := len(t.gens.list) - 1; i >= 0; i-- {
		g := t.gens.list[i]
		cursors = append(cursors, &cursor{store: t.store, ns: g.name, raw: g.raw, packed: g.packed, prefix: prefix, next: from})
	}
	ci := 0
	for {
		// The least key of the heads.
		var key []byte
		have := false
		if ci < len(cached) {
			key, have = []byte(cached[ci]), true
		}
		for _, c := range cursors {
			k, ok, err := c.head()
			if err != nil {
				return fmt.Errorf("reading the state %q: %w", t.ns, err)
			}
			if ok && (!have || bytes.Compare(k, key) < 0) {
				key, have = k, true
			}
		}
		if !have {
			return nil
		}
		key = bytes.Clone(key)
		if ci < len(cached) && cached[ci] == string(key) {
			ci++
		}
		// The newest generation's value; the older ones' are passed.
		var val []byte
		inStore, deleted := false, false
		for _, c := range cursors {
			if k, ok, _ := c.head(); ok && bytes.Equal(k, key) {
				if !inStore {
					val, deleted = c.value()
					inStore = true
				}
				c.pop()
			}
		}
		var v V
		if e, ok := t.cache[string(key)]; ok { // the cache is the newest
			if e.flags&fDeleted != 0 {
				continue
			}
			e.flags |= fUsed
			v = e.val
		} else {
			if !inStore || deleted {
				continue // deleted, or a key of the cache that fn deleted before its turn
			}
			if _, ok := t.goneInScan[string(key)]; ok {
				continue // deleted before its turn
			}
			if v, err = t.codec.Decode(val); err != nil {
				return fmt.Errorf("reading the state %q, key %x: %w", t.ns, key, err)
			}
		}
		more, err := fn(key, v)
		if err != nil || !more {
			return err
		}
	}
}

// cursor reads the keys of a generation with a prefix in batches, one
// short transaction each, so that no transaction is open while a Scan's
// function runs.
type cursor struct {
	store  state.Store
	tx     state.Tx // when not nil, the batches are read in it (ScanStored)
	ns     string
	raw    bool // values without markers (see generation.raw)
	packed bool // keys in blocks (see packed.go)
	prefix []byte
	keys   [][]byte
	vals   [][]byte
	i      int
	next   []byte // the key to go on from; nil: the first with the prefix
	done   bool
}

func (c *cursor) head() ([]byte, bool, error) {
	if c.i < len(c.keys) {
		return c.keys[c.i], true, nil
	}
	if c.done {
		return nil, false, nil
	}
	c.keys, c.vals, c.i = c.keys[:0], c.vals[:0], 0
	from := c.next
	read := func(tx state.Tx) error {
		if c.packed {
			return c.readPacked(tx)
		}
		return tx.ScanFrom(c.ns, c.prefix, from, func(k, v []byte) error {
			if len(c.keys) == batchSize {
				c.next = bytes.Clone(k)
				return errBatch
			}
			c.keys = append(c.keys, bytes.Clone(k))
			c.vals = append(c.vals, bytes.Clone(v))
			return nil
		})
	}
	var err error
	if c.tx != nil {
		err = read(c.tx)
	} else {
		err = c.store.View(read)
	}
	switch {
	case errors.Is(err, errBatch):
	case err != nil:
		return nil, false, err
	default:
		c.done = true
	}
	if len(c.keys) == 0 {
		return nil, false, nil
	}
	return c.keys[0], true, nil
}

// value returns the head's value, without its marker, and whether it is
// a deletion.
func (c *cursor) value() (v []byte, deleted bool) {
	v = c.vals[c.i]
	if c.raw {
		return v, false
	}
	if len(v) == 0 || v[0] == markDeleted {
		return nil, true
	}
	return v[1:], false
}
func (c *cursor) pop() { c.i++ }

var errBatch = errors.New("batch full")

// putLive writes e's value, or its deletion, to the live generation.
func (t *Table[V]) putLive(tx state.Tx, e *entry[V]) error {
	b := t.buf[:0]
	if e.flags&fDeleted != 0 {
		b = append(b, markDeleted)
	} else {
		var err error
		if b, err = t.codec.Append(append(b, markValue), e.val); err != nil {
			return fmt.Errorf("key %x: %w", e.key, err)
		}
	}
	t.buf = b
	return t.putLiveRaw(tx, []byte(e.key), b)
}

// putLiveRaw writes a marked value to the live generation.
func (t *Table[V]) putLiveRaw(tx state.Tx, key, marked []byte) error {
	if err := tx.Put(t.live, key, marked); err != nil {
		return err
	}
	t.inLive.add(key)
	t.liveKeys++
	return nil
}
