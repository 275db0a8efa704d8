package ptfop

import (
	"bytes"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
)

// Map state: Flink's MapView in the store (the layout is in views.go).

// mapKey checks map key k of key ks and returns its key in the table.
func (v *viewState) mapKey(ks *keyState, i int, k any) ([]byte, error) {
	if k == nil {
		return nil, ptf.ErrNullKey
	}
	kt, _ := v.viewTypes(i)
	if err := exec.CheckValueKind(k, kt); err != nil {
		return nil, v.viewError(i, fmt.Errorf("key: %w", err))
	}
	return keycodec.AppendValue(bytes.Clone(ks.enc), k), nil
}

func (v *viewState) MapGet(ks *keyState, i int, k any) (any, bool, error) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, err := v.table(ks, i, ptf.MapState)
	if err != nil {
		return nil, false, err
	}
	key, err := v.mapKey(ks, i, k)
	if err != nil {
		return nil, false, err
	}
	rec, ok, err := tab.Get(key)
	if err != nil || !ok {
		return nil, false, v.viewError(i, err)
	}
	if expired(v.ttl[i], v.ex.Now(), recordTime(rec)) {
		return nil, false, v.viewError(i, tab.Delete(key))
	}
	x, _, err := recordValue(rec)
	if err != nil {
		return nil, false, v.viewError(i, err)
	}
	return x, true, nil
}

func (v *viewState) MapPut(ks *keyState, i int, keys, vals []any) error {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, err := v.table(ks, i, ptf.MapState)
	if err != nil {
		return err
	}
	_, vt := v.viewTypes(i)
	tks := make([][]byte, len(keys))
	for j, k := range keys {
		if tks[j], err = v.mapKey(ks, i, k); err != nil {
			return err
		}
		if j < len(vals) && vals[j] != nil {
			if err := exec.CheckValueKind(vals[j], vt); err != nil {
				return v.viewError(i, fmt.Errorf("value: %w", err))
			}
		}
	}
	now := v.ex.Now()
	v.changes++
	for j, k := range keys {
		var x any
		if j < len(vals) {
			x = vals[j]
		}
		rec, err := newRecord(now, x, k)
		if err != nil {
			return v.viewError(i, err)
		}
		if err := tab.Put(tks[j], rec); err != nil {
			return v.viewError(i, err)
		}
	}
	return nil
}

func (v *viewState) MapRemove(ks *keyState, i int, k any) error {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, err := v.table(ks, i, ptf.MapState)
	if err != nil {
		return err
	}
	key, err := v.mapKey(ks, i, k)
	if err != nil {
		return err
	}
	v.changes++
	return v.viewError(i, tab.Delete(key))
}

func (v *viewState) MapClear(ks *keyState, i int) error {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	return v.clearMap(ks, i)
}

// clearMap deletes every entry of map entry i of key ks.
func (v *viewState) clearMap(ks *keyState, i int) error {
	tab, err := v.table(ks, i, ptf.MapState)
	if err != nil {
		return err
	}
	v.changes++
	var keys [][]byte
	err = tab.Scan(ks.enc, func(k, _ []byte) (bool, error) {
		keys = append(keys, bytes.Clone(k))
		return true, nil
	})
	for _, k := range keys {
		if err != nil {
			break
		}
		err = tab.Delete(k)
	}
	return v.viewError(i, err)
}

// mapIter is a map iteration: the table's entries of one partition key,
// read in key order a batch at a time; a change to a map while it runs
// makes it read again from the entry after the last one it returned.
type mapIter struct {
	v       *viewState
	i       int
	tab     *opstate.Table[[]byte]
	enc     []byte // the partition key
	ttl     int64
	now     int64
	after   []byte // the table key of the last entry returned (nil before the first)
	buf     []mapEntry
	done    bool // buf holds the last entries
	changes int  // v.changes when buf was read
	closed  bool
}

type mapEntry struct {
	key, rec []byte
}

const mapScanBatch = 256

func (v *viewState) MapIter(ks *keyState, i int) (ptf.MapCursor, error) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, err := v.table(ks, i, ptf.MapState)
	if err != nil {
		return nil, err
	}
	it := &mapIter{v: v, i: i, tab: tab, enc: bytes.Clone(ks.enc), ttl: v.ttl[i], now: v.ex.Now()}
	v.open = append(v.open, it)
	return it, nil
}

// read reads the next batch of entries.
func (it *mapIter) read() error {
	it.buf, it.done, it.changes = it.buf[:0], false, it.v.changes
	var from []byte
	if it.after != nil {
		from = append(bytes.Clone(it.after), 0) // the least key after it
	}
	err := it.tab.ScanFrom(it.enc, from, func(k, rec []byte) (bool, error) {
		if len(it.buf) == mapScanBatch {
			return false, nil
		}
		it.buf = append(it.buf, mapEntry{bytes.Clone(k), rec})
		return true, nil
	})
	it.done = len(it.buf) < mapScanBatch
	return err
}

func (it *mapIter) Next() (k, v any, ok bool, err error) {
	it.v.t.mu.Lock()
	defer it.v.t.mu.Unlock()
	for !it.closed {
		if it.changes != it.v.changes || len(it.buf) == 0 && !it.done {
			if err := it.read(); err != nil {
				it.closed = true
				return nil, nil, false, it.v.viewError(it.i, err)
			}
		}
		if len(it.buf) == 0 {
			it.closed = true
			return nil, nil, false, nil
		}
		e := it.buf[0]
		it.buf, it.after = it.buf[1:], e.key
		if expired(it.ttl, it.now, recordTime(e.rec)) {
			if err := it.tab.Delete(e.key); err != nil {
				it.closed = true
				return nil, nil, false, it.v.viewError(it.i, err)
			}
			continue
		}
		v, rest, err := recordValue(e.rec)
		if err == nil {
			k, _, err = exec.ReadValue(rest)
		}
		if err != nil {
			it.closed = true
			return nil, nil, false, it.v.viewError(it.i, err)
		}
		return k, v, true, nil
	}
	return nil, nil, false, nil
}

func (it *mapIter) Close() {
	it.closed, it.buf = true, nil
}
