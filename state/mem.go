package state

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// NewMem returns an empty Store that keeps everything in memory. Its data is
// lost when the process exits. It behaves like the store OpenBolt returns,
// including its limits and errors, so tests can use it in place of a file.
func NewMem() Store {
	return &memStore{spaces: make(map[string]*memSpace)}
}

// memStore is the in-memory Store.
//
// Update is copy-on-write: the transaction records its changes in an overlay
// (memTx.over, memTx.dropped) and reads through it, and only a commit applies
// the overlay to the committed maps. So a failed Update leaves nothing behind,
// and Views running at the same time keep reading committed data.
//
// Locking: wmu serializes Update and Close. mu guards the committed data:
// View holds mu.RLock while fn runs, and the commit holds mu.Lock while it
// applies the overlay. The writer reads committed data without mu, which is
// safe because only the writer (holding wmu) ever changes it.
type memStore struct {
	wmu    sync.Mutex
	mu     sync.RWMutex
	closed bool                 // set under both wmu and mu
	spaces map[string]*memSpace // committed namespaces
}

// memSpace is one committed namespace.
type memSpace struct {
	kv map[string][]byte // values are never nil
	// sorted caches the keys of kv in order. It is built on demand by Scan,
	// possibly by several Views at once (hence atomic), and cleared by a
	// commit that adds or removes keys.
	sorted atomic.Pointer[[]string]
}

func (sp *memSpace) keys() []string {
	if p := sp.sorted.Load(); p != nil {
		return *p
	}
	ks := slices.Sorted(maps.Keys(sp.kv))
	sp.sorted.Store(&ks)
	return ks
}

// memOverlay holds one namespace's changes in an Update.
type memOverlay struct {
	created bool              // a Put in this transaction created or kept the namespace
	writes  map[string][]byte // key → new value, or nil for a deletion
}

func (s *memStore) View(fn func(Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return fmt.Errorf("state: view: %w", ErrClosed)
	}
	tx := &memTx{s: s}
	defer func() { tx.done = true }()
	return fn(tx)
}

func (s *memStore) Update(fn func(Tx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return fmt.Errorf("state: update: %w", ErrClosed)
	}
	tx := &memTx{s: s, writable: true}
	defer func() { tx.done = true }()
	if err := fn(tx); err != nil {
		return err
	}
	s.commit(tx)
	return nil
}

// commit applies tx's overlay to the committed data.
func (s *memStore) commit(tx *memTx) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ns := range tx.dropped {
		delete(s.spaces, ns)
	}
	for ns, ov := range tx.over {
		sp := s.spaces[ns]
		if sp == nil {
			if !ov.created {
				continue // only deletions in a namespace that is gone
			}
			sp = &memSpace{kv: make(map[string][]byte, len(ov.writes))}
			s.spaces[ns] = sp
		}
		changed := false
		for k, v := range ov.writes {
			_, had := sp.kv[k]
			if v == nil {
				if had {
					delete(sp.kv, k)
					changed = true
				}
				continue
			}
			sp.kv[k] = v
			changed = changed || !had
		}
		if changed {
			sp.sorted.Store(nil)
		}
	}
}

func (s *memStore) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.spaces = nil
	return nil
}

// memTx is a transaction of the memory store. In a View, over and dropped
// stay nil and every read goes to the committed data.
type memTx struct {
	s        *memStore
	writable bool
	done     bool
	guard    scanGuard
	over     map[string]*memOverlay // namespace → pending changes
	dropped  map[string]bool        // namespaces deleted in this transaction
}

// committed returns the committed namespace ns as this transaction sees it:
// nil if it does not exist or was deleted in this transaction.
func (t *memTx) committed(ns string) *memSpace {
	if t.dropped[ns] {
		return nil
	}
	return t.s.spaces[ns]
}

// exists reports whether namespace ns exists in this transaction.
func (t *memTx) exists(ns string) bool {
	if ov := t.over[ns]; ov != nil && ov.created {
		return true
	}
	return t.committed(ns) != nil
}

// overlay returns the overlay for ns, creating it.
func (t *memTx) overlay(ns string) *memOverlay {
	ov := t.over[ns]
	if ov == nil {
		if t.over == nil {
			t.over = make(map[string]*memOverlay)
		}
		ov = &memOverlay{writes: make(map[string][]byte)}
		t.over[ns] = ov
	}
	return ov
}

