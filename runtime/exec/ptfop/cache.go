package ptfop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/state"
)

// The value-state cache has three tiers. Live state objects (the
// function's own JavaScript objects) stay in memory per partition key, up to
// SET 'state.cache-size' keys: the hot keys, used with no encoding per row.
// Past that, the keys not used since the eviction's hand last passed (a
// second chance, as the CLOCK algorithm gives) are encoded into compact
// records kept in memory, the warm tier: tens of bytes a key instead of
// about a kilobyte of live objects, in the same map as the live keys
// (keyedState.keys), so a key used again is one lookup and a decode away.
// Past
// SET 'state.cache-bytes' of records, the changed warm records go to the
// store as a generation of their own that the next checkpoint lists
// (keyed_store.go): spilled values are newer than the last checkpoint, and
// a restart after a crash must not see them.

// A warm record (keySlot.rec) holds the value state of a key evicted from
// the live cache: a flags byte (warmDirty: changed since the last
// checkpoint; warmNoted: in keyedState.written already; warmListed: taken
// by the checkpoint being written), then per state entry a tag (warmAbsent: not loaded, the
// store has it, if anything; warmCleared; warmValue) and, for a value, its
// length as a uvarint and its stored form (the 8-byte write time and the
// encoding).
const (
	warmDirty = 1 << iota
	warmNoted
	warmListed
)

const (
	warmAbsent byte = iota
	warmCleared
	warmValue
)

// warmSize is what a warm record costs in memory, with its map entry.
func warmSize(enc, rec []byte) int64 { return int64(64 + len(enc) + len(rec)) }

// warmEntry returns entry i of a warm record in its stored form (empty:
// cleared); ok is false for an entry not loaded.
func warmEntry(rec []byte, i int) (b []byte, ok bool) {
	p := 1
	for j := 0; p < len(rec); j++ {
		tag := rec[p]
		p++
		var v []byte
		if tag == warmValue {
			n, w := binary.Uvarint(rec[p:])
			p += w
			v = rec[p : p+int(n)]
			p += int(n)
		}
		if j == i {
			switch tag {
			case warmAbsent:
				return nil, false
			case warmCleared:
				return []byte{}, true
			}
			return v, true
		}
	}
	return nil, false
}

// warmRecord encodes the loaded value state of a live key, in a slice of
// its own of the record's size: made in a scratch buffer first, as a
// record appended to nil grew three times (flags, write time, value).
func (s *keyedState) warmRecord(ks *keyState) ([]byte, error) {
	rec, err := s.appendWarmRecord(s.recBuf[:0], ks)
	if err != nil {
		return nil, err
	}
	s.recBuf = rec
	return bytes.Clone(rec), nil
}

// appendWarmRecord appends the warm record of a live key to rec: a
// checkpoint writes a live key's changes from one, as it writes a warm
// key's.
func (s *keyedState) appendWarmRecord(rec []byte, ks *keyState) ([]byte, error) {
	flags := byte(0)
	if ks.dirty {
		flags |= warmDirty
	}
	if ks.noted {
		flags |= warmNoted
	}
	rec = append(rec, flags)
	for i, sd := range s.decls {
		e := &ks.ents[i]
		switch {
		case !e.loaded || sd.Kind != ptf.ValueState:
			rec = append(rec, warmAbsent)
		case e.val == nil:
			rec = append(rec, warmCleared) // cleared since the checkpoint
		default:
			enc, err := s.codec.AppendState(s.encBuf[:0], i, e.val)
			if err != nil {
				return nil, fmt.Errorf("%s: state %q of key (%s): %w", s.fn, sd.Name, exec.FormatKey(ks.key), err)
			}
			s.encBuf = enc
			rec = append(rec, warmValue)
			rec = binary.AppendUvarint(rec, uint64(8+len(enc)))
			rec = binary.BigEndian.AppendUint64(rec, uint64(s.writeTime(e)))
			rec = append(rec, enc...)
		}
	}
	return rec, nil
}

// maybeEvict moves a quarter of the live keys to the warm tier when the
// cache holds more than allowed, choosing as the CLOCK algorithm does: the
// hand goes round the live keys, and a key used since it last passed gets
// a second chance. The key being processed (cur) and the one just made
// live (keep) stay.
func (s *keyedState) maybeEvict(keep, cur *keyState) error {
	limit := s.ex.Opts.CacheSize
	if limit <= 0 || len(s.live) <= limit || s.codec == nil || s.loading {
		return nil
	}
	batch := max(limit/4, 1)
	for evicted, steps := 0, 0; evicted < batch && steps < 3*len(s.live); steps++ {
		if s.hand >= len(s.live) {
			s.hand = 0
		}
		ks := s.live[s.hand]
		if ks == cur || ks == keep {
			s.hand++
			continue
		}
		if ks.ref {
			ks.ref = false
			s.hand++
			continue
		}
		if err := s.evict(ks); err != nil {
			return err
		}
		evicted++ // the hand now points at the key moved into its place
	}
	if s.warmBytes > s.ex.Opts.CacheBytes {
		return s.spillWarm()
	}
	return nil
}

