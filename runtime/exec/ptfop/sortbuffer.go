package ptfop

import (
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
//
// Rows mostly arrive in order (a watermark trails the times it follows),
// so the buffer keeps two parts: run, the rows that came in order, a queue
// already sorted, and h, a binary heap of the others; pop takes the lesser
// of the two heads. Both are slices of entries, reused: buffering a row
// allocates nothing once they have grown.
type sortBuffer struct {
	timeCol int
	keys    []SortKey
	run     []sortEntry // sorted; the rows before head were handed out
	head    int
	h       []sortEntry // a binary heap by lessEntry
	seq     uint64
	Dropped int64 // late rows dropped
}

type sortEntry struct {
	row types.Row
	ts  int64
	seq uint64
}

// lessEntry is the order in which an ORDER BY buffer hands out its rows.
func lessEntry(keys []SortKey, a, b *sortEntry) bool {
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
	return &sortBuffer{timeCol: timeCol, keys: keys}
}

// Add buffers a row.
func (b *sortBuffer) Add(r types.Row, ts int64) {
	b.seq++
	b.addSeq(r, ts, b.seq)
}

// addSeq buffers a row that arrived as the seq-th (a parallel worker's
// rows are numbered by the coordinator, over the whole call).
func (b *sortBuffer) addSeq(r types.Row, ts int64, seq uint64) {
	e := sortEntry{row: r, ts: ts, seq: seq}
	if n := len(b.run); n == b.head || lessEntry(b.keys, &b.run[n-1], &e) {
		if n == b.head {
			b.run, b.head = b.run[:0], 0
		} else if b.head >= 1024 && b.head >= n/2 {
			// Half the queue was handed out: move the rest to the front.
			k := copy(b.run, b.run[b.head:])
			clear(b.run[k:n])
			b.run, b.head = b.run[:k], 0
		}
		b.run = append(b.run, e)
		return
	}
	b.h = append(b.h, e)
	b.up(len(b.h) - 1)
}

// Len is the number of rows buffered.
func (b *sortBuffer) Len() int { return len(b.run) - b.head + len(b.h) }

// pop hands out the next row whose time is at or before wm.
func (b *sortBuffer) pop(wm int64) (sortEntry, bool) {
	fromRun := b.head < len(b.run)
	switch {
	case fromRun && len(b.h) > 0:
		fromRun = lessEntry(b.keys, &b.run[b.head], &b.h[0])
	case !fromRun && len(b.h) == 0:
		return sortEntry{}, false
	}
	if fromRun {
		e := b.run[b.head]
		if e.ts > wm {
			return sortEntry{}, false
		}
		b.run[b.head] = sortEntry{}
		b.head++
		return e, true
	}
	e := b.h[0]
	if e.ts > wm {
		return sortEntry{}, false
	}
	n := len(b.h) - 1
	b.h[0] = b.h[n]
	b.h[n] = sortEntry{}
	b.h = b.h[:n]
	if n > 0 {
		b.down(0)
	}
	return e, true
}

func (b *sortBuffer) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !lessEntry(b.keys, &b.h[i], &b.h[p]) {
			return
		}
		b.h[i], b.h[p] = b.h[p], b.h[i]
		i = p
	}
}

func (b *sortBuffer) down(i int) {
	n := len(b.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && lessEntry(b.keys, &b.h[r], &b.h[l]) {
			m = r
		}
		if !lessEntry(b.keys, &b.h[m], &b.h[i]) {
			return
		}
		b.h[i], b.h[m] = b.h[m], b.h[i]
		i = m
	}
}

// each calls fn for every buffered row, in no particular order.
func (b *sortBuffer) each(fn func(e *sortEntry)) {
	for i := b.head; i < len(b.run); i++ {
		fn(&b.run[i])
	}
	for i := range b.h {
		fn(&b.h[i])
	}
}

// reset empties the buffer, keeping nothing.
func (b *sortBuffer) reset() { b.run, b.head, b.h = nil, 0, nil }

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
	var err error
	b.each(func(e *sortEntry) {
		if err != nil {
			return
		}
		err = putEntry(tx, ns, e)
	})
	return err
}

// putEntry writes one buffered row.
func putEntry(tx state.Tx, ns string, e *sortEntry) error {
	k := orderedcode.AppendInt64(orderedcode.AppendInt64(nil, e.ts), int64(e.seq))
	v, err := exec.AppendValue(nil, e.row.Fields)
	if err != nil {
		return err
	}
	return tx.Put(ns, k, v)
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
