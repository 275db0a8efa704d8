package state

import (
	"fmt"
	"os"
	"time"
)

// Commit is a transaction that UpdateAsync has handed on: its writes are
// made, and its commit (with the file's fsync) may still be running.
type Commit struct {
	done chan struct{}
	err  error
	// deferred is closed when the functions Defer handed on have run
	// (nil: there were none): until then the buffered writes may grow,
	// and a View waits before it reads them.
	deferred chan struct{}
	// The bbolt store's transaction in flight (bolt_async.go): its
	// buffered writes, which Views read first (nil once the commit is
	// over and no View reads them; guarded by the store's overMu), and
	// bbolt's id for it.
	tx *boltTx
	id int
}

// Wait blocks until the commit is over and returns its error: nil once the
// transaction is committed, and durable if the store syncs. Wait may be
// called any number of times, from any goroutine.
func (c *Commit) Wait() error {
	<-c.done
	return c.err
}

// committed is the Commit of a transaction already committed.
var committed = func() *Commit {
	c := &Commit{done: make(chan struct{})}
	close(c.done)
	return c
}()

// AsyncUpdater is a Store that can commit in the background: the bbolt
// store is one. UpdateAsync is the way to use it.
type AsyncUpdater interface {
	// UpdateAsync is the function UpdateAsync for this store.
	UpdateAsync(fn func(Tx) error) (*Commit, error)
}

// NewCommit returns a Commit in flight, for an AsyncUpdater outside this
// package (a test's), and the function that ends it with err. Call end
// once.
func NewCommit() (c *Commit, end func(err error)) {
	c = &Commit{done: make(chan struct{})}
	return c, func(err error) {
		c.err = err
		close(c.done)
	}
}

// UpdateAsync runs fn in a read-write transaction, as Store.Update does,
// but may return before the transaction has committed: the bbolt store
// applies fn's writes to its file, commits and syncs on a goroutine, so
// that the caller goes on working meanwhile; other stores commit before
// UpdateAsync returns. If fn returns an error or panics, nothing is
// committed and UpdateAsync returns that error (or lets the panic go on)
// with a nil Commit.
//
// The transaction counts only once Commit.Wait returns nil: it may still
// fail (a full disk), and a process killed before leaves the store as it
// was before the transaction. Until the commit is over, every View, Update,
// UpdateAsync and Close of the store waits for it, so that every reader sees
// the transaction's writes and transactions still commit one at a time.
func UpdateAsync(st Store, fn func(Tx) error) (*Commit, error) {
	if a, ok := st.(AsyncUpdater); ok {
		return a.UpdateAsync(fn)
	}
	if err := st.Update(fn); err != nil {
		return nil, err
	}
	return committed, nil
}

// Deferred reports whether Defer(tx, fn) would hand fn on instead of
// running it at once: tx is the transaction of an UpdateAsync that commits
// in the background, and its function has not returned.
func Deferred(tx Tx) bool {
	d, ok := tx.(deferrer)
	return ok && d.deferring()
}

// Defer hands fn on to run in tx after the function given to UpdateAsync
// has returned, on the goroutine that then commits tx, before the commit:
// work of a transaction that the caller need not wait for (encoding and
// writing what it took from memory while it goes on). In any other
// transaction (Deferred is false) fn runs now, and Defer returns its
// error. A deferred fn runs exactly once, in the order given, even when
// the transaction fails before its commit (its writes are then rolled
// back), so that it may release what it holds; its error fails the
// commit (Commit.Wait). A deferred fn must not wait for anything the
// caller of UpdateAsync holds: it runs while the caller goes on, and
// until the deferred functions have run, a View of the store waits for
// them.
func Defer(tx Tx, fn func(Tx) error) error {
	if d, ok := tx.(deferrer); ok && d.deferring() {
		d.deferFn(fn)
		return nil
	}
	return fn(tx)
}

// deferrer is a Tx that can hand work on to its commit (Defer).
type deferrer interface {
	deferring() bool
	deferFn(fn func(Tx) error)
}

// asyncPause, set at link time (go build -ldflags "-X
// github.com/ptfsh/ptfsh/state.asyncPause=300ms"), makes every background
// commit write "state: commit in flight" to stderr and wait that long
// before it starts: the crash tests use it to kill a process while a
// commit is in flight. It is empty in every other build.
var asyncPause string

// beforeAsyncCommit, if not nil, runs on the goroutine of each background
// commit before the commit starts; an error it returns fails the commit.
// It is a hook for tests (and asyncPause).
var beforeAsyncCommit func() error

func init() {
	if asyncPause == "" {
		return
	}
	d, err := time.ParseDuration(asyncPause)
	if err != nil {
		panic(fmt.Sprintf("state: asyncPause %q: %v", asyncPause, err))
	}
	beforeAsyncCommit = func() error {
		fmt.Fprintln(os.Stderr, "state: commit in flight")
		time.Sleep(d)
		return nil
	}
}
