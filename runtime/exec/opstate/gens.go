package opstate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/state"
)

// Generations: how a table's checkpointed state lies in the store.
//
// Each checkpoint seals the generation its cache wrote to since the one
// before (its evicted changes, then the cache's changed values) and lists
// it in the table's meta namespace, in the checkpoint's transaction; the
// next changes go to a new generation. A checkpoint thus writes what
// changed, not the table: merging the changes into one tree of all the
// keys would dirty nearly every page of it when keys come at random, and
// a bbolt transaction holds the pages it dirties in memory until its
// commit. A read takes the newest generation that holds the key; each
// generation but the oldest has a filter of its keys, so a miss costs
// about one look-up.
//
// Compaction keeps the generations few: when the newest ones together
// reach half the size of the one before them, they are merged, in key
// order, into a new namespace, compactBatch keys or compactBytes a
// transaction (whichever comes first), and a
// last transaction lists it in their place and deletes them. The merged
// generation holds what they held, so the swap may commit between two
// checkpoints. A merge that includes the oldest generation drops the
// deletion markers. Every key is rewritten a few times over the table's
// life, in order, instead of at every checkpoint. A caller that holds
// every key in memory writes a snapshot instead when a merge is near
// (SnapshotDue, packed.go): it replaces every generation, and nothing is
// merged.

// compactBatch is how many keys a compaction writes in one transaction.
const compactBatch = 16 << 10

// compactBytes bounds the keys and values a compaction writes in one
// transaction: the batch is held three times over until it commits (the
// merge's copies, the transaction's buffer, the store's pages), and a
// batch of compactBatch rows of kilobytes each would take hundreds of
// megabytes at once, past a statement's memory limit in one step.
const compactBytes = 4 << 20

// maxGenerations forces a merge of the newest generations past this many.
const maxGenerations = 16

// metaKey is the key of the generations' list in the meta namespace.
var metaKey = []byte("generations")

// generation is a sealed run of a table's changes: a namespace of keys and
// their marked values (markValue and the encoding, or markDeleted).
type generation struct {
	name   string
	keys   int    // writes it took: its size, for the compaction's rule
	raw    bool   // the table's own namespace as older state files keep it: values without markers, no deletions
	packed bool   // its keys in blocks (packed.go)
	filter *bloom // its keys; nil for the oldest generation, which every miss reads
}

// generations is a table's generations: the sealed ones, then those
// spilled since the last checkpoint.
type generations struct {
	list   []generation // oldest first
	sealed int          // list[:sealed] are sealed (listed in the store), the rest spilled
	next   uint64       // the number of the next generation's namespace
}

func metaNamespace(ns string) string { return ns + "~meta" }

// newName names a new generation.
func (t *Table[V]) newName() string {
	n := t.gens.next
	t.gens.next++
	return t.ns + "~" + strconv.FormatUint(n, 10)
}

func (gs *generations) has(name string) bool {
	for _, g := range gs.list {
		if g.name == name {
			return true
		}
	}
	return false
}

// The list's versions: 1 knows marked and raw generations, 2 packed
// ones too (a list with one is written as version 2, so that a build
// that does not know them says so instead of misreading them).
const (
	metaVersion       = 1
	metaVersionPacked = 2
)

// generation kinds in the list.
const (
	kindMarked byte = iota
	kindRaw
	kindPacked
)

func (gs *generations) encode(ns string) []byte {
	b := []byte{metaVersion}
	for _, g := range gs.list[:gs.sealed] {
		if g.packed {
			b[0] = metaVersionPacked
		}
	}
	b = binary.AppendUvarint(b, gs.next)
	b = binary.AppendUvarint(b, uint64(gs.sealed))
	for _, g := range gs.list[:gs.sealed] {
		suffix := strings.TrimPrefix(g.name, ns)
		b = binary.AppendUvarint(b, uint64(len(suffix)))
		b = append(b, suffix...)
		b = binary.AppendUvarint(b, uint64(g.keys))
		kind := kindMarked
		switch {
		case g.raw:
			kind = kindRaw
		case g.packed:
			kind = kindPacked
		}
		b = append(b, kind)
	}
	return b
}

