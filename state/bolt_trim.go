package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Keeping the pages of the state file that the process has touched few.
//
// bbolt reads the file through a memory mapping: every page a transaction
// reads stays in the process's resident memory (RssFile) until the kernel
// needs it back, so a statement whose state outgrows its caches ends up
// with the whole file resident, and deleting a namespace reads every page
// of it at once (bbolt's DeleteBucket frees page by page). Two things
// keep that bounded:
//
//   - trim: after a write transaction or enough reads, when the file's
//     pages resident have grown by trimBudget since the last trim, the store tells the kernel
//     it does not need the mapping's pages (madvise MADV_DONTNEED). The
//     pages stay in the page cache; a later read maps them again.
//   - the trash: DeleteNamespace of a namespace larger than one inline
//     page moves its bucket under __trash (no page read), and the pages
//     are freed afterwards in transactions of purgeBatch keys each, with
//     a trim between two: after the next synchronous Update, and at
//     Close. A file left with trash by a run that stopped is purged when
//     it is opened again. A temporary store (BoltOptions.Temporary),
//     whose file is removed after Close, leaves its trash to the removal.

const (
	// trashBucket holds deleted namespaces until their pages are freed:
	// under an 8-byte big-endian sequence number, a bucket that holds
	// the namespace's bucket under its own name.
	trashBucket = reservedNS + "trash"
	// purgeBatch is how many keys of the trash one transaction deletes.
	purgeBatch = 32 << 10
	// trimBudget is how far the file's pages resident may grow before a
	// trim; trimEvery is how many transactions pass between two looks.
	trimBudget = 24 << 20
	trimEvery  = 256
)

// trimmer is the trimming state of a store.
type trimmer struct {
	count atomic.Int64 // reads, for a look every trimEvery
	mu    sync.Mutex
	base  int64 // the file's pages resident after the last trim
	// trash: the file may hold trash to purge.
	trash atomic.Bool
}

// maybeTrim trims the mapping if the file's pages resident grew by
// trimBudget since the last trim. It looks after every write transaction
// (one that writes evicted keys reads a page of the file for about each)
// and every trimEvery reads.
func (s *boltStore) maybeTrim(writable bool) {
	if !writable && s.trim.count.Add(1)%trimEvery != 0 {
		return
	}
	now, ok := fileResident()
	if !ok {
		return
	}
	s.trim.mu.Lock()
	grown := now-s.trim.base > trimBudget
	s.trim.mu.Unlock()
	if grown {
		s.trimNow()
	}
}

// trimNow gives the mapping's pages back to the kernel. It holds a read
// transaction meanwhile, so that bbolt does not map the file anew.
func (s *boltStore) trimNow() {
	s.trim.mu.Lock()
	defer s.trim.mu.Unlock()
	if s.closed.Load() || s.leaked.Load() {
		return
	}
	var btx *bbolt.Tx
	if err := s.guard(func() (err error) { btx, err = s.db.Begin(false); return err }); err != nil {
		return
	}
	size := btx.Size()
	page := int64(os.Getpagesize())
	size = (size + page - 1) / page * page
	dontNeed(s.db.Info().Data, size)
	_ = s.guard(btx.Rollback)
	if now, ok := fileResident(); ok {
		s.trim.base = now
	}
}

// trashNamespace moves the bucket of namespace ns, which is not inline,
// into the trash, in btx.
func trashNamespace(btx *bbolt.Tx, ns []byte) error {
	trash, err := btx.CreateBucketIfNotExists([]byte(trashBucket))
	if err != nil {
		return err
	}
	var seq uint64
	if k, _ := trash.Cursor().Last(); len(k) == 8 {
		seq = binary.BigEndian.Uint64(k) + 1
	}
	holder, err := trash.CreateBucket(binary.BigEndian.AppendUint64(nil, seq))
	if err != nil {
		return err
	}
	return btx.MoveBucket(ns, nil, holder)
}

// purgeTrash frees the pages of the namespaces in the trash, purgeBatch
// keys a transaction, with a trim after each.
func (s *boltStore) purgeTrash() error {
	if !s.trim.trash.Load() {
		return nil
	}
	for {
		done := false
		err := s.txn(true, func(btx *bbolt.Tx) error {
			return s.guard(func() error {
				var err error
				done, err = purgeSome(btx)
				return err
			})
		})
		if err != nil {
			return fmt.Errorf("state: free deleted namespaces: %w", err)
		}
		s.trimNow()
		if done {
			s.trim.trash.Store(false)
			return nil
		}
	}
}

// purgeSome deletes up to purgeBatch keys of the trash in btx, or a whole
// namespace of the trash that has no more; done: the trash is gone.
func purgeSome(btx *bbolt.Tx) (done bool, err error) {
	trash := btx.Bucket([]byte(trashBucket))
	if trash == nil {
		return true, nil
	}
	seq, _ := trash.Cursor().First()
	if seq == nil {
		return true, btx.DeleteBucket([]byte(trashBucket))
	}
	seq = bytes.Clone(seq)
	holder := trash.Bucket(seq)
	var b *bbolt.Bucket
	if holder != nil {
		if name, _ := holder.Cursor().First(); name != nil {
			b = holder.Bucket(name)
		}
	}
	if b == nil {
		return false, trash.DeleteBucket(seq)
	}
	keys := make([][]byte, 0, 1024)
	c := b.Cursor()
	k, _ := c.First()
	for ; k != nil && len(keys) < purgeBatch; k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	if k == nil {
		// What is left is one batch at most: its pages go at once.
		return false, trash.DeleteBucket(seq)
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return false, err
		}
	}
	return false, nil
}

// deleteBucket deletes namespace ns in btx: at once when its bucket is
// inline (a page at most), else into the trash.
func deleteBucket(btx *bbolt.Tx, ns []byte) (trashed bool, err error) {
	b := btx.Bucket(ns)
	if b == nil {
		return false, nil
	}
	if b.Root() == 0 {
		err := btx.DeleteBucket(ns)
		if errors.Is(err, berrors.ErrBucketNotFound) {
			err = nil
		}
		return false, err
	}
	return true, trashNamespace(btx, ns)
}
