package state

import (
	"bytes"
	"fmt"
	"sync"

	"go.etcd.io/bbolt"
)

// Committing in the background (UpdateAsync) on the bbolt store.
//
// fn runs at once, in a bbolt write transaction whose writes boltTx buffers
// by namespace. Putting them into bbolt's pages, the commit and its fsync,
// which take most of a large transaction's time, then run on a goroutine:
// the bbolt.Tx is handed to it whole (a bbolt.Tx may move between
// goroutines; it is never used by two at once), and bbolt's writer lock
// keeps other writers out until it is over. Update, UpdateAsync and Close
// wait for it (settle), so that transactions still commit one at a time.
//
// Work that fn handed on with Defer runs first on that goroutine, in the
// same transaction, before its writes are put into bbolt's pages; a View
// waits for it (Commit.deferred), since it adds to the buffered writes.
//
// A View does not wait when it can read the transaction in flight (over):
// its buffered writes, which no one changes once the deferred work is
// done, answer first;
// other keys come from bbolt's last commit. Applying the buffered writes to
// the store before the commit gives what the commit gives, and applying
// them again after it changes nothing, so the answers are those of the
// committed store whichever commit bbolt's snapshot shows. A View waits for
// the commit after all (dropOver) when the buffered writes cannot answer:
// a namespace the transaction deleted or scanned after writing to it
// (mixed), a Scan of a namespace it wrote to, and Namespaces.

// UpdateAsync implements AsyncUpdater.
func (s *boltStore) UpdateAsync(fn func(Tx) error) (c *Commit, err error) {
	if s.closed.Load() {
		return nil, fmt.Errorf("state: update: %w", ErrClosed)
	}
	if s.readOnly {
		return nil, fmt.Errorf("state: update %s: %w", s.name(), ErrReadOnly)
	}
	btx, err := s.begin(true)
	if err != nil {
		return nil, err
	}
	handed := false
	t := &boltTx{s: s, tx: btx, writable: true, async: true}
	defer func() {
		if !handed {
			if len(t.later) > 0 { // they run once, whatever happens
				t.done = false
				_ = t.runLater()
				t.done = true
			}
			err = s.rollback(btx, err)
			s.writerEnds()
		}
	}()
	func() {
		defer func() { t.done = true }()
		err = fn(t)
	}()
	if err != nil {
		return nil, err
	}
	t.keep = true // Views read the buffered writes while they go in
	c = &Commit{done: make(chan struct{}), tx: t, id: btx.ID()}
	if len(t.later) > 0 {
		c.deferred = make(chan struct{})
	} else {
		t.async = false
	}
	s.inflight.Store(c)
	handed = true
	go func() {
		defer func() {
			s.writerEnds()
			s.inflight.CompareAndSwap(c, nil)
			close(c.done)
			// The writes go with the last View that reads them: the
			// caller may keep c until its next transaction.
			s.overMu.Lock()
			if s.overViews == 0 {
				c.tx = nil
			}
			s.overMu.Unlock()
		}()
		var err error
		if c.deferred != nil {
			t.done = false
			err = t.runLater()
			t.done = true
			close(c.deferred)
		}
		if beforeAsyncCommit != nil && err == nil {
			err = beforeAsyncCommit()
		}
		if err == nil {
			err = t.flushAll()
		}
		if err == nil {
			// fn may have ignored an error from a damaged page.
			err = t.corrupt
		}
		if err == nil {
			if err = s.commit(btx); err == nil {
				return
			}
		}
		c.err = s.rollback(btx, err)
	}()
	return c, nil
}

// settle waits for the commit of the last UpdateAsync, if it is still
// running. Its outcome is for the caller of UpdateAsync: a failed commit
// left the store as it was before it.
func (s *boltStore) settle() {
	if c := s.inflight.Load(); c != nil {
		<-c.done
		s.inflight.CompareAndSwap(c, nil)
	}
}

// viewOver runs fn in a read-only transaction while c may be in flight.
// Until it ends, no writer begins (waitOverViews): if the View has to
// wait for c after all (dropOver), its next snapshot is c's commit and
// no later one.
func (s *boltStore) viewOver(c *Commit, fn func(Tx) error) (err error) {
	if c.deferred != nil {
		<-c.deferred // the buffered writes are complete
	}
	s.overMu.Lock()
	select {
	case <-c.done:
		s.overMu.Unlock()
		return s.txn(false, func(btx *bbolt.Tx) error {
			t := &boltTx{s: s, tx: btx}
			defer func() { t.done = true }()
			return fn(t)
		})
	default:
	}
	s.overViews++
	s.overMu.Unlock()
	defer func() {
		s.overMu.Lock()
		if s.overViews--; s.overViews == 0 {
			if s.overDone != nil {
				s.overDone.Broadcast()
			}
			select {
			case <-c.done:
				c.tx = nil // see UpdateAsync
			default:
			}
		}
		s.overMu.Unlock()
	}()
	btx, err := s.beginNow(false)
	if err != nil {
		return err
	}
	t := &boltTx{s: s, tx: btx, over: c}
	if btx.ID() >= c.id {
		t.over = nil // the snapshot holds c's commit
	}
	defer func() {
		t.done = true
		if t.tx != nil {
			err = s.rollback(t.tx, err)
		}
	}()
	return fn(t)
}

// waitOverViews waits until no View reads over a transaction in flight.
// Writers call it after settle: the transaction is over, and a View that
// starts now sees it done and reads bbolt alone.
func (s *boltStore) waitOverViews() {
	s.overMu.Lock()
	for s.overViews > 0 {
		if s.overDone == nil {
			s.overDone = sync.NewCond(&s.overMu)
		}
		s.overDone.Wait()
	}
	s.overMu.Unlock()
}

// overGet reads key from the writes of the transaction in flight: found
// says whether they hold it (v nil: deleted).
func (t *boltTx) overGet(ns string, key []byte) (v []byte, found bool, err error) {
	pt := t.over.tx
	if pt.mixed[ns] {
		return nil, false, t.dropOver()
	}
	sp := pt.lookup(ns)
	if sp == nil {
		return nil, false, nil
	}
	stored, ok := sp.buffered(key)
	if !ok {
		return nil, false, nil
	}
	if stored == nil {
		return nil, true, nil
	}
	return bytes.Clone(stored[valueHeaderSize:]), true, nil
}

// overScan makes ready for a Scan of ns: a namespace the transaction in
// flight wrote to is read after its commit.
func (t *boltTx) overScan(ns string) error {
	pt := t.over.tx
	if sp := pt.lookup(ns); pt.mixed[ns] || (sp != nil && sp.pending()) {
		return t.dropOver()
	}
	return nil
}

// dropOver ends the View's snapshot, waits for the commit in flight and
// goes on in a new snapshot, which holds it. Nothing the View read so far
// changes: it read what the commit holds.
func (t *boltTx) dropOver() error {
	c := t.over
	t.over = nil
	err := t.s.rollback(t.tx, nil)
	t.tx, t.first, t.spaces = nil, nil, nil
	if err != nil {
		t.done = true
		return err
	}
	<-c.done
	btx, err := t.s.begin(false)
	if err != nil {
		t.done = true // no snapshot left to read
		return err
	}
	t.tx = btx
	return nil
}

// markMixed records that not all of ns's writes are buffered any more.
func (t *boltTx) markMixed(ns string) {
	if t.mixed == nil {
		t.mixed = map[string]bool{}
	}
	t.mixed[ns] = true
}