var errBadMeta = errors.New("the list of generations is damaged")

func decodeGenerations(ns string, b []byte) (gs generations, err error) {
	if len(b) == 0 || b[0] != metaVersion && b[0] != metaVersionPacked {
		return gs, fmt.Errorf("%w: unknown version", errBadMeta)
	}
	b = b[1:]
	uvarint := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			err = errBadMeta
			return 0
		}
		b = b[n:]
		return v
	}
	gs.next = uvarint()
	count := uvarint()
	for i := uint64(0); i < count && err == nil; i++ {
		n := uvarint()
		if err != nil || n > uint64(len(b)) {
			return gs, errBadMeta
		}
		g := generation{name: ns + string(b[:n])}
		b = b[n:]
		g.keys = int(uvarint())
		if err != nil || len(b) == 0 {
			return gs, errBadMeta
		}
		if b[0] > kindPacked {
			return gs, errBadMeta
		}
		g.raw, g.packed, b = b[0] == kindRaw, b[0] == kindPacked, b[1:]
		gs.list = append(gs.list, g)
	}
	gs.sealed = len(gs.list)
	return gs, err
}

// storedGenerations reads the list of generations of the table of
// namespace ns in tx. A state file of an older build has no list: the
// table's namespace, when it holds keys, is its one raw generation (of
// keys 0: the caller counts them if it needs to).
func storedGenerations(tx state.Tx, ns string) (gs generations, err error) {
	meta := metaNamespace(ns)
	b, err := tx.Get(meta, metaKey)
	if err != nil {
		return gs, err
	}
	if b != nil {
		if gs, err = decodeGenerations(ns, b); err != nil {
			return gs, fmt.Errorf("%s (namespace %q): delete the state file to start afresh", err, meta)
		}
		return gs, nil
	}
	if ok, err := hasKeys(tx, ns); err != nil || !ok {
		return gs, err
	}
	gs.list, gs.sealed = []generation{{name: ns, raw: true}}, 1
	return gs, nil
}

