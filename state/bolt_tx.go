package state

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.etcd.io/bbolt"
)

// A transaction of the bbolt store: buffered writes, reads, scans and
// namespaces (bolt.go opens, runs and commits it).

// boltTx is a transaction of the bbolt store.
//
// Writes are buffered per namespace and applied to bbolt in key order: at
// the commit, and before a Scan or DeleteNamespace of that namespace. bbolt
// splits nodes only when it commits, so keys inserted in random order into
// one node cost a copy of the node's entries each; 100k new keys in one
// Update took seconds that way, and sorted they take milliseconds. Get reads
// the buffer first, so a transaction still sees its own writes.
type boltTx struct {
	s        *boltStore
	tx       *bbolt.Tx
	writable bool
	done     bool
	guard    scanGuard
	corrupt  error // the first ErrCorrupt seen, if any
	// The namespaces looked up so far: the first in first (most
	// transactions use one: a View for one key), the others in spaces.
	first  *boltNS
	spaces map[string]*boltNS

	// For UpdateAsync (bolt_async.go). mixed holds the namespaces whose
	// writes are not all in spaces: some went into bbolt before a Scan,
	// or the namespace was deleted. keep: flush leaves the buffered
	// writes in place, for readers of a transaction in flight. over: the
	// transaction in flight whose writes this View reads first.
	mixed map[string]bool
	keep  bool
	over  *Commit
	// async: the transaction of an UpdateAsync whose function is running,
	// which Defer may hand work on from (later, run before the commit).
	async bool
	later []func(Tx) error
}

func (t *boltTx) deferring() bool { return t.async && !t.done }

func (t *boltTx) deferFn(fn func(Tx) error) { t.later = append(t.later, fn) }

// runLater runs the functions that Defer handed on, each once, and
// returns the first error.
func (t *boltTx) runLater() error {
	later := t.later
	t.later, t.async = nil, false
	var first error
	for _, fn := range later {
		if err := fn(t); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// call runs op through the store's guard and remembers corruption.
func (t *boltTx) call(op func() error) error {
	err := t.s.guard(op)
	if err != nil && t.corrupt == nil && errors.Is(err, ErrCorrupt) {
		t.corrupt = err
	}
	return err
}

// space returns namespace ns, or nil if it does not exist and create is
// false. Call it inside call.
func (t *boltTx) space(ns string, create bool) (*boltNS, error) {
	if sp := t.lookup(ns); sp != nil {
		return sp, nil
	}
	var b *bbolt.Bucket
	if create {
		var err error
		if b, err = t.tx.CreateBucketIfNotExists([]byte(ns)); err != nil {
			return nil, fmt.Errorf("state: put in %q: %w", ns, err)
		}
	} else if b = t.tx.Bucket([]byte(ns)); b == nil {
		return nil, nil
	}
	sp := &boltNS{name: ns, b: b, sum: nsSum(ns)}
	if t.writable {
		sp.hint = min(t.s.writeHint[ns], maxWriteHint)
	}
	switch {
	case t.first == nil:
		t.first = sp
	case t.spaces == nil:
		t.spaces = map[string]*boltNS{ns: sp}
	default:
		t.spaces[ns] = sp
	}
	return sp, nil
}

// lookup returns namespace ns if the transaction has looked it up.
func (t *boltTx) lookup(ns string) *boltNS {
	if t.first != nil && t.first.name == ns {
		return t.first
	}
	return t.spaces[ns]
}

// forget drops namespace ns from those looked up.
func (t *boltTx) forget(ns string) {
	if t.first != nil && t.first.name == ns {
		t.first = nil
	}
	delete(t.spaces, ns)
}

// looked returns the names of the namespaces looked up, sorted.
func (t *boltTx) looked() []string {
	names := slices.Collect(maps.Keys(t.spaces))
	if t.first != nil {
		names = append(names, t.first.name)
	}
	slices.Sort(names)
	return names
}

func (t *boltTx) Get(ns string, key []byte) (v []byte, err error) {
	if err := checkRead(t.done, ns); err != nil {
		return nil, err
	}
	if t.over != nil {
		v, found, err := t.overGet(ns, key)
		if found || err != nil {
			return v, err
		}
	}
	if sp := t.lookup(ns); sp != nil {
		if v, ok := sp.buffered(key); ok {
			if v == nil {
				return nil, nil // deleted
			}
			return bytes.Clone(v[valueHeaderSize:]), nil
		}
	}
	err = t.call(func() error {
		sp, err := t.space(ns, false)
		if sp == nil || err != nil {
			return err
		}
		stored := sp.b.Get(key)
		if stored == nil {
			return nil
		}
		value, err := t.open(ns, sp, key, stored)
		// bbolt's slice dies with the transaction. An empty value is a
		// non-nil empty slice, which Clone keeps.
		v = bytes.Clone(value)
		return err
	})
	return v, err
}

// open checks the value stored under key in namespace ns and returns the
// value it holds, which aliases stored.
func (t *boltTx) open(ns string, sp *boltNS, key, stored []byte) ([]byte, error) {
	if t.s.format < 2 {
		return stored, nil // format 1: no header, nothing to check
	}
	value, err := openValue(sp.sum, key, stored)
	if err != nil {
		return nil, t.s.corruptAt(ns, key, err.Error())
	}
	return value, nil
}

func (t *boltTx) Put(ns string, key, value []byte) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opPut, ns); err != nil {
		return err
	}
	if err := checkPut(ns, key, value); err != nil {
		return err
	}
	sp := t.lookup(ns)
	if sp == nil {
		// Create the bucket now, so that Namespaces sees it.
		if err := t.call(func() (err error) { sp, err = t.space(ns, true); return err }); err != nil {
			return err
		}
	}
	// sealValue copies the value: the caller may reuse it, and bbolt keeps
	// a reference until the commit. It never returns nil, which marks a
	// deletion.
	sp.buffer(key, sealInto(sp.cut(valueHeaderSize+len(value)), sp.sum, key, value))
	return nil
}

