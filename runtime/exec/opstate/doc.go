// Package opstate keeps the keyed state of the SQL operators — GROUP BY's
// groups, a join's rows, a window's accumulators, a Top-N's ranking — in
// the state store behind a bounded cache of decoded values. An operator's
// memory is then bounded by its cache, not by the keys it has seen, and
// its state is part of every checkpoint, so that a statement over an input
// that does not end can be stopped, killed and resumed.
//
// # Tiers
//
// A Table keeps up to Options.CacheEntries values decoded in memory, the
// keys used most recently (a CLOCK: a key used since the hand last passed
// it gets a second chance). The others live in the store, in generations
// (see gens.go):
//
//   - the live generation holds what left the cache changed since the last
//     checkpoint: a changed value evicted from the cache, or the marker of
//     a deleted key; when it has taken spillKeys of them it is spilled:
//     kept as a generation, unlisted until the next checkpoint, and a new
//     live one begins, so that an eviction writes into a small tree;
//   - the sealed generations hold the state as of the last checkpoint,
//     newest first; each checkpoint seals the live one.
//
// A read looks in the cache, then in the generations from the newest. A
// checkpoint (Table.Flush) writes the cache's changed values to the live
// generation and lists it, and the spilled ones, among the sealed ones,
// in the checkpoint's transaction: its cost is that of the changes, not
// of the table, and a restart sees the state of its last checkpoint and
// never a value written after it. Open drops the live and spilled
// generations left by a run that stopped before its next checkpoint.
// Compactions merge the newest generations in the background of the
// operator's calls, a bounded batch a transaction, so that reads stay
// about one look-up and memory stays bounded however large the table
// grows.
//
// A caller that keeps the values in a cache of its own (the PTF value
// state) uses a Table for its generations only: it writes its changes as
// packed generations, many keys to a stored value (Run, packed.go), and
// reads with ReadStored (stored.go).
//
// # Keys and order
//
// Keys are bytes compared as bytes. Table.Scan visits the keys with a
// prefix in that order, merging the cache and the generations, so that
// keys built with the store's order-preserving encoding (state.Append…,
// keycodec) give range reads in value order: a window operator keys its windows by their
// end first and fires them with one Scan.
//
// # Values
//
// A Codec encodes a table's values. A value taken from Get is the
// table's own: an operator that changes it in place calls Put (or
// Touch) before it uses the table again, so that the change is written
// at the next checkpoint or eviction.
//
// # Goroutines
//
// A Table belongs to the goroutine of its operator; Flush runs in the
// checkpoint's transaction, on the same goroutine. The store is safe for
// concurrent use, so tables of operators on other goroutines may share it.
package opstate
