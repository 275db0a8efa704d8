package opstate

// A table without its cache: for a caller that keeps the table's values
// in a cache of its own (the PTF operator's value state, whose live
// values are the function's objects) and uses the table for its
// generations only. Such a caller writes its changes as packed
// generations (Run, packed.go), reads with ReadStored, lists what it
// wrote with Flush, and calls Compact now and then; it never calls Get,
// Put, Delete or Scan, so that the table's cache stays empty.

// ReadStored returns the value under key in the newest generation that
// holds it, without caching it; found is false for a key never written
// or deleted. It goes on with a compaction under way first, one batch, as
// Get does. It opens transactions of its own: the caller must not be
// inside one.
func (t *Table[V]) ReadStored(key []byte) (v V, found bool, err error) {
	if !t.MayHold() {
		return v, false, nil
	}
	if err := t.compactSome(); err != nil {
		return v, false, err
	}
	return t.read(key)
}

// Compact goes on with a compaction under way, one batch, or begins one
// if the generations call for it, as Get and Put do: for a caller that
// reads the generations seldom. It opens transactions of its own.
func (t *Table[V]) Compact() error { return t.compactSome() }

// Compacting reports whether Compact has work to do: a compaction under
// way, generations that changed since the last look for one, or those a
// snapshot replaced to delete.
func (t *Table[V]) Compacting() bool {
	return t.comp != nil || (t.replan || len(t.dropped) > 0) && t.scanning == 0
}

// MayHold reports whether a generation may hold keys: false for a table
// that has written nothing, whose reads then cost nothing.
func (t *Table[V]) MayHold() bool { return t.stored || t.liveKeys > 0 }
