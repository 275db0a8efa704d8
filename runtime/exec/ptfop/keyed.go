package ptfop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// keyedState is the value state of one PTF call by partition key: the live
// keys and the warm tier of encoded records (cache.go), what the store
// holds (keyed_store.go), and the flush of the changes at a checkpoint. The PTF operator
// embeds it and serves ctx.state through it (host.go); each parallel
// worker has its own. List and map state go through the store directly
// (views.go).
type keyedState struct {
	uid, fn string
	decls   []ptf.StateDecl
	nss     []string       // the store namespace of each declared entry (stateNamespace)
	codec   ptf.StateCodec // nil for a function without state
	ex      *exec.Execution

	// keys holds every partition key the call has in memory, by its
	// encoding: live, or warm (cache.go). One map for both tiers keeps a
	// key's way from warm to live at one lookup.
	keys map[string]keySlot
	// live are the live keys, the ring the eviction's clock hand goes
	// round (keyState.slot is a key's place in it).
	live      []*keyState
	hand      int
	warmBytes int64 // bytes of the warm records
	// dirtyWarm are the keys evicted changed since the last periodic
	// flush, with their warm records, which the flush writes: a walk of
	// every key in memory (100k) cost a checkpoint more than the writes,
	// and looking each key up in keys cost a tenth of a flush. A record
	// that is no longer its key's (the key went live again, or its record
	// was spilled) is not marked warmDirty any more, and the flush skips
	// it. Past as many entries as keys, dirtyAll replaces it: the flush
	// walks them.
	dirtyWarm []warmKey
	dirtyAll  bool
	// vals are the tables of the value state in the store (keyed_store.go),
	// shared by the call's workers.
	vals   *valueTables
	sorter dirtySorter // a checkpoint's changed keys
	// stored: the store held value state of this uid when the call
	// began (or, with no filter, may hold some now). Keys written since
	// go into written, so that a key new to this run is not looked up in
	// the store.
	stored  bool
	written *keyFilter
	// spilled: spillWarm wrote keys to the store and dropped them from
	// memory, which then holds only some of the keys.
	spilled bool
	// evictErr is an eviction that failed; the call that caused it reports it.
	evictErr error
	// loading: timers are being read inside a store transaction, so no
	// spill (which writes) may happen.
	loading bool
	scratch []byte // the encoded key of the row being looked up
	// keyCache finds keys of one string column by the string's identity
	// (keycache.go).
	keyCache strKeyCache
	encBuf   []byte // a value being encoded (appendWarmRecord)
	recBuf   []byte // a warm record being made (warmRecord)
}

// warmKey is an entry of keyedState.dirtyWarm.
type warmKey struct {
	k   string
	rec []byte
}

// keySlot is a key's entry in keyedState.keys. A live key has its
// keyState; a warm key has its values encoded in rec (warmRecord), and a
// keyState only when it holds timers (then marked warm).
type keySlot struct {
	ks  *keyState
	rec []byte
}

func newKeyedState(n *Node, ex *exec.Execution) keyedState {
	nss := make([]string, len(n.Def.State))
	for i, sd := range n.Def.State {
		nss[i] = exec.StateNamespace(n.UID, sd.Name)
	}
	return keyedState{uid: n.UID, fn: n.Fn, decls: n.Def.State, nss: nss, ex: ex, keys: map[string]keySlot{}}
}

// release drops the keys held in memory once a final checkpoint has
// written them: the statement is over, and the store's commit of a
// large state needs the memory they hold (B with 1M keys: a third of
// its peak). A key looked up after it is read back from the store.
func (s *keyedState) release() {
	s.keys, s.live, s.hand, s.warmBytes = map[string]keySlot{}, nil, 0, 0
	s.keyCache = strKeyCache{}
	s.dirtyWarm, s.dirtyAll = nil, false
	s.stored = true
}

// keyString is the map key of an encoded key, sharing its bytes: enc is
// never changed once it names a keyState.
func keyString(enc []byte) string {
	if len(enc) == 0 {
		return ""
	}
	return unsafe.String(&enc[0], len(enc))
}

// stringBytes is the bytes of a map key without a copy, for the store's
// Put, Get and Delete, which copy what they keep.
func stringBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// lookup returns the state of a partition key, making it live (from the
// warm tier, or new); cur, the key being processed, is never evicted.
func (s *keyedState) lookup(key []any, cur *keyState) *keyState {
	enc := keycodec.Encode(key)
	slot, ok := s.keys[string(enc)]
	if ok && slot.ks != nil && !slot.ks.warm {
		slot.ks.ref = true
		return slot.ks
	}
	if slot.ks == nil {
		slot.ks = newKeyState(key, enc, len(s.decls))
	}
	return s.add(slot, cur)
}

// lookupRow is lookup of the partition key of a row: a key already live
// costs no allocation.
func (s *keyedState) lookupRow(r types.Row, cols []int, cur *keyState) *keyState {
	if len(cols) == 1 {
		return s.lookupOne(r, cols[0], cols, cur) // keycache.go
	}
	return s.lookupRowEnc(r, cols, cur)
}

