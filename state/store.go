package state

import (
	"fmt"
	"strings"
)

// Store holds keyed bytes in namespaces. Implementations: NewMem and
// OpenBolt. A Store is safe for concurrent use by multiple goroutines: any
// number of View transactions may run at once, and Update transactions run
// one at a time.
type Store interface {
	// View runs fn in a read-only transaction. Calls to Put, Delete and
	// DeleteNamespace inside fn return an error wrapping ErrReadOnly. View
	// returns the error fn returns. fn sees the data committed before View
	// began; Updates that commit while fn runs are not visible to it.
	View(fn func(Tx) error) error

	// Update runs fn in a read-write transaction. If fn returns nil, the
	// changes are committed atomically and Update returns the result of the
	// commit. If fn returns an error or panics, nothing fn did becomes
	// visible: the transaction is rolled back and Update returns fn's error
	// unchanged (or lets the panic continue). There is no manual commit.
	Update(fn func(Tx) error) error

	// Close releases the store, waiting for running transactions to finish.
	// View and Update on a closed store return an error wrapping ErrClosed.
	// Closing a closed store does nothing and returns nil.
	Close() error
}

// Tx is a transaction, given to the function passed to Store.View or
// Store.Update. It is valid only until that function returns, and it is not
// safe for concurrent use. Using it afterwards returns an error.
//
// Namespaces are created by the first Put into them and stay until
// DeleteNamespace, even when their last key is deleted. Reading from or
// deleting in a namespace that does not exist is not an error.
type Tx interface {
	// Get returns a copy of the value stored under key in namespace ns, or
	// nil, nil if there is none. A stored empty value is returned as a
	// non-nil empty slice. The caller owns the returned slice.
	Get(ns string, key []byte) ([]byte, error)

	// Put stores value under key in namespace ns, creating the namespace if
	// needed. The key must not be empty. Put copies key and value: the caller
	// may reuse both as soon as Put returns.
	Put(ns string, key, value []byte) error

	// Delete removes key from namespace ns. Deleting an absent key is not an
	// error.
	Delete(ns string, key []byte) error

	// Scan calls fn for each key in namespace ns that starts with prefix, in
	// ascending byte order (bytes.Compare). An empty prefix visits every key.
	// If fn returns an error, Scan stops and returns that error unchanged.
	//
	// The key and value slices passed to fn are valid only until fn returns:
	// Scan reuses them for the next pair. Copy them to keep them. Changing
	// them does not change the store. fn must not change namespace ns (Put,
	// Delete, DeleteNamespace) while the scan runs: such calls return an
	// error. Collect the keys and change them after Scan returns.
	Scan(ns string, prefix []byte, fn func(key, value []byte) error) error

	// ScanFrom is Scan that begins at the first key with the prefix that
	// is not below from: the keys that sort before from are not visited.
	// A reader that reads a namespace in batches, one transaction each,
	// goes on from the key after the last one it saw.
	ScanFrom(ns string, prefix, from []byte, fn func(key, value []byte) error) error

	// DeleteNamespace removes namespace ns and all its keys. Deleting a
	// namespace that does not exist is not an error.
	DeleteNamespace(ns string) error

	// Namespaces returns the names of all namespaces, sorted.
	Namespaces() ([]string, error)
}

// Limits shared by both stores. They are bbolt's (less the header the bbolt
// store adds to each value), enforced by the memory store too so that code
// tested against one behaves the same on the other.
const (
	maxKeySize   = 32 << 10                    // bytes in a key or a namespace name
	maxValueSize = 1<<31 - 2 - valueHeaderSize // bytes in a value
)

// reservedNS begins the names of namespaces that belong to the store itself,
// such as the bbolt store's metadata bucket.
const reservedNS = "__"

// scanBufSize is the initial capacity of the buffers Scan reuses.
const scanBufSize = 64

// Operation names for error messages about writes.
const (
	opPut      = "put in"
	opDelete   = "delete in"
	opDeleteNS = "delete namespace"
)

// checkNamespace reports whether ns may name a namespace.
func checkNamespace(ns string) error {
	switch {
	case ns == "":
		return fmt.Errorf("state: invalid namespace %q: empty name", ns)
	case strings.HasPrefix(ns, reservedNS):
		return fmt.Errorf("state: invalid namespace %q: names beginning with %q are reserved", ns, reservedNS)
	case len(ns) > maxKeySize:
		return fmt.Errorf("state: invalid namespace of %d bytes: longer than %d", len(ns), maxKeySize)
	}
	return nil
}

// checkPut reports whether key and value may be stored in ns.
func checkPut(ns string, key, value []byte) error {
	switch {
	case len(key) == 0:
		return fmt.Errorf("state: put in %q: empty key", ns)
	case len(key) > maxKeySize:
		return fmt.Errorf("state: put in %q: key of %d bytes is longer than %d", ns, len(key), maxKeySize)
	case int64(len(value)) > maxValueSize:
		return fmt.Errorf("state: put in %q: value of %d bytes is longer than %d", ns, len(value), maxValueSize)
	}
	return nil
}

// scanGuard tracks the namespaces being scanned in one transaction, so that
// writes to them can be refused. Both stores embed it.
type scanGuard struct {
	scanning []string // a stack: scans nest when fn scans again
}

func (g *scanGuard) begin(ns string) { g.scanning = append(g.scanning, ns) }
func (g *scanGuard) end()            { g.scanning = g.scanning[:len(g.scanning)-1] }

// check returns an error if ns is being scanned. op names the write.
func (g *scanGuard) check(op, ns string) error {
	for _, s := range g.scanning {
		if s == ns {
			return fmt.Errorf("state: %s %q: namespace is being scanned", op, ns)
		}
	}
	return nil
}

// checkWrite runs the checks every write makes, in the order both stores
// share: transaction done, namespace name, read-only, namespace scanned.
func checkWrite(done, writable bool, g *scanGuard, op, ns string) error {
	if done {
		return errTxDone
	}
	if err := checkNamespace(ns); err != nil {
		return err
	}
	if !writable {
		return fmt.Errorf("state: %s %q: %w", op, ns, ErrReadOnly)
	}
	return g.check(op, ns)
}

// checkRead runs the checks every read makes.
func checkRead(done bool, ns string) error {
	if done {
		return errTxDone
	}
	return checkNamespace(ns)
}
