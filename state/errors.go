package state

import "errors"

// These errors are returned by stores and transactions. Check for them with
// errors.Is: they usually arrive wrapped in context, such as the namespace or
// the path of the state file.
var (
	// ErrClosed is returned by View and Update on a store that has been closed.
	ErrClosed = errors.New("state store is closed")

	// ErrReadOnly is returned when a transaction started by View tries to
	// change data (Put, Delete, DeleteNamespace), and by Update on a store
	// opened with BoltOptions.ReadOnly.
	ErrReadOnly = errors.New("state is read-only")

	// ErrInUse is returned by OpenBolt when another process (or another
	// OpenBolt in this one) holds the state file and the lock could not be
	// taken within BoltOptions.Timeout. The message names the file:
	// "state file PATH is in use by another process".
	ErrInUse = errors.New("state file is in use by another process")

	// ErrCorrupt is returned when a state file is empty, is not a state
	// file, is truncated or is damaged. OpenBolt reads the whole file and
	// refuses it, without writing to it; Get and Scan check every value they
	// read, and the transaction that finds damage fails with this error and
	// is rolled back. The message names the file and, where it can, the
	// namespace and the key: "state file PATH is corrupt: state "counter" of
	// function uid "count" (namespace "state/count/counter"), key ("alice"):
	// the stored value fails its checksum".
	ErrCorrupt = errors.New("state file is corrupt")

	// ErrVersion is returned by OpenBolt for a state file written with a
	// newer format version than this build of ptfsh supports.
	ErrVersion = errors.New("state file has an unsupported format version")
)

// errTxDone reports a Tx used after the function it was passed to returned.
// That is a programming error rather than a condition callers branch on, so
// it is not exported.
var errTxDone = errors.New("state: transaction used after its function returned")

// fileError is an error about a state file. Its message starts with
// "state file PATH" (or the store's label), so the sentinel it wraps does
// not repeat in the text.
type fileError struct {
	path  string
	label string // BoltOptions.Label
	msg   string // what is wrong, after the path: "is corrupt"
	kind  error  // ErrInUse, ErrCorrupt or ErrVersion
	cause error  // optional underlying error
}

func (e *fileError) Error() string {
	s := "state file " + e.path + " " + e.msg
	if e.label != "" {
		s = e.label + " " + e.msg
	}
	if e.cause != nil {
		s += ": " + e.cause.Error()
	}
	return s
}

func (e *fileError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}
