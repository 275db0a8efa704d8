package sqlop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/state"
)

// The SQL operators keep their state in the store behind a bounded cache
// (runtime/exec/opstate), in namespaces that [exec.Execution.OperatorNamespace]
// names, so that their memory is bounded by the cache and their state is
// part of every checkpoint: a statement over an input that does not end
// can stop and go on, and a killed one resumes from its last checkpoint.

// openTable opens an operator's table name in namespace ns.
func openTable[V any](ex *exec.Execution, ns, name string, codec opstate.Codec[V]) (*opstate.Table[V], error) {
	return opstate.Open(ex.Store, ns+"/"+name, codec, opstate.Options{CacheEntries: ex.Opts.CacheSize})
}

// tableSet is the tables of one operator, checkpointed together.
type tableSet []interface {
	Flush(tx state.Tx) error
	Drop(tx state.Tx) error
}

func (ts tableSet) checkpoint(tx state.Tx, finished bool) error {
	for _, t := range ts {
		var err error
		if finished {
			err = t.Drop(tx)
		} else {
			err = t.Flush(tx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// int64Codec encodes an int64 as a varint.
type int64Codec struct{}

func (int64Codec) Append(b []byte, v int64) ([]byte, error) { return binary.AppendVarint(b, v), nil }
func (int64Codec) Decode(b []byte) (int64, error) {
	v, n := binary.Varint(b)
	if n <= 0 || n != len(b) {
		return 0, errors.New("bad count")
	}
	return v, nil
}

// rawCodec keeps values as they are (a partition's key).
type rawCodec struct{}

func (rawCodec) Append(b []byte, v []byte) ([]byte, error) { return append(b, v...), nil }
func (rawCodec) Decode(b []byte) ([]byte, error)           { return bytes.Clone(b), nil }

// valuesCodec encodes a list of values (a row's fields).
type valuesCodec struct{}

func (valuesCodec) Append(b []byte, vs []any) ([]byte, error) { return appendValues(b, vs) }
func (valuesCodec) Decode(b []byte) ([]any, error) {
	vs, rest, err := readValues(b)
	if err == nil && len(rest) != 0 {
		err = errAccTruncated
	}
	return vs, err
}

// noValue is the value of a table whose keys say everything (a queue of
// cleanup times).
type noValue struct{}

type noValueCodec struct{}

func (noValueCodec) Append(b []byte, _ noValue) ([]byte, error) { return b, nil }
func (noValueCodec) Decode([]byte) (noValue, error)             { return noValue{}, nil }

// opMeta is an operator's own few values beside its keyed state, under
// names: its watermark, its sequence numbers, what its inputs' valve
// holds. They stay in memory and are written whole in each checkpoint's
// transaction (a table's Put could evict into a transaction of its own
// inside the checkpoint's).
type opMeta struct {
	ns   string
	vals map[string][]byte
}

// openMeta reads the values of namespace ns/meta.
func openMeta(ex *exec.Execution, ns string) (opMeta, error) {
	m := opMeta{ns: ns + "/meta", vals: map[string][]byte{}}
	err := ex.Store.View(func(tx state.Tx) error {
		return tx.Scan(m.ns, nil, func(k, v []byte) error {
			m.vals[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	if err != nil {
		return m, fmt.Errorf("opening the state %q: %w", m.ns, err)
	}
	return m, nil
}

// get returns the value under name, nil when there is none.
func (m opMeta) get(name string) ([]byte, error) { return m.vals[name], nil }

func (m opMeta) put(name string, b []byte) error {
	m.vals[name] = b
	return nil
}

// getInt returns the int64 under name (0 when there is none).
func (m opMeta) getInt(name string) (int64, error) {
	b := m.vals[name]
	if b == nil {
		return 0, nil
	}
	v, err := int64Codec{}.Decode(b)
	if err != nil {
		return 0, fmt.Errorf("the state %q, %s: %w", m.ns, name, err)
	}
	return v, nil
}

func (m opMeta) putInt(name string, v int64) error {
	return m.put(name, binary.AppendVarint(nil, v))
}

// Flush writes the values into tx.
func (m opMeta) Flush(tx state.Tx) error {
	for k, v := range m.vals {
		if err := tx.Put(m.ns, []byte(k), v); err != nil {
			return err
		}
	}
	return nil
}

// Drop deletes the values from the store.
func (m opMeta) Drop(tx state.Tx) error { return tx.DeleteNamespace(m.ns) }

// Time keys: a time first, eight bytes big-endian with the sign bit
// flipped, so that keys sort by time (then by what follows it), and a
// table read in key order is read in time order.

// appendTime appends the time key of ts.
func appendTime(b []byte, ts int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(ts)^(1<<63))
}

// keyTime returns the time a time key begins with.
func keyTime[K ~string | ~[]byte](k K) int64 {
	var u uint64
	for i := range 8 {
		u = u<<8 | uint64(k[i])
	}
	return int64(u ^ 1<<63)
}

// timeKey is a time key of ts followed by rest.
func timeKey(ts int64, rest []byte) []byte {
	return append(appendTime(make([]byte, 0, 8+len(rest)), ts), rest...)
}

// dueQueue is an operator's entries that wait for event time — rows
// waiting for the watermark, cleanup times, timers — in a table whose
// keys are time keys, read in time order. The least entries are also in
// memory, in order (front): the watermark takes due entries from there
// with a map look-up each, and the table is read in order (Table.Scan)
// only when the front runs empty while the table holds more, so that
// memory holds the front and the table's cache, never the whole queue.
//
// Every entry of the table whose key is below bound is in the front
// (every entry, when !bounded). Entries are added with Add and taken with
// Pop; the table is checkpointed with the operator's other tables.
type dueQueue[V any] struct {
	t       *opstate.Table[V]
	front   []string // keys in order; front[head:] are the live ones
	head    int
	bound   string
	bounded bool
}

// frontMax is how many keys the front of a dueQueue holds before it
// leaves the greater half to the table alone.
const frontMax = 8192

// openQueue opens the queue of table name in namespace ns and reads its
// least entries.
func openQueue[V any](ex *exec.Execution, ns, name string, codec opstate.Codec[V]) (*dueQueue[V], error) {
	t, err := openTable[V](ex, ns, name, codec)
	if err != nil {
		return nil, err
	}
	q := &dueQueue[V]{t: t, bounded: true}
	if err := q.refill(); err != nil {
		return nil, err
	}
	return q, nil
}

// Add adds the entry key (a time key) with value v, or replaces the
// value of an entry with that key.
func (q *dueQueue[V]) Add(key []byte, v V) error {
	if err := q.t.Put(key, v); err != nil {
		return err
	}
	k := string(key)
	if q.bounded && k >= q.bound {
		return nil // the table alone holds it, with the others past the front
	}
	live := q.front[q.head:]
	at, found := slices.BinarySearch(live, k)
	if found {
		return nil
	}
	if at == len(live) {
		q.front = append(q.front, k)
	} else {
		q.front = slices.Insert(q.front, q.head+at, k)
	}
	if len(q.front)-q.head > frontMax {
		// The greater half stays in the table only.
		keep := q.head + frontMax/2
		q.bound, q.bounded = q.front[keep], true
		clear(q.front[keep:])
		q.front = q.front[:keep]
	}
	return nil
}

// Next returns the time of the least entry, and false when the queue is
// empty. It reads the table when the front ran empty.
func (q *dueQueue[V]) Next() (int64, bool, error) {
	if q.head == len(q.front) {
		if !q.bounded {
			return 0, false, nil
		}
		if err := q.refill(); err != nil {
			return 0, false, err
		}
		if q.head == len(q.front) {
			return 0, false, nil
		}
	}
	return keyTime(q.front[q.head]), true, nil
}

// Pop takes the least entry when its time is at or before through, and
// returns its key and value; ok is false when there is none.
func (q *dueQueue[V]) Pop(through int64) (key []byte, v V, ok bool, err error) {
	for {
		ts, any, err := q.Next()
		if err != nil || !any || ts > through {
			return nil, v, false, err
		}
		k := q.front[q.head]
		q.front[q.head] = ""
		q.head++
		if q.head == len(q.front) {
			q.front, q.head = q.front[:0], 0
		} else if q.head > 1024 && q.head > len(q.front)/2 {
			n := copy(q.front, q.front[q.head:])
			clear(q.front[n:])
			q.front, q.head = q.front[:n], 0
		}
		key = []byte(k)
		v, found, err := q.t.Get(key)
		if err != nil {
			return nil, v, false, err
		}
		if !found {
			continue
		}
		if err := q.t.Delete(key); err != nil {
			return nil, v, false, err
		}
		return key, v, true, nil
	}
}

// refill reads the least entries of the table into the empty front.
func (q *dueQueue[V]) refill() error {
	q.front, q.head, q.bounded = q.front[:0], 0, false
	return q.t.Scan(nil, func(k []byte, _ V) (bool, error) {
		if len(q.front) == frontMax/2 {
			q.bound, q.bounded = string(k), true
			return false, nil
		}
		q.front = append(q.front, string(k))
		return true, nil
	})
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}
