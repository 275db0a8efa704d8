package ptf

import (
	"errors"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// List and map state: Flink's ListView and MapView.
//
// A state entry declared with kind list (type ARRAY<T>) or map (type
// MAP<K, V>) is not kept live as one value: its elements and entries are
// read and written one at a time through the state store, so that it can
// outgrow memory. Reads see the changes of the current checkpoint interval
// first (a write overlay), then the store; writes go to the overlay and
// reach the store at the next checkpoint, in its transaction. Values are
// runtime values (value.go) of the declared element, key and value types.
//
// A state entry's TTL applies to each element of a list and to each entry
// of a map, counted from the processing time it was written at: an expired
// element or entry is never returned and is removed at a checkpoint.
//
// ClearState on a list or map entry empties it when the call returns, as it
// does for value state; Clear empties it at once.

// Errors of list and map state with Flink's messages; a PTF may branch on them.
var (
	// ErrNullElement reports a NULL added to a list.
	ErrNullElement = errors.New("List views don't support null values.")
	// ErrNullKey reports a NULL key put into a map.
	ErrNullKey = errors.New("Map views don't support null keys.")
)

// ListView is list-state entry i of the current call's partition key. It
// is valid only during the call it was taken in.
type ListView struct {
	h Host
	i int
}

// List returns list-state entry i (a state declaration index) of the
// current key. Its methods fail if entry i is not a list.
func (c *Context) List(i int) ListView { return ListView{c.h, i} }

// Size returns the number of elements.
func (l ListView) Size() (int, error) { return l.h.ListSize(l.i) }

// Get returns the element at index (0-based); an index out of range is an
// error.
func (l ListView) Get(index int) (any, error) {
	vs, err := l.h.ListSlice(l.i, index, 1)
	if err != nil {
		return nil, err
	}
	if index < 0 || len(vs) == 0 {
		n, _ := l.h.ListSize(l.i)
		return nil, &IndexError{Index: index, Size: n}
	}
	return vs[0], nil
}

// Slice returns up to max elements from index from on: fewer at the end of
// the list, none beyond it. It reads the store once, so iterating with it
// in batches is cheaper than Get per element.
func (l ListView) Slice(from, max int) ([]any, error) { return l.h.ListSlice(l.i, from, max) }

// Add appends v; a NULL is ErrNullElement.
func (l ListView) Add(v any) error { return l.h.ListAdd(l.i, []any{v}) }

// AddAll appends vs in order. If one of them is NULL it adds none and
// returns ErrNullElement.
func (l ListView) AddAll(vs []any) error { return l.h.ListAdd(l.i, vs) }

// Clear removes every element at once.
func (l ListView) Clear() error { return l.h.ListClear(l.i) }

// Range calls fn for each element in order until fn returns false.
// Elements added while it runs are visited too; fn may use the list.
func (l ListView) Range(fn func(index int, v any) bool) error {
	const batch = 256
	for i := 0; ; {
		vs, err := l.h.ListSlice(l.i, i, batch)
		if err != nil || len(vs) == 0 {
			return err
		}
		for _, v := range vs {
			if !fn(i, v) {
				return nil
			}
			i++
		}
	}
}

// IndexError reports a list index out of range.
type IndexError struct {
	Index, Size int
}

func (e *IndexError) Error() string {
	return "list index " + strconv.Itoa(e.Index) + " out of range (size " + strconv.Itoa(e.Size) + ")"
}

// MapView is map-state entry i of the current call's partition key. It is
// valid only during the call it was taken in. Its entries are kept in key
// order: the order of the store's key encoding (numbers by value, strings
// by their UTF-8 bytes, NULL-free since keys cannot be NULL).
type MapView struct {
	h Host
	i int
}

// Map returns map-state entry i (a state declaration index) of the current
// key. Its methods fail if entry i is not a map.
func (c *Context) Map(i int) MapView { return MapView{c.h, i} }

// Get returns the value of key k and whether the map has k (a NULL value
// is found with a nil value).
func (m MapView) Get(k any) (any, bool, error) { return m.h.MapGet(m.i, k) }

// Contains reports whether the map has key k.
func (m MapView) Contains(k any) (bool, error) {
	_, ok, err := m.h.MapGet(m.i, k)
	return ok, err
}

// Put sets the value of key k; a NULL key is ErrNullKey, a NULL value is
// allowed.
func (m MapView) Put(k, v any) error { return m.h.MapPut(m.i, []any{k}, []any{v}) }

// PutAll puts every entry of entries in order. If one of its keys is NULL
// it puts none and returns ErrNullKey.
func (m MapView) PutAll(entries *types.Map) error {
	if entries == nil {
		return nil
	}
	return m.h.MapPut(m.i, entries.Keys, entries.Values)
}

// Remove removes key k; removing an absent key does nothing.
func (m MapView) Remove(k any) error { return m.h.MapRemove(m.i, k) }

// Clear removes every entry at once.
func (m MapView) Clear() error { return m.h.MapClear(m.i) }

// Size returns the number of entries. It reads them all.
func (m MapView) Size() (int, error) {
	n := 0
	err := m.Range(func(_, _ any) bool { n++; return true })
	return n, err
}

// IsEmpty reports whether the map has no entries.
func (m MapView) IsEmpty() (bool, error) {
	empty := true
	err := m.Range(func(_, _ any) bool { empty = false; return false })
	return empty, err
}

// Range calls fn for each entry in key order until fn returns false. fn may
// use the map: an entry put after the current key is visited, one removed
// before it is reached is not.
func (m MapView) Range(fn func(k, v any) bool) error {
	it, err := m.Iterator()
	if err != nil {
		return err
	}
	defer it.Close()
	for {
		k, v, ok, err := it.Next()
		if err != nil || !ok {
			return err
		}
		if !fn(k, v) {
			return nil
		}
	}
}

// Iterator returns an iterator over the entries in key order, for callers
// that pull entries one at a time (a JavaScript for..of). Close it when
// done; the runtime closes those left open when the call returns.
func (m MapView) Iterator() (*MapIterator, error) {
	c, err := m.h.MapIter(m.i)
	if err != nil {
		return nil, err
	}
	return &MapIterator{c: c}, nil
}

// MapIterator pulls the entries of a MapView in key order.
type MapIterator struct {
	c MapCursor
}

// Next returns the next entry; ok is false at the end.
func (it *MapIterator) Next() (k, v any, ok bool, err error) { return it.c.Next() }

// Close releases the iterator; Next then reports the end.
func (it *MapIterator) Close() { it.c.Close() }

// MapCursor is the host's side of a MapIterator.
type MapCursor interface {
	Next() (k, v any, ok bool, err error)
	Close()
}
