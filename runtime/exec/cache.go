package exec

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/state"
)

// The value-state cache has three tiers. Live state objects (the
// function's own JavaScript objects) stay in memory per partition key, up to
// SET 'state.cache-size' keys: the hot keys, used with no encoding per row.
// Past that, the keys not used since the last look (a second chance, as the
// CLOCK algorithm gives) are encoded into compact records kept in memory,
// the warm tier (PtfOp.warm): tens of bytes a key instead of about a
// kilobyte of live objects. A key used again is decoded back. Past
// SET 'state.cache-bytes' of records, the warm tier goes to the store, in a spill
// area apart from the checkpointed state: spilled values are newer than the
// last checkpoint, and a restart after a crash must not see them. The next
// checkpoint writes the changed warm records and moves the spilled ones into
// place.

// SetCacheSize is the number of partition keys whose value state stays
// live in memory per PTF call.
const SetCacheSize = "state.cache-size"

// defaultCacheSize keeps the live objects of 20,000 keys (about 1 KB each
// for small state); the rest wait encoded in the warm tier.
const defaultCacheSize = 20_000

// SetCacheBytes is how many bytes of encoded state a call keeps in memory
// (the warm tier) before it spills them to the store.
const SetCacheBytes = "state.cache-bytes"

// defaultCacheBytes bounds the warm tier of a call.
const defaultCacheBytes = 256 << 20

// warmEntry is the value state of a key evicted from the live cache.
type warmEntry struct {
	// vals holds, per state entry, nil (not loaded: the store has it, if
	// anything), an empty slice (cleared) or the 8-byte write time and
	// the encoding, as the store keeps it.
	vals  [][]byte
	dirty bool // changed since the last checkpoint
}

func (w *warmEntry) size() int64 {
	n := int64(64 + 24*len(w.vals))
	for _, b := range w.vals {
		n += int64(len(b))
	}
	return n
}

// maybeEvict moves a quarter of the live keys to the warm tier when the
// cache holds more than allowed: keys not used since the last eviction
// first. The key being processed and the one just added stay.
func (s *keyedState) maybeEvict(keep, cur *keyState) error {
	limit := s.ex.CacheSize
	if limit <= 0 || len(s.cache) <= limit || s.codec == nil || s.loading {
		return nil
	}
	batch := max(limit/4, 1)
	var victims, second []*keyState
	for _, ks := range s.cache {
		if ks == cur || ks == keep || ks.warm {
			continue
		}
		if ks.ref {
			ks.ref = false
			if len(second) < batch {
				second = append(second, ks)
			}
			continue
		}
		victims = append(victims, ks)
		if len(victims) == batch {
			break
		}
	}
	for i := 0; len(victims) < batch && i < len(second); i++ {
		victims = append(victims, second[i])
	}
	if s.warm == nil {
		s.warm = map[string]*warmEntry{}
	}
	for _, ks := range victims {
		if ks.dirty {
			w := &warmEntry{vals: make([][]byte, len(ks.vals)), dirty: true}
			for i, sd := range s.decls {
				if !ks.loaded[i] || sd.Kind != ptf.ValueState {
					continue
				}
				b := []byte{} // cleared since the checkpoint
				if ks.vals[i] != nil {
					enc, err := s.codec.EncodeState(i, ks.vals[i])
					if err != nil {
						return fmt.Errorf("%s: state %q of key (%s): %w", s.fn, sd.Name, formatFields(ks.key), err)
					}
					b = append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(enc)), uint64(ks.touched[i])), enc...)
				}
				w.vals[i] = b
			}
			s.warm[string(ks.enc)] = w
			s.warmBytes += w.size()
		}
		for i := range ks.vals {
			ks.vals[i], ks.loaded[i] = nil, false
		}
		ks.dirty = false
		if len(ks.named) == 0 && len(ks.unnamed) == 0 {
			delete(s.cache, string(ks.enc)) // timers keep their key state
		} else {
			ks.warm = true
		}
	}
	s.spills += int64(len(victims))
	if s.warmBytes > s.ex.CacheBytes {
		return s.spillWarm()
	}
	return nil
}

