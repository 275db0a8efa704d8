package state

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"go.etcd.io/bbolt"
)

// The buffered writes of a bbolt transaction (boltTx): a namespace's log
// and map of writes, the slabs they are cut from, and the flush that
// applies them to bbolt in key order, at the commit or before a Scan.

// appendFill is how full bbolt fills the nodes it splits when a flush
// only appends keys after the last one stored. bbolt's default, half,
// suits keys inserted among others; keys appended in order at half full
// leave every page half empty, and a first checkpoint of 1M keys made a
// file, and held pages in memory at its commit, twice as large as needed.
const appendFill = 0.9

// boltNS is a namespace as one transaction sees it.
type boltNS struct {
	name string
	b    *bbolt.Bucket
	sum  uint32 // nsSum of its name, for the values' checksums
	// The buffered writes (a nil value deletes): the first ones, while
	// their keys come in increasing order (as a checkpoint gives them),
	// in log; the others in writes, newer than any in log. A log needs no
	// hashing and no sort, and a final checkpoint of 1M keys held 80 MB
	// less at its peak than with a map. The flush merges both into one
	// pass in key order: bbolt splits nodes only when it commits, so keys
	// put into the middle of a node that took thousands already move
	// them all, and two runs in key order one after the other were
	// quadratic (400 s for a checkpoint of two workers' 1M keys).
	log    []logEntry
	writes map[string][]byte
	// slab is the free end of the memory the buffered keys and the
	// stored values are cut from: one allocation for many writes instead
	// of two a write (cut). The first slab of a transaction is small and
	// each next one twice as large, up to slabSize: a transaction of one
	// write (a cache evicting a key at a time) allocates a kilobyte, not
	// the 64 KiB a checkpoint's thousands of writes share.
	slab     []byte
	nextSlab int // the size of the next slab; 0: firstSlab
	hint     int // the size to make writes (boltStore.writeHint)
}

// logEntry is a buffered write of boltNS.log.
type logEntry struct {
	key   string
	value []byte // the stored value; nil: delete
}

// buffered returns the buffered write of key, newest first: found is
// false when there is none.
func (sp *boltNS) buffered(key []byte) (stored []byte, found bool) {
	if v, ok := sp.writes[string(key)]; ok {
		return v, true
	}
	i, ok := slices.BinarySearchFunc(sp.log, key, func(e logEntry, k []byte) int { return strings.Compare(e.key, string(k)) })
	if !ok {
		return nil, false
	}
	return sp.log[i].value, true
}

// pending reports whether sp holds buffered writes.
func (sp *boltNS) pending() bool { return len(sp.log) > 0 || len(sp.writes) > 0 }

// buffer adds a write of key: to the log while keys come in order.
func (sp *boltNS) buffer(key, stored []byte) {
	if len(sp.writes) == 0 && (len(sp.log) == 0 || string(key) > sp.log[len(sp.log)-1].key) {
		sp.log = append(sp.log, logEntry{key: sp.cutString(key), value: stored})
		return
	}
	if sp.writes == nil {
		sp.writes = make(map[string][]byte, sp.hint)
	}
	sp.writes[sp.cutString(key)] = stored
}

// firstSlab and slabSize are the sizes of a boltNS's first slab and of
// its largest.
const (
	firstSlab = 1 << 10
	slabSize  = 64 << 10
)

// cut returns n bytes of sp's slab. They live as long as anything
// refers to one of the slab's pieces: until the transaction and the Views
// that read its writes are over.
func (sp *boltNS) cut(n int) []byte {
	if n > slabSize/8 {
		return make([]byte, n)
	}
	if len(sp.slab) < n {
		size := max(sp.nextSlab, firstSlab)
		for size < n {
			size *= 2
		}
		sp.slab = make([]byte, size)
		sp.nextSlab = min(2*size, slabSize)
	}
	b := sp.slab[:n:n]
	sp.slab = sp.slab[n:]
	return b
}

// cutString is a copy of key in sp's slab, as a string.
func (sp *boltNS) cutString(key []byte) string {
	if len(key) == 0 {
		return ""
	}
	b := sp.cut(len(key))
	copy(b, key)
	return unsafe.String(&b[0], len(b))
}

// flush applies the buffered writes of ns to bbolt, in key order: the
// log and the sorted keys of writes merged, a key in both taken from
// writes (the newer).
func (t *boltTx) flush(ns string) error {
	sp := t.lookup(ns)
	if sp == nil || !sp.pending() {
		return nil
	}
	if t.writable {
		if t.s.writeHint == nil {
			t.s.writeHint = map[string]int{}
		}
		t.s.writeHint[ns] = len(sp.writes)
	}
	keys := make([]string, 0, len(sp.writes))
	keys = slices.AppendSeq(keys, maps.Keys(sp.writes))
	slices.Sort(keys)
	if !t.keep {
		defer func() { sp.log, sp.writes = nil, nil }()
	}
	err := t.call(func() error {
		first := ""
		switch {
		case len(sp.log) > 0 && (len(keys) == 0 || sp.log[0].key < keys[0]):
			first = sp.log[0].key
		case len(keys) > 0:
			first = keys[0]
		}
		// Keys appended after the last one stored fill their pages (see
		// appendFill).
		sp.b.FillPercent = bbolt.DefaultFillPercent
		if last, _ := sp.b.Cursor().Last(); last == nil || string(last) < first {
			sp.b.FillPercent = appendFill
		}
		put := func(k string, v []byte) error {
			var err error
			if v == nil {
				err = sp.b.Delete(stringBytes(k))
			} else {
				// bbolt copies the key but keeps v until the commit; v is
				// our own, cut by Put.
				err = sp.b.Put(stringBytes(k), v)
			}
			if err != nil {
				return fmt.Errorf("state: write to %q: %w", ns, err)
			}
			return nil
		}
		i, j := 0, 0
		for i < len(sp.log) || j < len(keys) {
			var err error
			switch {
			case j == len(keys) || i < len(sp.log) && sp.log[i].key < keys[j]:
				err = put(sp.log[i].key, sp.log[i].value)
				i++
			default:
				if i < len(sp.log) && sp.log[i].key == keys[j] {
					i++ // written again since
				}
				err = put(keys[j], sp.writes[keys[j]])
				j++
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return err
}

// stringBytes is the bytes of s without a copy, for bbolt's Put and
// Delete, which only read their key (Put keeps a copy of its own).
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// flushAll flushes every namespace, in name order.
func (t *boltTx) flushAll() error {
	for _, ns := range t.looked() {
		if err := t.flush(ns); err != nil {
			return err
		}
	}
	return nil
}
