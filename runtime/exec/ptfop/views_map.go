package ptfop

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/state"
)

// Map state: Flink's MapView in the store (the layout is in views.go).

// mapKeyOf checks and encodes a map key.
func (v *viewState) mapKeyOf(i int, k any) (string, error) {
	if k == nil {
		return "", ptf.ErrNullKey
	}
	kt, _ := v.viewTypes(i)
	if err := exec.CheckValueKind(k, kt); err != nil {
		return "", v.viewError(i, fmt.Errorf("key: %w", err))
	}
	return string(keycodec.AppendValue(nil, k)), nil
}

func (v *viewState) mapDelta(ks *keyState, i int) (*mapDelta, error) {
	kv, err := v.viewKey(ks, i, ptf.MapState)
	if err != nil {
		return nil, err
	}
	if kv.maps == nil {
		kv.maps = make([]*mapDelta, len(v.decls))
	}
	d := kv.maps[i]
	if d == nil {
		d = &mapDelta{writes: map[string][]byte{}}
		kv.maps[i] = d
	}
	return d, nil
}

func (d *mapDelta) noteExpired(ek string) {
	if d.expired == nil {
		d.expired = map[string]bool{}
	}
	d.expired[ek] = true
}

func (v *viewState) MapGet(ks *keyState, i int, k any) (any, bool, error) {
	d, err := v.mapDelta(ks, i)
	if err != nil {
		return nil, false, err
	}
	ek, err := v.mapKeyOf(i, k)
	if err != nil {
		return nil, false, err
	}
	now := v.ex.Now()
	rec, ok := d.writes[ek]
	if !ok && !d.cleared {
		stored, err := v.viewStored(i)
		if err != nil {
			return nil, false, v.viewError(i, err)
		}
		if stored {
			err := v.ex.Store.View(func(tx state.Tx) (err error) {
				rec, err = tx.Get(v.viewNamespace(i), append(bytes.Clone(ks.enc), ek...))
				return err
			})
			if err != nil {
				return nil, false, v.viewError(i, err)
			}
			if rec != nil && expired(v.ttl[i], now, recordTime(rec)) {
				d.noteExpired(ek)
				rec = nil
			}
		}
	}
	if rec == nil || expired(v.ttl[i], now, recordTime(rec)) {
		return nil, false, nil
	}
	x, _, err := recordValue(rec)
	if err != nil {
		return nil, false, v.viewError(i, err)
	}
	return x, true, nil
}

func (v *viewState) MapPut(ks *keyState, i int, keys, vals []any) error {
	d, err := v.mapDelta(ks, i)
	if err != nil {
		return err
	}
	_, vt := v.viewTypes(i)
	eks := make([]string, len(keys))
	for j, k := range keys {
		if eks[j], err = v.mapKeyOf(i, k); err != nil {
			return err
		}
		if j < len(vals) && vals[j] != nil {
			if err := exec.CheckValueKind(vals[j], vt); err != nil {
				return v.viewError(i, fmt.Errorf("value: %w", err))
			}
		}
	}
	now := v.ex.Now()
	for j, k := range keys {
		var x any
		if j < len(vals) {
			x = vals[j]
		}
		rec, err := newRecord(now, x, k)
		if err != nil {
			return v.viewError(i, err)
		}
		v.setMapWrite(d, eks[j], rec)
	}
	return nil
}

func (v *viewState) setMapWrite(d *mapDelta, ek string, rec []byte) {
	if _, ok := d.writes[ek]; !ok {
		d.sortedOK = false
		v.pending++
	}
	d.writes[ek] = rec
}

func (v *viewState) MapRemove(ks *keyState, i int, k any) error {
	d, err := v.mapDelta(ks, i)
	if err != nil {
		return err
	}
	ek, err := v.mapKeyOf(i, k)
	if err != nil {
		return err
	}
	v.setMapWrite(d, ek, nil)
	return nil
}

func (v *viewState) MapClear(ks *keyState, i int) error {
	d, err := v.mapDelta(ks, i)
	if err != nil {
		return err
	}
	v.clearMap(d)
	return nil
}

func (v *viewState) clearMap(d *mapDelta) {
	v.pending -= len(d.writes)
	d.writes, d.cleared, d.expired, d.sorted, d.sortedOK = map[string][]byte{}, true, nil, nil, false
	d.stored, d.scanned = nil, false
	d.gen++
}