func (t *memTx) Get(ns string, key []byte) ([]byte, error) {
	if err := checkRead(t.done, ns); err != nil {
		return nil, err
	}
	if ov := t.over[ns]; ov != nil {
		if v, ok := ov.writes[string(key)]; ok {
			return bytes.Clone(v), nil // nil for a deletion
		}
	}
	if sp := t.committed(ns); sp != nil {
		return bytes.Clone(sp.kv[string(key)]), nil
	}
	return nil, nil
}

func (t *memTx) Put(ns string, key, value []byte) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opPut, ns); err != nil {
		return err
	}
	if err := checkPut(ns, key, value); err != nil {
		return err
	}
	ov := t.overlay(ns)
	ov.created = true
	// Never store nil: nil marks a deletion in the overlay.
	ov.writes[string(key)] = append(make([]byte, 0, len(value)), value...)
	return nil
}

func (t *memTx) Delete(ns string, key []byte) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opDelete, ns); err != nil {
		return err
	}
	if !t.exists(ns) {
		return nil
	}
	t.overlay(ns).writes[string(key)] = nil
	return nil
}

func (t *memTx) DeleteNamespace(ns string) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opDeleteNS, ns); err != nil {
		return err
	}
	if t.dropped == nil {
		t.dropped = make(map[string]bool)
	}
	t.dropped[ns] = true
	delete(t.over, ns)
	return nil
}

func (t *memTx) Namespaces() ([]string, error) {
	if t.done {
		return nil, errTxDone
	}
	names := make([]string, 0, len(t.s.spaces)+len(t.over))
	for ns := range t.s.spaces {
		if !t.dropped[ns] {
			names = append(names, ns)
		}
	}
	for ns, ov := range t.over {
		if ov.created && t.committed(ns) == nil {
			names = append(names, ns)
		}
	}
	slices.Sort(names)
	return names, nil
}

func (t *memTx) Scan(ns string, prefix []byte, fn func(key, value []byte) error) error {
	return t.ScanFrom(ns, prefix, nil, fn)
}

func (t *memTx) ScanFrom(ns string, prefix, from []byte, fn func(key, value []byte) error) error {
	if err := checkRead(t.done, ns); err != nil {
		return err
	}
	if !t.exists(ns) {
		return nil
	}
	p := string(prefix)
	start := p
	if string(from) > start {
		start = string(from)
	}

	// Committed keys with the prefix: a range of the sorted keys.
	var ck []string
	sp := t.committed(ns)
	if sp != nil {
		all := sp.keys()
		lo := sort.SearchStrings(all, start)
		hi := lo
		for hi < len(all) && strings.HasPrefix(all[hi], p) {
			hi++
		}
		ck = all[lo:hi]
	}

	// Keys changed in this transaction with the prefix, sorted.
	var ok []string
	var writes map[string][]byte
	if ov := t.over[ns]; ov != nil {
		writes = ov.writes
		for k := range writes {
			if strings.HasPrefix(k, p) && k >= start {
				ok = append(ok, k)
			}
		}
		slices.Sort(ok)
	}

	t.guard.begin(ns)
	defer t.guard.end()
	kbuf := make([]byte, 0, scanBufSize)
	vbuf := make([]byte, 0, scanBufSize)
	// Merge the two sorted lists. On equal keys the overlay wins, and a nil
	// overlay value is a deletion to skip.
	for i, j := 0, 0; i < len(ck) || j < len(ok); {
		var k string
		var v []byte
		switch {
		case j == len(ok) || (i < len(ck) && ck[i] < ok[j]):
			k, v = ck[i], sp.kv[ck[i]]
			i++
		default:
			if i < len(ck) && ck[i] == ok[j] {
				i++
			}
			k, v = ok[j], writes[ok[j]]
			j++
			if v == nil {
				continue
			}
		}
		kbuf = append(kbuf[:0], k...)
		vbuf = append(vbuf[:0], v...)
		if err := fn(kbuf, vbuf); err != nil {
			return err
		}
	}
	return nil
}