// promote decodes the warm record of a key back into its live state.
func (s *keyedState) promote(ks *keyState) {
	ks.warm = false
	w := s.warm[string(ks.enc)]
	if w == nil {
		return
	}
	delete(s.warm, string(ks.enc))
	s.warmBytes -= w.size()
	for i, b := range w.vals {
		if b == nil || ks.loaded[i] {
			continue
		}
		if len(b) < 8 {
			ks.vals[i], ks.loaded[i] = nil, true
			continue
		}
		v, err := s.codec.DecodeState(i, b[8:])
		if err != nil {
			s.evictErr = fmt.Errorf("%s: state %q of key (%s): %w", s.fn, s.decls[i].Name, formatFields(ks.key), err)
			continue
		}
		// The write time goes back too: State applies the TTL to it.
		ks.vals[i], ks.loaded[i], ks.touched[i] = v, true, int64(binary.BigEndian.Uint64(b))
	}
	if w.dirty {
		ks.dirty = true
	}
}

// spillWarm writes the changed warm records to the spill area and empties
// the warm tier.
func (s *keyedState) spillWarm() error {
	err := s.ex.Store.Update(func(tx state.Tx) error {
		for enc, w := range s.warm {
			if !w.dirty {
				continue
			}
			for i, b := range w.vals {
				if b == nil {
					continue
				}
				if err := tx.Put(spillNamespace(s.uid, s.decls[i].Name), []byte(enc), b); err != nil {
					return err
				}
				s.spilled[enc] = true
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spilling state: %w", err)
	}
	s.warm, s.warmBytes = map[string]*warmEntry{}, 0
	s.stored = true
	return nil
}

// flushWarm writes the changed warm records to the checkpointed state; they
// stay in memory, unchanged since.
func (s *keyedState) flushWarm(tx state.Tx) error {
	for enc, w := range s.warm {
		if !w.dirty {
			continue
		}
		for i, b := range w.vals {
			if b == nil {
				continue
			}
			ns := stateNamespace(s.uid, s.decls[i].Name)
			var err error
			if len(b) == 0 {
				err = tx.Delete(ns, []byte(enc))
			} else {
				err = tx.Put(ns, []byte(enc), b)
			}
			if err != nil {
				return err
			}
		}
		w.dirty = false
		s.stored = true
	}
	return nil
}

// readStored reads entry i of a key from the spill area, else from the
// checkpointed state. A tombstone reads as absent.
func (s *keyedState) readStored(tx state.Tx, i int, enc []byte) ([]byte, error) {
	name := s.decls[i].Name
	if s.spilled[string(enc)] {
		b, err := tx.Get(spillNamespace(s.uid, name), enc)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if len(b) == 0 {
				return nil, nil
			}
			return b, nil
		}
	}
	return tx.Get(stateNamespace(s.uid, name), enc)
}

// flushSpill moves spilled values into the checkpointed state: a key that
// is live again was written from memory already, so its spill is dropped.
func (s *keyedState) flushSpill(tx state.Tx) error {
	if len(s.spilled) == 0 {
		return nil
	}
	for enc := range s.spilled {
		live, warm := s.cache[enc], s.warm[enc]
		for i, sd := range s.decls {
			if sd.Kind != ptf.ValueState {
				continue
			}
			sns, ns := spillNamespace(s.uid, sd.Name), stateNamespace(s.uid, sd.Name)
			b, err := tx.Get(sns, []byte(enc))
			if err != nil {
				return err
			}
			if b == nil {
				continue
			}
			if err := tx.Delete(sns, []byte(enc)); err != nil {
				return err
			}
			if live != nil && live.loaded[i] || warm != nil && warm.vals[i] != nil {
				continue // written from memory already
			}
			if len(b) == 0 {
				err = tx.Delete(ns, []byte(enc))
			} else {
				err = tx.Put(ns, []byte(enc), b)
			}
			if err != nil {
				return err
			}
		}
	}
	s.spilled = map[string]bool{}
	return nil
}

// clearSpill drops what a crashed run spilled: it is newer than the last
// checkpoint this run restarts from.
func clearSpill(store state.Store, uid string) error {
	return store.Update(func(tx state.Tx) error {
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, ns := range names {
			if strings.HasPrefix(ns, "spill/"+uid+"/") {
				if err := tx.DeleteNamespace(ns); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