// lookupRowEnc is lookupRow by the key's encoding.
func (s *keyedState) lookupRowEnc(r types.Row, cols []int, cur *keyState) *keyState {
	s.scratch = keycodec.AppendPick(s.scratch[:0], r, cols)
	return s.lookupEnc(s.scratch, r, cols, cur)
}

// lookupEnc is lookupRow with the key already encoded (enc, which it
// copies if it keeps it).
func (s *keyedState) lookupEnc(enc []byte, r types.Row, cols []int, cur *keyState) *keyState {
	slot, ok := s.keys[string(enc)]
	if ok && slot.ks != nil && !slot.ks.warm {
		slot.ks.ref = true
		return slot.ks
	}
	if slot.ks == nil {
		// A key of one column (most are) keeps its value in its keyState.
		ks := newKeyState(nil, bytes.Clone(enc), len(s.decls))
		if len(cols) == 1 {
			ks.oneKey[0] = r.Fields[cols[0]]
			ks.key = ks.oneKey[:]
		} else {
			ks.key = keycodec.Pick(r, cols)
		}
		slot.ks = ks
	}
	return s.add(slot, cur)
}

// add makes the key of slot.ks live: a warm one (slot, from keys) is
// decoded, an unknown one starts empty (its values, if any, in the
// store).
func (s *keyedState) add(slot keySlot, cur *keyState) *keyState {
	ks := slot.ks
	s.makeLive(ks, slot.rec)
	if err := s.maybeEvict(ks, cur); err != nil {
		s.evictErr = err
	}
	return ks
}

func newKeyState(key []any, enc []byte, n int) *keyState {
	ks := &keyState{key: key, enc: enc}
	if n <= len(ks.one) {
		ks.ents = ks.one[:n]
	} else {
		ks.ents = make([]stateEntry, n)
	}
	return ks
}

// makeLive puts ks into the live ring with the values of its warm record
// rec (nil: none in memory).
func (s *keyedState) makeLive(ks *keyState, rec []byte) {
	ks.warm, ks.ref = false, true
	ks.slot = len(s.live)
	s.live = append(s.live, ks)
	s.keys[keyString(ks.enc)] = keySlot{ks: ks}
	if rec == nil {
		return
	}
	s.warmBytes -= warmSize(ks.enc, rec)
	ks.dirty, ks.noted = rec[0]&warmDirty != 0, rec[0]&warmNoted != 0
	rec[0] &^= warmDirty // the key's state is ks now: dirtyWarm may still hold rec
	for i := range s.decls {
		b, ok := warmEntry(rec, i)
		if !ok || ks.ents[i].loaded {
			continue
		}
		if len(b) < 8 {
			ks.ents[i].val, ks.ents[i].loaded = nil, true
			continue
		}
		v, err := s.codec.DecodeState(i, b[8:])
		if err != nil {
			s.evictErr = fmt.Errorf("%s: state %q of key (%s): %w", s.fn, s.decls[i].Name, exec.FormatKey(ks.key), err)
			continue
		}
		// The write time goes back too: State applies the TTL to it.
		e := &ks.ents[i]
		e.val, e.loaded, e.touched = v, true, int64(binary.BigEndian.Uint64(b))
	}
}

// promote makes a warm key that holds timers live again (a timer of it
// fires).
func (s *keyedState) promote(ks *keyState) {
	if !ks.warm {
		return
	}
	s.makeLive(ks, s.keys[keyString(ks.enc)].rec)
	if err := s.maybeEvict(ks, nil); err != nil {
		s.evictErr = err
	}
}

// mayBeStored reports whether the store may hold value state of an
// encoded key that is not in memory.
func (s *keyedState) mayBeStored(enc []byte) bool {
	return s.stored || s.written.has(enc)
}

// noteWritten records that the store now holds a value of a key.
func (s *keyedState) noteWritten(enc []byte) {
	if s.written == nil {
		s.written = newKeyFilter()
	}
	s.written.add(enc)
}

// keyFilter is a Bloom filter of encoded keys: has is never false for a
// key added, and rarely true for another (an extra store read). A key's
// three bits are in one block of 512 bits, one cache line: with the bits
// anywhere, each key written at a checkpoint, and each new key looked
// up, cost three cache misses.
type keyFilter struct {
	seed maphash.Seed
	bits []uint64
}

const (
	keyFilterBits  = 1 << 22 // 512 KiB: about 0.3 % false hits at 200k keys, 3 % at 500k
	keyFilterBlock = 512
)

func newKeyFilter() *keyFilter {
	return &keyFilter{seed: maphash.MakeSeed(), bits: make([]uint64, keyFilterBits/64)}
}

// probes are the filter's three bit positions of a key: a block from the
// hash's top bits, three bits in it from its low ones.
func (f *keyFilter) probes(enc []byte) [3]uint64 {
	h := maphash.Bytes(f.seed, enc)
	block := (h >> 40) % (keyFilterBits / keyFilterBlock) * keyFilterBlock
	return [3]uint64{block + h&511, block + (h>>9)&511, block + (h>>18)&511}
}

func (f *keyFilter) add(enc []byte) {
	for _, p := range f.probes(enc) {
		f.bits[p/64] |= 1 << (p % 64)
	}
}

