/*
Package state stores the keyed state of Process Table Functions: bytes under
byte keys, grouped in namespaces, read and written in transactions. It knows
nothing about rows, types or JavaScript; runtime decides what the bytes mean.

# Basics

A Store is opened with NewMem (in memory, for tests and for runs that need no
file) or OpenBolt (a bbolt file that outlives the process). Both behave the
same way, and the package statetest checks that they do.

All access goes through transactions, modelled on bbolt's managed ones.
Store.View runs a function in a read-only transaction; Store.Update runs one
in a read-write transaction that commits when the function returns nil and
rolls back, leaving nothing behind, when it returns an error or panics.
There is no Commit or Rollback to call.

	err := st.Update(func(tx state.Tx) error {
		return tx.Put("sessionize/count", key, value)
	})

A namespace holds the keys of one piece of state, such as one state entry of
one function uid. It is created by the first Put into it and removed by
DeleteNamespace. Names must not be empty and must not begin with "__", which
the store keeps for itself.

# Keys

Keys are compared as bytes, and Scan visits them in that order. The Append
functions (AppendString, AppendInt64, …) build keys from tuples of values so
that byte order matches the values' order and a tuple's encoding is a prefix
of every longer tuple that starts with it: scanning with the encoded
partition key visits exactly that partition's entries, in order. A Decoder
reads such a key back. The format is described in encode.go.

# Files

OpenBolt keeps one bbolt bucket per namespace, plus a bucket "__meta" that
holds the file's format version (FormatVersion). The file is locked while
open: a second OpenBolt, from this process or another, waits for
BoltOptions.Timeout and then fails with ErrInUse. A file that is not a state
file, is truncated or is damaged fails with ErrCorrupt, and one written by a
newer ptfsh with ErrVersion; OpenBolt does not write to such files. It checks
the meta pages, the freelist, the file's length and the format version, not
every page: damage deeper in the file is found when a transaction reads it, and
that transaction then fails with ErrCorrupt and is rolled back.

Each Update is one bbolt transaction, which waits for the disk when it commits
unless BoltOptions.NoSync is set: group the writes of a batch of rows into one Update rather than
running one per row. An Update buffers its writes and hands them to bbolt in
key order when it commits (or before a Scan of the namespace), which keeps a
large batch of new keys cheap whatever order they arrive in.

# Caveats

A Store is safe for concurrent use; a Tx is not, and it is valid only while
the function it was passed to runs.

Slices returned by Get are copies that the caller owns. The key and value
slices Scan passes to its function are valid only during that call, since
Scan reuses them. Put copies its arguments, so the caller may reuse them at
once.

Do not start a transaction inside another one's function on the same
goroutine: an Update inside an Update deadlocks, as in bbolt, and a View
inside a View can deadlock while an Update waits.

Keys are at most 32 KiB and must not be empty; values are at most 2 GiB - 2
bytes. These are bbolt's limits, and the memory store enforces them too.

A Tx does not let its function change the namespace it is scanning; collect
the keys and change them after Scan returns.
*/
package state
