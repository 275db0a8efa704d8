package ptfop

import (
	"container/heap"
	"fmt"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// SortKey is one ORDER BY column after the first (time) column.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// sortBuffer holds the rows of one table argument with ORDER BY until the
// watermark passes their time: then they are handed out in ORDER BY order
// (time ascending, then the further keys, then arrival).
type sortBuffer struct {
	timeCol int
	keys    []SortKey
	h       sortHeap
	seq     uint64
	Dropped int64 // late rows dropped
}

type sortEntry struct {
	row types.Row
	ts  int64
	seq uint64
}

type sortHeap struct {
	entries []sortEntry
	keys    []SortKey
}

func (h *sortHeap) Len() int      { return len(h.entries) }
func (h *sortHeap) Swap(i, j int) { h.entries[i], h.entries[j] = h.entries[j], h.entries[i] }
func (h *sortHeap) Push(x any)    { h.entries = append(h.entries, x.(sortEntry)) }
func (h *sortHeap) Pop() any {
	e := h.entries[len(h.entries)-1]
	h.entries = h.entries[:len(h.entries)-1]
	return e
}

func (h *sortHeap) Less(i, j int) bool { return lessEntry(h.keys, h.entries[i], h.entries[j]) }

// lessEntry is the order in which an ORDER BY buffer hands out its rows.
func lessEntry(keys []SortKey, a, b sortEntry) bool {
	if a.ts != b.ts {
		return a.ts < b.ts
	}
	for _, k := range keys {
		x, y := a.row.Fields[k.Col], b.row.Fields[k.Col]
		var c int
		switch {
		case x == nil && y == nil:
			c = 0
		case x == nil || y == nil:
			// NULLS FIRST puts a null before any value, whatever the direction.
			if (x == nil) == k.NullsFirst {
				return true
			}
			return false
		default:
			c = expr.CompareValues(x, y)
			if k.Desc {
				c = -c
			}
		}
		if c != 0 {
			return c < 0
		}
	}
	return a.seq < b.seq
}

func newSortBuffer(timeCol int, keys []SortKey) *sortBuffer {
	return &sortBuffer{timeCol: timeCol, keys: keys, h: sortHeap{keys: keys}}
}

// Add buffers a row.
func (b *sortBuffer) Add(r types.Row, ts int64) {
	b.seq++
	b.addSeq(r, ts, b.seq)
}

// addSeq buffers a row that arrived as the seq-th (a parallel worker's
// rows are numbered by the coordinator, over the whole call).
func (b *sortBuffer) addSeq(r types.Row, ts int64, seq uint64) {
	heap.Push(&b.h, sortEntry{row: r, ts: ts, seq: seq})
}

// pop hands out the next row whose time is at or before wm.
func (b *sortBuffer) pop(wm int64) (sortEntry, bool) {
	if b.h.Len() == 0 || b.h.entries[0].ts > wm {
		return sortEntry{}, false
	}
	return heap.Pop(&b.h).(sortEntry), true
}

// An ORDER BY buffer is state: its rows go into checkpoints under the
// call's uid and table argument, and come back on the next statement with
// that uid (Flink keeps them in savepoints).

// save replaces the stored rows of the buffer with the buffered ones.
func (b *sortBuffer) save(tx state.Tx, ns string) error {
	if err := tx.DeleteNamespace(ns); err != nil {
		return err
	}
	return b.put(tx, ns)
}

// put writes the buffered rows, adding to those stored (the buffers of a
// parallel call's workers share one namespace).
func (b *sortBuffer) put(tx state.Tx, ns string) error {
	for _, e := range b.h.entries {
		k := orderedcode.AppendInt64(orderedcode.AppendInt64(nil, e.ts), int64(e.seq))
		v, err := exec.AppendValue(nil, e.row.Fields)
		if err != nil {
			return err
		}
		if err := tx.Put(ns, k, v); err != nil {
			return err
		}
	}
	return nil
}

// load adds the stored rows of a buffer.
func (b *sortBuffer) load(tx state.Tx, ns string) error {
	return tx.Scan(ns, nil, func(k, v []byte) error {
		d := orderedcode.NewDecoder(k)
		ts, err := d.Int64()
		if err != nil {
			return fmt.Errorf("corrupt ORDER BY buffer %s: %w", ns, err)
		}
		f, rest, err := exec.ReadValue(v)
		fields, ok := f.([]any)
		if err != nil || len(rest) != 0 || !ok {
			return fmt.Errorf("corrupt ORDER BY buffer %s", ns)
		}
		b.Add(types.Row{Kind: types.Insert, Fields: fields}, ts)
		return nil
	})
}