func (f *keyFilter) has(enc []byte) bool {
	if f == nil {
		return false
	}
	for _, p := range f.probes(enc) {
		if f.bits[p/64]&(1<<(p%64)) == 0 {
			return false
		}
	}
	return true
}

// flushValues writes the changed value state (live and warm) to tx, in key
// order, as one packed generation per entry (keyed_store.go), and lists
// it with the generations spilled since the last checkpoint. The changed
// keys are the live ones marked dirty and the warm ones of dirtyWarm (or
// of a walk of every key, when dirtyAll); final (the statement's last
// checkpoint) walks every key. When a snapshot is due (snapshotDue), it
// writes every key in memory, changed or not, in place of the tables'
// generations.
//
// What must be taken from memory while the function's objects stand
// still is taken at once: the live keys' records are encoded, and every
// key taken is marked written. Sorting the keys and writing them, most of
// a periodic checkpoint's time, is deferred to the commit's goroutine
// when tx commits in the background (state.Defer): the records taken do
// not change (a warm record's bytes after its flags never do, and the
// live keys' records are the checkpoint's own), and the tables wait for
// it (valueTables.settle).
func (s *keyedState) flushValues(tx state.Tx, final bool) error {
	if s.codec == nil || s.vals == nil {
		return nil
	}
	vt := s.vals
	vt.mu.Lock()
	vt.settle(tx)
	whole := s.snapshotDue()
	vt.mu.Unlock()
	// The live keys' records are made as the ring is walked, in memory
	// order, not in key order, where each key's state was a cache miss.
	dirty, recs := s.sorter.keys[:0], s.sorter.recs[:0]
	for _, ks := range s.live {
		if ks.dirty || whole && ks.anyLoaded() {
			start := len(recs)
			var err error
			if recs, err = s.appendWarmRecord(recs, ks); err != nil {
				return err
			}
			dirty = append(dirty, dirtyKey{k: keyString(ks.enc), ks: ks, end: len(recs) - start})
		}
	}
	for i, at := 0, 0; i < len(dirty); i++ { // recs is done growing
		dirty[i].rec, at = recs[at:at+dirty[i].end:at+dirty[i].end], at+dirty[i].end
	}
	s.sorter.recs = recs
	switch {
	case whole:
		for k, slot := range s.keys {
			if slot.rec != nil && (slot.ks == nil || slot.ks.warm) {
				dirty = append(dirty, dirtyKey{k: k, rec: slot.rec})
			}
		}
	case s.dirtyAll || final:
		for k, slot := range s.keys {
			if slot.warmChanged() {
				dirty = append(dirty, dirtyKey{k: k, rec: slot.rec})
			}
		}
	default:
		for _, w := range s.dirtyWarm {
			// A record that is no longer its key's is not warmDirty.
			if w.rec[0]&(warmDirty|warmListed) == warmDirty {
				w.rec[0] |= warmListed
				dirty = append(dirty, dirtyKey{k: w.k, rec: w.rec})
			}
		}
	}
	clear(s.dirtyWarm)
	s.dirtyWarm, s.dirtyAll = s.dirtyWarm[:0], false
	for i := range dirty {
		d := &dirty[i]
		s.markFlushed(d.k, d.rec, !final)
		if d.ks != nil {
			d.ks.dirty, d.ks.noted = false, !final // markFlushed noted it, unless final
		}
	}
	s.sorter.keys = dirty
	write := func(tx state.Tx) error {
		defer s.sorter.release()
		runs := s.beginRuns(tx)
		if whole {
			runs = s.beginSnapshots(tx)
		}
		for _, d := range s.sorter.sort() {
			if err := s.writeRecord(runs, d.k, d.rec); err != nil {
				return err
			}
		}
		if err := runs.close(); err != nil {
			return err
		}
		for i, tab := range s.vals.tabs {
			if tab == nil {
				continue
			}
			if err := tab.Flush(tx); err != nil {
				return fmt.Errorf("%s: state %q: %w", s.fn, s.decls[i].Name, err)
			}
		}
		return nil
	}
	vt.mu.Lock()
	defer vt.mu.Unlock()
	if !state.Deferred(tx) {
		return write(tx)
	}
	return vt.deferWrite(tx, write)
}

// dirtyKey is a key a checkpoint writes, with its warm record rec: a
// live key's (ks) made for the checkpoint, or a warm key's.
type dirtyKey struct {
	k   string
	ks  *keyState
	rec []byte
	end int // while the live keys' records are made: the length of rec
}

// warmChanged reports whether a key's slot holds a warm record (the key
// is not live) changed since the last checkpoint.
func (slot keySlot) warmChanged() bool {
	return slot.rec != nil && slot.rec[0]&warmDirty != 0 && (slot.ks == nil || slot.ks.warm)
}

// writeTime is the processing time an entry was last written at: taken
// now for an entry without TTL, whose accesses do not read the clock.
func (s *keyedState) writeTime(e *stateEntry) int64 {
	if e.touched == 0 {
		e.touched = s.ex.Now()
	}
	return e.touched
}
