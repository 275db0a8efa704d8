package state

// Reading from one snapshot while nothing writes.
//
// A View of one key (a PTF reading the state of a key its cache let go of)
// spends about half its time beginning and ending bbolt's read transaction
// and finding the namespace's bucket. While no write transaction is open,
// the store keeps one read transaction, the snapshot, and runs Views in it
// one at a time, with the buckets found so far. A writer closes it before
// it begins (and no snapshot opens until the writer is over, its commit in
// the background included), so a View in the snapshot sees every commit
// before it; bbolt needs that too: a commit that grows the file maps it
// anew once no read transaction is open. A View that finds the snapshot
// in use (another goroutine's View, or a View inside a View) runs in a
// transaction of its own, as without the snapshot.

// writerBegins closes the snapshot and keeps it closed until writerEnds.
func (s *boltStore) writerBegins() {
	s.snapMu.Lock()
	s.writers++
	s.closeSnap()
	s.snapMu.Unlock()
}

// writerEnds says that a write transaction is over.
func (s *boltStore) writerEnds() {
	s.snapMu.Lock()
	s.writers--
	s.snapMu.Unlock()
}

// closeSnap ends the snapshot. Call it with snapMu held.
func (s *boltStore) closeSnap() {
	if s.snap == nil {
		return
	}
	_ = s.rollback(s.snap, nil)
	s.snap, s.snapNS = nil, nil
}

// viewSnap runs fn in the snapshot if it can: ok is false if it did not
// run fn.
func (s *boltStore) viewSnap(fn func(Tx) error) (err error, ok bool) {
	if !s.snapMu.TryLock() {
		return nil, false
	}
	defer s.snapMu.Unlock()
	if s.writers > 0 || s.closed.Load() {
		return nil, false
	}
	if s.snap == nil {
		btx, err := s.beginNow(false)
		if err != nil {
			return err, true
		}
		s.snap, s.snapNS = btx, map[string]*boltNS{}
	}
	t := &boltTx{s: s, tx: s.snap, spaces: s.snapNS}
	defer func() {
		t.done = true
		if t.corrupt != nil {
			s.closeSnap() // begin afresh after damage
		}
	}()
	return fn(t), true
}