// flushMap writes map d of key enc to tx.
func flushMap(tx state.Tx, ns string, enc []byte, d *mapDelta) error {
	if d.cleared {
		if !d.scanned {
			return fmt.Errorf("internal error: map of a checkpoint not prepared (viewState.prepare)")
		}
		for _, k := range d.stored {
			if err := tx.Delete(ns, k); err != nil {
				return err
			}
		}
	}
	key := func(ek string) []byte { return append(append(make([]byte, 0, len(enc)+len(ek)), enc...), ek...) }
	for ek := range d.expired {
		if _, ok := d.writes[ek]; !ok && !d.cleared {
			if err := tx.Delete(ns, key(ek)); err != nil {
				return err
			}
		}
	}
	for ek, rec := range d.writes {
		var err error
		if rec == nil {
			err = tx.Delete(ns, key(ek))
		} else {
			err = tx.Put(ns, key(ek), rec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// mapIter is a map iteration: a merge, in key order, of the store's
// entries (read in batches by a scan that runs as a coroutine, holding
// one read transaction) and the overlay's.
type mapIter struct {
	v      *viewState
	i      int
	d      *mapDelta
	ttl    int64
	now    int64
	gen    int
	after  string // encoded key of the last entry visited ("" before the first)
	buf    []storeEntry
	pull   func() ([]storeEntry, bool)
	stop   func()
	err    error // of the store's scan
	closed bool
}

type storeEntry struct {
	ek  string
	rec []byte
}

const mapScanBatch = 256

func (v *viewState) MapIter(ks *keyState, i int) (ptf.MapCursor, error) {
	d, err := v.mapDelta(ks, i)
	if err != nil {
		return nil, err
	}
	it := &mapIter{v: v, i: i, d: d, ttl: v.ttl[i], now: v.ex.Now(), gen: d.gen}
	stored, err := v.viewStored(i)
	if err != nil {
		return nil, v.viewError(i, err)
	}
	if stored && !d.cleared {
		ns, enc := v.viewNamespace(i), bytes.Clone(ks.enc)
		store := v.ex.Store
		seq := func(yield func([]storeEntry) bool) {
			var batch []storeEntry
			err := store.View(func(tx state.Tx) error {
				return tx.Scan(ns, enc, func(k, v []byte) error {
					batch = append(batch, storeEntry{string(k[len(enc):]), bytes.Clone(v)})
					if len(batch) == mapScanBatch {
						if !yield(batch) {
							return errStopScan
						}
						batch = nil
					}
					return nil
				})
			})
			switch {
			case errors.Is(err, errStopScan):
			case err != nil:
				it.err = err
			case len(batch) > 0:
				yield(batch)
			}
		}
		it.pull, it.stop = iter.Pull(seq)
	}
	v.open = append(v.open, it)
	return it, nil
}

func (it *mapIter) Next() (k, v any, ok bool, err error) {
	d := it.d
	for !it.closed {
		if it.gen != d.gen { // cleared: the store's entries are gone
			it.dropStore()
			it.gen = d.gen
		}
		var s *storeEntry
		if len(it.buf) == 0 && it.pull != nil {
			if it.buf, ok = it.pull(); !ok {
				it.dropStore()
				if it.err != nil {
					err := it.v.viewError(it.i, it.err)
					it.Close()
					return nil, nil, false, err
				}
			}
		}
		if len(it.buf) > 0 {
			s = &it.buf[0]
		}
		if !d.sortedOK {
			d.sorted = d.sorted[:0]
			for ek := range d.writes {
				d.sorted = append(d.sorted, ek)
			}
			sort.Strings(d.sorted)
			d.sortedOK = true
		}
		w := sort.SearchStrings(d.sorted, it.after)
		if w < len(d.sorted) && d.sorted[w] == it.after {
			w++
		}
		var rec []byte
		switch {
		case s != nil && (w == len(d.sorted) || s.ek < d.sorted[w]):
			it.after, rec = s.ek, s.rec
			it.buf = it.buf[1:]
			if expired(it.ttl, it.now, recordTime(rec)) {
				d.noteExpired(s.ek)
				continue
			}
		case w < len(d.sorted):
			it.after = d.sorted[w]
			if s != nil && s.ek == it.after {
				it.buf = it.buf[1:]
			}
			rec = d.writes[it.after]
			if rec == nil || expired(it.ttl, it.now, recordTime(rec)) {
				continue
			}
		default:
			it.Close()
			return nil, nil, false, nil
		}
		v, rest, err := recordValue(rec)
		if err == nil {
			k, _, err = exec.ReadValue(rest)
		}
		if err != nil {
			it.Close()
			return nil, nil, false, it.v.viewError(it.i, err)
		}
		return k, v, true, nil
	}
	return nil, nil, false, nil
}

func (it *mapIter) dropStore() {
	if it.stop != nil {
		it.stop()
	}
	it.pull, it.stop, it.buf = nil, nil, nil
}

func (it *mapIter) Close() {
	it.dropStore()
	it.closed = true
}