// openGenerations reads the table's list of generations, drops what a run
// that stopped left unlisted, and makes the filters.
func (t *Table[V]) openGenerations() error {
	meta := metaNamespace(t.ns)
	var leftover []string
	err := t.store.View(func(tx state.Tx) error {
		var err error
		if t.gens, err = storedGenerations(tx, t.ns); err != nil {
			return err
		}
		if len(t.gens.list) == 1 && t.gens.list[0].raw && t.gens.list[0].keys == 0 {
			n := 0
			if err := tx.Scan(t.ns, nil, func(_, _ []byte) error { n++; return nil }); err != nil {
				return err
			}
			t.gens.list[0].keys = n
		}
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, n := range names {
			if n == "delta/"+t.ns || strings.HasPrefix(n, t.ns+"~") && n != meta && !t.gens.has(n) {
				leftover = append(leftover, n)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(leftover) > 0 {
		err := t.store.Update(func(tx state.Tx) error {
			for _, n := range leftover {
				if err := tx.DeleteNamespace(n); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i := 1; i < len(t.gens.list); i++ {
		g := &t.gens.list[i]
		g.filter = &bloom{}
		c := &cursor{store: t.store, ns: g.name, packed: g.packed}
		for {
			k, ok, err := c.head()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			g.filter.add(k)
			c.pop()
		}
	}
	t.live = t.newName()
	t.stored = len(t.gens.list) > 0
	t.replan = true
	return nil
}

// lookup returns key's value in the newest generation that holds it, as
// stored (raw: without a marker), or nil.
func (t *Table[V]) lookup(tx state.Tx, key []byte) (b []byte, raw bool, err error) {
	if t.liveKeys > 0 && t.inLive.has(key) {
		if b, err := tx.Get(t.live, key); err != nil || b != nil {
			return b, false, err
		}
	}
	for i := len(t.gens.list) - 1; i >= 0; i-- {
		g := &t.gens.list[i]
		if g.filter != nil && !g.filter.has(key) {
			continue
		}
		var b []byte
		var err error
		if g.packed {
			b, err = lookupPacked(tx, g.name, key)
		} else {
			b, err = tx.Get(g.name, key)
		}
		if err != nil || b != nil {
			return b, g.raw, err
		}
	}
	return nil, false, nil
}

// seal lists the spilled generations and the live one among the sealed
// ones, in tx, and begins a new live one.
func (t *Table[V]) seal(tx state.Tx) error {
	if t.liveKeys > 0 {
		t.closeLive()
	}
	t.gens.sealed, t.relist = len(t.gens.list), false
	return tx.Put(metaNamespace(t.ns), metaKey, t.gens.encode(t.ns))
}

// spillKeys is how many writes the live generation takes before it is
// spilled: closed, and a new one begun. Evictions write to the live
// generation at random keys, so that each one rewrites most of its
// pages: a bounded live generation bounds that cost, where one that took
// every eviction of a long interval (or of a whole statement without a
// state file, which has only its final checkpoint) grew without bound.
const spillKeys = 32 << 10

// spill closes the live generation when it has taken spillKeys writes. A
// spilled generation is read and compacted as the sealed ones are, but
// is not listed in the store until the next checkpoint seals it: a
// restart drops it with the live one.
func (t *Table[V]) spill() {
	if t.liveKeys >= t.spillAt {
		t.closeLive()
	}
}

// closeLive appends the live generation to the list, unsealed, and
// begins a new one.
func (t *Table[V]) closeLive() {
	g := generation{name: t.live, keys: t.liveKeys}
	if len(t.gens.list) > 0 {
		f := t.inLive
		g.filter = &f
	}
	t.gens.list = append(t.gens.list, g)
	t.live, t.inLive, t.liveKeys = t.newName(), bloom{}, 0
	t.stored, t.replan = true, true
}

// dropGenerations deletes every generation and the list, in tx.
func (t *Table[V]) dropGenerations(tx state.Tx) error {
	names := append([]string{t.live, metaNamespace(t.ns)}, t.dropped...)
	for _, g := range t.gens.list {
		names = append(names, g.name)
	}
	if t.comp != nil {
		names = append(names, t.comp.out.name)
	}
	for _, n := range names {
		if err := tx.DeleteNamespace(n); err != nil {
			return err
		}
	}
	t.gens.list, t.gens.sealed, t.comp, t.dropped = nil, 0, nil, nil
	t.inLive, t.liveKeys, t.stored = bloom{}, 0, false
	return nil
}

// compaction is a merge of the generations list[lo..hi] under way.
type compaction struct {
	lo, hi  int
	out     generation
	filter  bloom
	cursors []*cursor // newest first
	keys    [][]byte  // the batch to write
	vals    [][]byte  // marked values; for a packed output, the values
	dels    []bool    // for a packed output: the key is deleted
}

// pick returns the first of the newest generations of list[from:to] to
// merge into one with list[to-1], or -1: a merge takes at least run
// generations. Sealed and spilled generations are merged apart, so that
// what a merge writes is listed in the store when its inputs were.
func (gs *generations) pick(from, to, run int) int {
	if to-from < 2 {
		return -1
	}
	i, acc := to-1, gs.list[to-1].keys
	for i > from && gs.list[i-1].keys <= 2*acc {
		i--
		acc += gs.list[i].keys
	}
	if to-i < run {
		i = to - 1
	}
	if i == to-1 && to-from > maxGenerations {
		i = to - 2
	}
	if i == to-1 {
		return -1
	}
	return i
}

// sealedRun is how many sealed generations a merge takes at least: two,
// or packedRun when the newest is packed.
func (gs *generations) sealedRun() int {
	if gs.sealed > 0 && gs.list[gs.sealed-1].packed {
		return packedRun
	}
	return 2
}

// packedRun is how many sealed generations a merge takes at least when
// the newest is packed: a packed generation is a checkpoint's changes of
// a caller that keeps all its hot keys in memory and reads the store
// seldom (the PTF value state), whose checkpoints change much of the
// table each time; merging every checkpoint into the table rewrote the
// whole table at each, and B with a checkpoint every 100k rows took
// 1.05 times the CPU with merges of four as with merges of eight.
const packedRun = 8

// spillRun is how many spilled generations a merge of them takes at
// least: spilled generations are many and of one size (spillKeys), and
// merging them two by two would rewrite every key once per doubling.
const spillRun = 4

// compactSome goes on with the compaction under way, one batch, or begins
// one if the generations call for it. It waits while a Scan runs, whose
// cursors read the generations.
func (t *Table[V]) compactSome() error {
	if t.scanning > 0 {
		return nil
	}
	if len(t.dropped) > 0 {
		return t.dropUnlisted()
	}
	if t.comp == nil {
		if !t.replan {
			return nil
		}
		t.replan = false
		lo, hi := t.gens.pick(t.gens.sealed, len(t.gens.list), spillRun), len(t.gens.list)-1
		if lo < 0 {
			lo, hi = t.gens.pick(0, t.gens.sealed, t.gens.sealedRun()), t.gens.sealed-1
		}
		if lo < 0 {
			return nil
		}
		c := &compaction{lo: lo, hi: hi, out: generation{name: t.newName()}}
		for i := c.hi; i >= c.lo; i-- {
			g := t.gens.list[i]
			c.out.packed = c.out.packed || g.packed
			c.cursors = append(c.cursors, &cursor{store: t.store, ns: g.name, raw: g.raw, packed: g.packed})
		}
		t.comp = c
	}
	if err := t.compactStep(); err != nil {
		return fmt.Errorf("compacting the state %q: %w", t.ns, err)
	}
	return nil
}

// compactStep merges up to t.batch keys into the compaction's output,
// and lists it when the inputs are done.
func (t *Table[V]) compactStep() error {
	c := t.comp
	c.keys, c.vals, c.dels = c.keys[:0], c.vals[:0], c.dels[:0]
	done, size := false, 0
	// The cursors read their batches in one transaction for the step
	// (they copy what they read), not one each.
	err := t.store.View(func(tx state.Tx) error {
		for _, cur := range c.cursors {
			cur.tx = tx
		}
		defer func() {
			for _, cur := range c.cursors {
				cur.tx = nil
			}
		}()
		for len(c.keys) < t.batch && size < compactBytes {
			key, val, deleted, ok, err := nextMerged(c.cursors)
			if err != nil {
				return err
			}
			if !ok {
				done = true
				break
			}
			if deleted && c.lo == 0 {
				continue // nothing older to hide
			}
			if c.out.packed { // no marked copy: putBlocks writes the marker
				c.keys, c.vals, c.dels = append(c.keys, key), append(c.vals, val), append(c.dels, deleted)
				size += len(key) + 1 + len(val)
				continue
			}
			marked := []byte{markDeleted}
			if !deleted {
				marked = append(append(make([]byte, 0, 1+len(val)), markValue), val...)
			}
			c.keys, c.vals = append(c.keys, key), append(c.vals, marked)
			size += len(key) + len(marked)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(c.keys) > 0 {
		err := t.store.Update(func(tx state.Tx) error {
			if c.out.packed {
				return putBlocks(tx, c.out.name, c.keys, c.vals, c.dels)
			}
			for i, k := range c.keys {
				if err := tx.Put(c.out.name, k, c.vals[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range c.keys {
			c.filter.add(k)
		}
		c.out.keys += len(c.keys)
	}
	if !done {
		return nil
	}
	list := append([]generation(nil), t.gens.list[:c.lo]...)
	if c.out.keys > 0 {
		if c.lo > 0 {
			c.out.filter = &c.filter
		}
		list = append(list, c.out)
	}
	list = append(list, t.gens.list[c.hi+1:]...)
	if len(list) > 0 {
		list[0].filter = nil
	}
	// The inputs were sealed, or all spilled; a checkpoint may have
	// sealed them since the merge began.
	listed := c.lo < t.gens.sealed
	next := generations{list: list, sealed: t.gens.sealed, next: t.gens.next}
	if listed {
		next.sealed = len(list) - (len(t.gens.list) - t.gens.sealed)
	}
	err = t.store.Update(func(tx state.Tx) error {
		for _, g := range t.gens.list[c.lo : c.hi+1] {
			if err := tx.DeleteNamespace(g.name); err != nil {
				return err
			}
		}
		if !listed {
			return nil
		}
		return tx.Put(metaNamespace(t.ns), metaKey, next.encode(t.ns))
	})
	if err != nil {
		return err
	}
	t.gens, t.comp, t.replan = next, nil, true
	t.stored = len(t.gens.list) > 0
	return nil
}

// nextMerged takes the least key of the cursors' heads off every cursor
// that has it and returns it with the value of the first of them (the
// cursors are newest first) and whether that is a deletion; ok is false
// when every cursor is done. The key and the value share the cursor's
// copy of what it read, which no later read overwrites.
func nextMerged(cursors []*cursor) (key, val []byte, deleted, ok bool, err error) {
	// at marks the cursors whose head is key, found in the one pass
	// that finds key (a second pass comparing every head again took a
	// third of a merge's time); past 64 cursors the others are compared
	// again.
	var at uint64
	for i, c := range cursors {
		k, has, err := c.head()
		if err != nil {
			return nil, nil, false, false, err
		}
		if !has {
			continue
		}
		cmp := -1
		if key != nil {
			cmp = bytes.Compare(k, key)
		}
		switch {
		case cmp < 0:
			key, at = k, 0
			if i < 64 {
				at = 1 << i
			}
		case cmp == 0 && i < 64:
			at |= 1 << i
		}
	}
	if key == nil {
		return nil, nil, false, false, nil
	}
	found := false
	for i, c := range cursors {
		if i < 64 && at&(1<<i) == 0 {
			continue
		}
		if i >= 64 {
			if k, has, _ := c.head(); !has || !bytes.Equal(k, key) {
				continue
			}
		}
		if !found {
			val, deleted = c.value()
			found = true
		}
		c.pop()
	}
	return key, val, deleted, true, nil
}

// ScanStored calls fn with each key that starts with prefix in the state
// of the table of namespace ns as its last checkpoint left it, and the
// key's encoded value, in key order, reading in tx: for a reader of a
// state file that opens no Table (SHOW STATE), whatever the file's
// build. Deleted keys are not visited. The slices passed to fn are valid
// only during the call.
func ScanStored(tx state.Tx, ns string, prefix []byte, fn func(key, value []byte) error) error {
	gs, err := storedGenerations(tx, ns)
	if err != nil {
		return fmt.Errorf("reading the state %q: %w", ns, err)
	}
	var cursors []*cursor
	for i := len(gs.list) - 1; i >= 0; i-- {
		g := gs.list[i]
		cursors = append(cursors, &cursor{tx: tx, ns: g.name, raw: g.raw, packed: g.packed, prefix: prefix})
	}
	for {
		key, val, deleted, ok, err := nextMerged(cursors)
		if err != nil {
			return fmt.Errorf("reading the state %q: %w", ns, err)
		}
		if !ok {
			return nil
		}
		if deleted {
			continue
		}
		if err := fn(key, val); err != nil {
			return err
		}
	}
}