func (t *boltTx) Delete(ns string, key []byte) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opDelete, ns); err != nil {
		return err
	}
	var sp *boltNS
	if err := t.call(func() (err error) { sp, err = t.space(ns, false); return err }); sp == nil || err != nil {
		return err
	}
	sp.buffer(key, nil)
	return nil
}

func (t *boltTx) DeleteNamespace(ns string) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opDeleteNS, ns); err != nil {
		return err
	}
	t.forget(ns)
	t.markMixed(ns)
	return t.call(func() error {
		trashed, err := deleteBucket(t.tx, []byte(ns)) // bolt_trim.go
		if err != nil {
			return fmt.Errorf("state: delete namespace %q: %w", ns, err)
		}
		if trashed {
			t.s.trim.trash.Store(true)
		}
		return nil
	})
}

func (t *boltTx) Namespaces() ([]string, error) {
	if t.done {
		return nil, errTxDone
	}
	if t.over != nil {
		if err := t.dropOver(); err != nil {
			return nil, err
		}
	}
	names := []string{}
	err := t.call(func() error {
		return t.tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			if !bytes.HasPrefix(name, []byte(reservedNS)) {
				names = append(names, string(name))
			}
			return nil
		})
	})
	return names, err
}

func (t *boltTx) Scan(ns string, prefix []byte, fn func(key, value []byte) error) error {
	return t.ScanFrom(ns, prefix, nil, fn)
}

func (t *boltTx) ScanFrom(ns string, prefix, from []byte, fn func(key, value []byte) error) error {
	if err := checkRead(t.done, ns); err != nil {
		return err
	}
	if t.over != nil {
		if err := t.overScan(ns); err != nil {
			return err
		}
	}
	if sp := t.lookup(ns); sp != nil && sp.pending() {
		t.markMixed(ns)
	}
	if err := t.flush(ns); err != nil {
		return err
	}
	var sp *boltNS
	var c *bbolt.Cursor
	var k, v, prev []byte
	kbuf := make([]byte, 0, scanBufSize)
	vbuf := make([]byte, 0, scanBufSize)
	// step moves the cursor, checks the pair, and copies it out of bbolt's
	// memory, which fn must not see: writing to it would fault.
	step := func(first bool) error {
		if first {
			var err error
			if sp, err = t.space(ns, false); sp == nil || err != nil {
				return err
			}
			c = sp.b.Cursor()
			seek := prefix
			if bytes.Compare(from, seek) > 0 {
				seek = from
			}
			k, v = c.Seek(seek)
		} else {
			prev = k // bbolt's slice, which fn cannot have changed
			k, v = c.Next()
		}
		if k == nil || !bytes.HasPrefix(k, prefix) {
			k = nil
			return nil
		}
		switch {
		case prev != nil && bytes.Compare(k, prev) <= 0:
			// Damaged pages can lead the cursor back; stop rather than
			// visit keys again, or forever.
			return t.s.corruptAt(ns, prev, "the next key, "+describeKey(k)+", is out of order")
		case v == nil:
			return t.s.corruptAt(ns, k, "a namespace inside a namespace")
		}
		value, err := t.open(ns, sp, k, v)
		if err != nil {
			return err
		}
		kbuf = append(kbuf[:0], k...)
		vbuf = append(vbuf[:0], value...)
		return nil
	}
	if err := t.call(func() error { return step(true) }); err != nil || k == nil {
		return err
	}
	t.guard.begin(ns)
	defer t.guard.end()
	for k != nil {
		if err := fn(kbuf, vbuf); err != nil {
			return err
		}
		if err := t.call(func() error { return step(false) }); err != nil {
			return err
		}
	}
	return nil
}
