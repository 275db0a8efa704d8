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

UpdateAsync runs its function at once but may leave the commit to a
goroutine (the bbolt store does: buffered writes into bbolt's pages, the
commit and the fsync), returning a Commit whose Wait says when, and
whether, it committed. Until then the store's other writers wait for it,
and its readers see its writes. Inside its function, Defer hands work on
to that goroutine, to run in the transaction before the commit (a
checkpoint's sorting and packing of what it took from memory).

A namespace holds the keys of one piece of state, such as one state entry of
one function uid. It is created by the first Put into it and removed by
DeleteNamespace. Names must not be empty and must not begin with "__", which
the store keeps for itself.

# Keys

Keys are compared as bytes, and Scan visits them in that order. The Append
functions of internal/orderedcode (AppendString, AppendInt64, …) build keys
from tuples of values so that byte order matches the values' order and a
tuple's encoding is a prefix of every longer tuple that starts with it:
scanning with the encoded partition key visits exactly that partition's
entries, in order. Its Decoder reads such a key back, and describes one in
an error (DescribeKey).

# Files

OpenBolt keeps one bbolt bucket per namespace, plus a bucket "__meta" that
holds the file's format version (FormatVersion). From format version 2 on,
every value, the version included, is stored behind a 5-byte header: a
format byte and a CRC-32C of the namespace, the key, the format byte and the
value. A value that changed, or that turns up under another key or in
another namespace, fails it.

The file is locked while open: a second OpenBolt, from this process or
another, waits for BoltOptions.Timeout and then fails with ErrInUse.

Only a missing file is created. Of a file that exists, every page in use is
read, before bbolt reads any and before anything is written to the file,
and must pass these checks: both meta pages pass bbolt's checksum; the file is as long as they
say; every page that the root reaches has its own id and a known type, is
reached once and is not also on the freelist (so there are no cycles and no
freed pages with old values), and holds its elements as bbolt lays them out
(so no element count, offset or size changed); keys ascend and branch pages
lead lookups to them; the freelist lists pages in range, once each; and
every value passes its checksum. A file that is empty (0 bytes), is not a
state file, or is truncated or damaged anywhere fails with an error wrapping
ErrCorrupt; one written by a newer ptfsh fails with ErrVersion. In both
cases the file is left as it was, and unlocked. Opening takes time in
proportion to the size of the state (BenchmarkOpenBolt measures it).

Errors say where the damage is: the file, the namespace (with the function
uid and the state name, for the namespaces runtime makes) and the key, or,
for damage between keys, the page and the last good key before it:

	state file s.db is corrupt: state "counter" of function uid "count" (namespace "state/count/counter"), key ("alice"): the stored value fails its checksum

Get and Scan check each value's checksum again as they read it, and Scan
checks that keys ascend, so damage done to the file while it is open is
found too: the transaction fails with ErrCorrupt and is rolled back. When
bbolt panics as a transaction begins, commits or rolls back, its own state
may be wrong: every later transaction of the store fails with the same
error, and Close releases the file without waiting for bbolt.

A file of format version 1, whose values have no header, is read as it is
when opened with ReadOnly, and rewritten in the current format, in one
transaction, when opened for writing. Damage its values took before that
cannot be found; damage to its structure can.

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

Keys are at most 32 KiB and must not be empty; values are at most 2 GiB - 7
bytes. These are bbolt's limits less the value header, and the memory store
enforces them too.

What the checks of a state file cannot find: a value and its checksum
replaced together on purpose (CRC-32C guards against accidents, not against
edits); a whole file replaced by an older copy of itself; pages that are
neither reached nor free, which hold nothing that can be read. A meta page
that fails its checksum makes OpenBolt refuse the file, although bbolt would
fall back to the other meta page: that one holds the commit before the last,
and going back a commit without a word is what the checks are for. Only
OpenBolt checks the structure of the file: damage to it while a store has
the file open is found when bbolt trips over it, with bbolt's message
instead of a key, and a page damaged to point back at a page above it could
make a lookup recurse until the process fails.

A Tx does not let its function change the namespace it is scanning; collect
the keys and change them after Scan returns.
*/
package state
