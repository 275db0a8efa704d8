package opstate

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ptfsh/ptfsh/state"
)

// Packed generations: many keys to a stored value.
//
// A packed generation holds its keys in blocks of about blockSize bytes,
// each block one value of the store under the block's last key: the
// block is a run of records in key order, each the key's length as a
// uvarint, the key, the marked value's length as a uvarint and the marked
// value (markValue and the encoding, or markDeleted). A checkpoint of
// 100k changed keys then writes about a hundred values instead of 100k,
// and the store's per-key work (its buffer, bbolt's search for the key's
// place, its checksum) is paid per block. A key is found by the first
// block whose last key is not below it (ScanFrom), then in the block.
//
// A Run writes one packed generation, in key order: the changes of a
// caller that keeps its own cache of the table's values (see stored.go),
// written at a checkpoint or when its memory is full. A compaction whose
// inputs include a packed generation writes a packed one.

// blockSize is about the size of a block: a look-up decodes up to one
// block, and a checkpoint writes its changes in values of this size.
const blockSize = 4 << 10

// appendRecord appends a record of a block.
func appendRecord(b, key, marked []byte) []byte {
	return append(appendRecordHead(b, key, len(marked)), marked...)
}

// appendRecordHead appends a record's key and the length of its marked
// value, which the caller appends.
func appendRecordHead(b, key []byte, n int) []byte {
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	return binary.AppendUvarint(b, uint64(n))
}

var errBadBlock = errors.New("a block of a packed generation is damaged")

// nextRecord reads the record at the start of b and returns its key and
// marked value (both sharing b) and the rest of b.
func nextRecord(b []byte) (key, marked, rest []byte, err error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, nil, errBadBlock
	}
	key, b = b[w:w+int(n)], b[w+int(n):]
	n, w = binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return nil, nil, nil, errBadBlock
	}
	return key, b[w : w+int(n)], b[w+int(n):], nil
}

// blockError says which block err was found in: the one stored under
// the key last, the last key it holds.
func blockError(last []byte, err error) error {
	return fmt.Errorf("%w (the block of keys up to %q)", err, last)
}

// putBlocks writes keys (in increasing order), their values and their
// deletions to the packed generation of namespace ns, in blocks.
func putBlocks(tx state.Tx, ns string, keys, vals [][]byte, dels []bool) error {
	var block []byte
	for i, k := range keys {
		if dels[i] {
			block = append(appendRecordHead(block, k, 1), markDeleted)
		} else {
			block = append(append(appendRecordHead(block, k, 1+len(vals[i])), markValue), vals[i]...)
		}
		if len(block) >= blockSize || i == len(keys)-1 {
			if err := tx.Put(ns, k, block); err != nil {
				return err
			}
			block = block[:0]
		}
	}
	return nil
}

// lookupPacked returns the marked value of key in the packed generation
// of namespace ns, or nil.
func lookupPacked(tx state.Tx, ns string, key []byte) (marked []byte, err error) {
	err = tx.ScanFrom(ns, nil, key, func(last, block []byte) error {
		for b := block; len(b) > 0; {
			k, v, rest, err := nextRecord(b)
			if err != nil {
				return blockError(last, err)
			}
			if c := bytes.Compare(k, key); c >= 0 {
				if c == 0 {
					marked = bytes.Clone(v)
				}
				break
			}
			b = rest
		}
		return errBatch // the first block only
	})
	if errors.Is(err, errBatch) {
		err = nil
	}
	if err != nil {
		return nil, fmt.Errorf("namespace %q: %w", ns, err)
	}
	return marked, nil
}

// errPrefixEnd stops a packed cursor's read past the keys of its prefix.
var errPrefixEnd = errors.New("past the prefix")

// readPacked reads the next batch of a cursor over a packed generation:
// whole blocks, until it holds batchSize keys or more. The keys and values
// share a copy of their block.
func (c *cursor) readPacked(tx state.Tx) error {
	start := c.prefix
	if bytes.Compare(c.next, start) > 0 {
		start = c.next
	}
	err := tx.ScanFrom(c.ns, nil, start, func(last, block []byte) error {
		if len(c.keys) >= batchSize {
			return errBatch // c.next is after the block before
		}
		for b := bytes.Clone(block); len(b) > 0; {
			k, v, rest, err := nextRecord(b)
			if err != nil {
				return fmt.Errorf("namespace %q: %w", c.ns, blockError(last, err))
			}
			b = rest
			if bytes.Compare(k, start) < 0 {
				continue
			}
			if !bytes.HasPrefix(k, c.prefix) {
				return errPrefixEnd // above start, so above every key of the prefix
			}
			c.keys, c.vals = append(c.keys, k), append(c.vals, v)
		}
		c.next = append(bytes.Clone(last), 0)
		return nil
	})
	if errors.Is(err, errPrefixEnd) {
		err = nil // done
	}
	return err
}

// A Run writes a packed generation of a table, in one transaction, keys
// in increasing order; Close adds it to the table's generations, to be
// listed at the next checkpoint (Flush) as a spilled generation is.
type Run[V any] struct {
	t      *Table[V]
	tx     state.Tx
	g      generation
	filter bloom
	block  []byte
	last   []byte // the block's last key
	val    []byte
	err    error
	whole  bool // a snapshot (BeginSnapshot)
}