// evict takes a live key out of the ring into a warm record, and a key
// with timers keeps its keyState, marked warm. A clean key (the store has
// its values since the last checkpoint) becomes a warm record too, not
// marked dirty: read again, it is decoded from memory, not read from the
// store (a transaction, a look into the writes of a checkpoint still
// committing, a bbolt lookup): B with checkpoints every 100k rows ran
// 1.17× the time of none that way, 1.10× with this. A clean key with
// nothing loaded is dropped. A changed one goes into dirtyWarm, for the
// next periodic flush.
func (s *keyedState) evict(ks *keyState) error {
	var rec []byte
	if ks.dirty || ks.anyLoaded() {
		var err error
		if rec, err = s.warmRecord(ks); err != nil {
			return err
		}
		s.warmBytes += warmSize(ks.enc, rec)
	}
	last := len(s.live) - 1
	s.live[ks.slot], s.live[last].slot = s.live[last], ks.slot
	s.live[last] = nil
	s.live = s.live[:last]
	for i := range ks.ents {
		ks.ents[i] = stateEntry{}
	}
	ks.dirty = false
	k := keyString(ks.enc)
	switch {
	case len(ks.named) > 0 || len(ks.unnamed) > 0: // timers keep their key state
		ks.warm = true
		s.keys[k] = keySlot{ks: ks, rec: rec}
	case rec != nil:
		s.keys[k] = keySlot{rec: rec}
	default:
		delete(s.keys, k)
	}
	if rec != nil && rec[0]&warmDirty != 0 && !s.dirtyAll {
		if s.ex.Checkpoints == nil || s.ex.Uncheckpointable != "" {
			// No periodic checkpoint comes (no state file, or an operator
			// outside checkpoints): the final flush walks every key, and
			// the list would only take memory.
			s.dirtyWarm, s.dirtyAll = nil, true
		} else if len(s.dirtyWarm) >= max(len(s.keys), 1024) {
			// Many evictions and no checkpoint (interval-rows 0, or no
			// state file): the flush walks the keys instead.
			s.dirtyWarm, s.dirtyAll = nil, true
		} else {
			s.dirtyWarm = append(s.dirtyWarm, warmKey{k: k, rec: rec})
		}
	}
	return nil
}

// spillWarm writes the changed warm records to the store, in key order,
// as a generation that the next checkpoint lists, and empties the warm
// tier.
func (s *keyedState) spillWarm() error {
	var dirty []string
	for k, slot := range s.keys {
		if slot.rec != nil && slot.rec[0]&warmDirty != 0 {
			dirty = append(dirty, k)
		}
	}
	dirty = sortDedup(dirty)
	if len(dirty) > 0 && s.vals != nil {
		s.vals.mu.Lock()
		s.vals.settle(nil)
		err := s.ex.Store.Update(func(tx state.Tx) error {
			runs := s.beginRuns(tx)
			for _, k := range dirty {
				if err := s.flushWarm(runs, k, s.keys[k].rec, true); err != nil {
					return err
				}
			}
			return runs.close()
		})
		s.vals.mu.Unlock()
		if err != nil {
			return fmt.Errorf("spilling state: %w", err)
		}
	}
	for k, slot := range s.keys {
		switch {
		case slot.rec == nil:
		case slot.ks == nil:
			delete(s.keys, k)
		default:
			s.keys[k] = keySlot{ks: slot.ks}
		}
	}
	s.warmBytes, s.spilled = 0, true
	return nil
}

// flushWarm writes the changed warm record rec of key k to runs; it
// stays in memory, unchanged since. note records the key in written: a
// statement's final flush, after which every key may be in the store
// (release), need not.
func (s *keyedState) flushWarm(runs *valueRuns, k string, rec []byte, note bool) error {
	if err := s.writeRecord(runs, k, rec); err != nil {
		return err
	}
	s.markFlushed(k, rec, note)
	return nil
}

// writeRecord writes the entries of the warm record rec of key k to
// runs. It reads the record's entries, never its flags, which may change
// meanwhile (flushValues may run it on the commit's goroutine).
func (s *keyedState) writeRecord(runs *valueRuns, k string, rec []byte) error {
	key := stringBytes(k)
	for i := range s.decls {
		b, ok := warmEntry(rec, i)
		if !ok {
			continue
		}
		if len(b) == 0 {
			b = nil // cleared
		}
		if err := runs.put(i, key, b); err != nil {
			return err
		}
	}
	return nil
}

// markFlushed marks the record rec of key k written: unchanged since the
// checkpoint, and with note recorded in written.
func (s *keyedState) markFlushed(k string, rec []byte, note bool) {
	rec[0] &^= warmDirty | warmListed // the slice shares the map's record
	if note && rec[0]&warmNoted == 0 {
		s.noteWritten(stringBytes(k))
		rec[0] |= warmNoted
	}
}

// clearSpill drops a spill area (namespaces spill/UID/NAME), which a
// state file of an earlier build may hold after a crash: it is newer than
// the last checkpoint this run restarts from.
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

// anyLoaded reports whether a key holds a value-state entry in memory.
func (ks *keyState) anyLoaded() bool {
	for i := range ks.ents {
		if ks.ents[i].loaded {
			return true
		}
	}
	return false
}
