package exec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// keyedState is the value state of one PTF call by partition key: the live
// keys, the warm tier of encoded records and the spill area (cache.go), what
// the store holds, and the flush of it all at a checkpoint. The PTF operator
// embeds it and serves ctx.state through it (ptf_host.go); each parallel
// worker has its own. List and map state go through the store directly
// (views.go).
type keyedState struct {
	uid, fn string
	decls   []ptf.StateDecl
	codec   ptf.StateCodec // nil for a function without state
	ex      *Execution

	cache     map[string]*keyState  // the live keys
	warm      map[string]*warmEntry // evicted keys' state, encoded in memory
	warmBytes int64
	spilled   map[string]bool // keys with values in the spill area
	spills    int64           // keys evicted so far
	stored    bool            // the store may hold state of this uid
	// evictErr is an eviction that failed; the call that caused it reports it.
	evictErr error
	// loading: timers are being read inside a store transaction, so no
	// spill (which writes) may happen.
	loading bool
	scratch []byte // the encoded key of the row being looked up
}

func newKeyedState(n *PtfNode, ex *Execution) keyedState {
	return keyedState{uid: n.Uid, fn: n.Fn, decls: n.Def.State, ex: ex, cache: map[string]*keyState{}, spilled: map[string]bool{}}
}

// lookup returns the state of a partition key, making it live (from the
// warm tier, or new); cur, the key being processed, is never evicted.
func (s *keyedState) lookup(key []any, cur *keyState) *keyState {
	enc := keycodec.Encode(key)
	if ks := s.hit(enc); ks != nil {
		return ks
	}
	return s.add(key, enc, cur)
}

// lookupRow is lookup of the partition key of a row: a key already live
// costs no allocation.
func (s *keyedState) lookupRow(r types.Row, cols []int, cur *keyState) *keyState {
	s.scratch = keycodec.AppendPick(s.scratch[:0], r, cols)
	if ks := s.hit(s.scratch); ks != nil {
		return ks
	}
	return s.add(keycodec.Pick(r, cols), bytes.Clone(s.scratch), cur)
}

// hit returns the live state of an encoded key, or nil.
func (s *keyedState) hit(enc []byte) *keyState {
	ks, ok := s.cache[string(enc)]
	if !ok {
		return nil
	}
	ks.ref = true
	if ks.warm {
		s.promote(ks)
	}
	return ks
}

// add makes the state of a key that is not live: from the warm tier, or
// new.
func (s *keyedState) add(key []any, enc []byte, cur *keyState) *keyState {
	n := len(s.decls)
	ks := &keyState{key: key, enc: enc, vals: make([]any, n), loaded: make([]bool, n), cleared: make([]bool, n), touched: make([]int64, n), ref: true}
	s.cache[string(enc)] = ks
	if len(s.warm) > 0 {
		s.promote(ks)
	}
	if err := s.maybeEvict(ks, cur); err != nil {
		s.evictErr = err
	}
	return ks
}

// storeHasState reports whether the store holds value state of the call's
// uid. An error of the store (a damaged file) is the statement's: taken
// for "no state", it would let the next checkpoint overwrite the state.
func (s *keyedState) storeHasState() (bool, error) {
	found := false
	err := s.ex.Store.View(func(tx state.Tx) error {
		for _, sd := range s.decls {
			err := tx.Scan(stateNamespace(s.uid, sd.Name), nil, func(k, v []byte) error {
				found = true
				return errStopScan
			})
			if err != nil && !errors.Is(err, errStopScan) {
				return err
			}
			if found {
				return nil
			}
		}
		return nil
	})
	return found, err
}

// flushValues writes the changed value state (live and warm) to tx and moves
// the spilled values into place.
func (s *keyedState) flushValues(tx state.Tx) error {
	if s.codec == nil {
		return nil
	}
	for _, ks := range s.cache {
		if !ks.dirty {
			continue
		}
		for i, sd := range s.decls {
			if !ks.loaded[i] {
				continue
			}
			ns := stateNamespace(s.uid, sd.Name)
			if ks.vals[i] == nil {
				if err := tx.Delete(ns, ks.enc); err != nil {
					return err
				}
				continue
			}
			b, err := s.codec.EncodeState(i, ks.vals[i])
			if err != nil {
				return fmt.Errorf("%s: state %q of key (%s): %w", s.fn, sd.Name, formatFields(ks.key), err)
			}
			// Each value is stored after the processing time it was last
			// written at, so that TTL holds across runs.
			b = append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(b)), uint64(ks.touched[i])), b...)
			if err := tx.Put(ns, ks.enc, b); err != nil {
				return err
			}
			s.stored = true // a key evicted clean later reads it back
		}
		ks.dirty = false
	}
	if err := s.flushWarm(tx); err != nil {
		return err
	}
	return s.flushSpill(tx)
}