// BeginRun begins a packed generation of t, written in tx. Only a table
// used through ReadStored and Runs (stored.go) takes Runs.
func (t *Table[V]) BeginRun(tx state.Tx) *Run[V] {
	return &Run[V]{t: t, tx: tx, g: generation{name: t.newName(), packed: true}}
}

// BeginSnapshot begins a packed generation of t that holds the whole
// table: the caller puts every key that has a value (a deletion is then
// needless), and Close deletes every generation before it in tx and
// leaves it the table's only one; the caller then calls Flush in the
// same transaction, which lists it. A caller that keeps every key of the
// table in memory writes one when SnapshotDue, where merging the
// generations would read them all and rewrite every key.
func (t *Table[V]) BeginSnapshot(tx state.Tx) *Run[V] {
	r := t.BeginRun(tx)
	r.whole = true
	return r
}

// SnapshotDue reports whether the next packed generation of t would,
// as a changes-only Run, make enough generations for a merge: a caller
// that can write the whole table had better write a snapshot then
// (BeginSnapshot).
func (t *Table[V]) SnapshotDue() bool {
	return len(t.gens.list) >= packedRun-1 && t.scanning == 0 && t.liveKeys == 0
}

// Put adds key with value v; keys come in increasing order.
func (r *Run[V]) Put(key []byte, v V) error {
	b, err := r.t.codec.Append(append(r.val[:0], markValue), v)
	if err != nil {
		return fmt.Errorf("writing the state %q, key %x: %w", r.t.ns, key, err)
	}
	r.val = b
	return r.add(key, b)
}

// Delete adds the deletion of key; keys come in increasing order.
func (r *Run[V]) Delete(key []byte) error { return r.add(key, []byte{markDeleted}) }

func (r *Run[V]) add(key, marked []byte) error {
	if r.err != nil {
		return r.err
	}
	if r.g.keys > 0 && bytes.Compare(key, r.last) <= 0 {
		r.err = fmt.Errorf("writing the state %q: key %x after %x, out of order", r.t.ns, key, r.last)
		return r.err
	}
	r.block = appendRecord(r.block, key, marked)
	r.last = append(r.last[:0], key...)
	r.filter.add(key)
	r.g.keys++
	if len(r.block) >= blockSize {
		return r.putBlock()
	}
	return nil
}

func (r *Run[V]) putBlock() error {
	if len(r.block) == 0 {
		return nil
	}
	if err := r.tx.Put(r.g.name, r.last, r.block); err != nil {
		r.err = err
		return err
	}
	r.block = r.block[:0] // Put copies the value
	return nil
}

// Close writes the last block and adds the generation to the table's, if
// it holds keys. The table goes on as if the run's transaction commits.
func (r *Run[V]) Close() error {
	if err := r.putBlock(); err != nil || r.err != nil {
		return errors.Join(err, r.err)
	}
	if r.whole {
		return r.replace()
	}
	if r.g.keys == 0 {
		return nil
	}
	t := r.t
	if len(t.gens.list) > 0 {
		r.g.filter = &r.filter
	}
	t.gens.list = append(t.gens.list, r.g)
	t.stored, t.replan = true, true
	return nil
}

// replace makes the snapshot r the table's only generation: the next
// Flush lists it in place of the generations before it (none, for an
// empty table), and these, with the output of a merge under way, are
// left for dropUnlisted to delete once that checkpoint has committed.
// Deleting them in the checkpoint's transaction put their pages in the
// store's trash, which only a later synchronous transaction frees: a
// state file of B over 5M rows grew to 78 MB against 17 MB.
func (r *Run[V]) replace() error {
	t := r.t
	for _, g := range t.gens.list {
		t.dropped = append(t.dropped, g.name)
	}
	if t.comp != nil {
		t.dropped = append(t.dropped, t.comp.out.name)
		t.comp = nil
	}
	if t.liveKeys > 0 {
		t.dropped = append(t.dropped, t.live)
		t.live, t.inLive, t.liveKeys = t.newName(), bloom{}, 0
	}
	t.gens.list, t.gens.sealed = nil, 0
	if r.g.keys > 0 {
		t.gens.list = []generation{r.g} // the oldest: no filter
	}
	t.stored, t.replan, t.relist = len(t.gens.list) > 0, true, true
	return nil
}

// dropUnlisted deletes the namespaces a snapshot replaced (t.dropped)
// that the store's list of generations no longer names: the checkpoint
// that listed the snapshot has committed. While it is in flight the
// store's writers wait for it; if it failed, the list still names them
// and they stay.
func (t *Table[V]) dropUnlisted() error {
	err := t.store.Update(func(tx state.Tx) error {
		gs, err := storedGenerations(tx, t.ns)
		if err != nil {
			return err
		}
		for _, n := range t.dropped {
			if gs.has(n) {
				continue
			}
			if err := tx.DeleteNamespace(n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dropping the generations of the state %q a snapshot replaced: %w", t.ns, err)
	}
	t.dropped = nil
	return nil
}
