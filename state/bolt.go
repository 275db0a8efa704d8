package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// This is the only file that imports bbolt: the rest of ptfsh sees Store and
// Tx, so bbolt's rules (slices valid only inside a transaction, values that
// must outlive Put, panics on damaged pages) stay here.

// The bbolt store's own metadata lives in a bucket that Namespaces hides.
const (
	metaBucket = reservedNS + "meta" // "__meta"
	versionKey = "version"           // big-endian uint32 in metaBucket
)

// FormatVersion is the version of the state file format this build of ptfsh
// writes. OpenBolt reads files of this version or older, and refuses newer
// ones with ErrVersion.
const FormatVersion uint32 = 1

// DefaultBoltTimeout is how long OpenBolt waits for the file lock when
// BoltOptions.Timeout is zero.
const DefaultBoltTimeout = time.Second

// Our limits must be bbolt's.
const (
	_ = uint(bbolt.MaxKeySize-maxKeySize) + uint(maxKeySize-bbolt.MaxKeySize)
	_ = uint(bbolt.MaxValueSize-maxValueSize) + uint(maxValueSize-bbolt.MaxValueSize)
)

// BoltOptions configures OpenBolt. The zero value is ready to use.
type BoltOptions struct {
	// Timeout is how long to wait for the lock on the file, which another
	// process may hold. Zero means DefaultBoltTimeout; a negative value means
	// no waiting at all beyond one attempt.
	Timeout time.Duration

	// NoSync skips fsync after each commit. It is faster, but a crash of the
	// machine (not only of the process) can lose or corrupt recent commits.
	NoSync bool

	// ReadOnly opens the file for reading only, with a shared lock: several
	// read-only stores may use one file, but not while a read-write store
	// holds it. Update returns ErrReadOnly. The file must already exist.
	ReadOnly bool
}

// OpenBolt opens the state file at path, creating it if it does not exist or
// is empty, and returns a Store backed by it, with one bbolt bucket per
// namespace. Close the store to release the file.
//
// OpenBolt checks the file before it writes anything to it: a file held by
// another process gives an error wrapping ErrInUse, a file that is not a
// state file, or is truncated or damaged, gives one wrapping ErrCorrupt, and
// a file of a newer format version gives one wrapping ErrVersion. In all
// three cases the file is left untouched.
func OpenBolt(path string, opts BoltOptions) (Store, error) {
	timeout := opts.Timeout
	switch {
	case timeout == 0:
		timeout = DefaultBoltTimeout
	case timeout < 0:
		// bbolt waits forever for 0; any positive timeout shorter than its
		// 50ms retry interval gives up after the first attempt.
		timeout = time.Nanosecond
	}

	info, err := os.Stat(path)
	exists := err == nil && info.Size() > 0
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("state: open %s: is a directory", path)
	}
	if opts.ReadOnly && !exists {
		if err == nil {
			err = errors.New("file is empty")
		}
		return nil, fmt.Errorf("state: open %s read-only: %w", path, err)
	}

	if exists {
		// Validate with a read-only open first: it takes a shared lock and
		// never writes, while a read-write open may write to the file (bbolt
		// rewrites a missing freelist) before we could look at it.
		// PreLoadFreelist makes it read the freelist page too.
		s, err := openBolt(path, &bbolt.Options{Timeout: timeout, ReadOnly: true, PreLoadFreelist: true})
		if err != nil {
			return nil, err
		}
		if _, err := s.validate(); err != nil {
			s.db.Close()
			return nil, err
		}
		if opts.ReadOnly {
			return s, nil
		}
		if err := s.db.Close(); err != nil {
			return nil, fmt.Errorf("state: open %s: %w", path, err)
		}
	}

	s, err := openBolt(path, &bbolt.Options{Timeout: timeout, NoSync: opts.NoSync})
	if err != nil {
		return nil, err
	}
	// Validate again: the file may have changed between the two opens, or
	// been created by another process after os.Stat.
	fresh, err := s.validate()
	if err == nil && fresh {
		err = s.db.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte(metaBucket))
			if err != nil {
				return err
			}
			return b.Put([]byte(versionKey), binary.BigEndian.AppendUint32(nil, FormatVersion))
		})
		if err != nil {
			err = fmt.Errorf("state: initialize %s: %w", path, err)
		}
	}
	if err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// openBolt opens the bbolt file and maps its errors to ours.
func openBolt(path string, bopts *bbolt.Options) (*boltStore, error) {
	s := &boltStore{path: path, readOnly: bopts.ReadOnly}
	var db *bbolt.DB
	err := s.guard(func() (err error) {
		db, err = bbolt.Open(path, 0o600, bopts)
		return err
	})
	var errno syscall.Errno
	switch {
	case err == nil:
		s.db = db
		return s, nil
	case errors.Is(err, ErrCorrupt):
		return nil, err // a panic caught by guard
	case errors.Is(err, berrors.ErrTimeout):
		return nil, &fileError{path: path, msg: "is in use by another process", kind: ErrInUse}
	case errors.As(err, new(*fs.PathError)), errors.As(err, &errno):
		// The file could not be opened, locked, read or mapped: an I/O
		// problem, not a statement about the file's contents.
		return nil, fmt.Errorf("state: open %s: %w", path, err)
	default:
		// Everything else bbolt.Open reports is about the contents: no valid
		// meta page (ErrInvalid, ErrChecksum, ErrVersionMismatch) or a file
		// shorter than two pages ("file size too small").
		return nil, s.corrupt(err)
	}
}

// boltStore is the bbolt Store.
type boltStore struct {
	db       *bbolt.DB
	path     string
	readOnly bool
	closed   atomic.Bool
}

// corrupt returns an error wrapping ErrCorrupt for this store's file.
func (s *boltStore) corrupt(cause error) error {
	return &fileError{path: s.path, msg: "is corrupt", kind: ErrCorrupt, cause: cause}
}

// guard runs op, a call into bbolt, and turns a panic or a memory fault
// inside it into an error wrapping ErrCorrupt. bbolt panics when it meets a
// damaged page, and reading past the end of a truncated mapped file faults;
// ptfsh must report those instead of crashing. guard only ever wraps bbolt
// calls, never the caller's functions, whose panics must propagate.
func (s *boltStore) guard(op func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = s.corrupt(fmt.Errorf("%v", r))
		}
	}()
	return op()
}

// validate checks the open file's format. It reports fresh for a bbolt file
// with no buckets at all, which OpenBolt initializes.
func (s *boltStore) validate() (fresh bool, err error) {
	info, err := os.Stat(s.path)
	if err != nil {
		return false, fmt.Errorf("state: open %s: %w", s.path, err)
	}
	err = s.guard(func() error {
		return s.db.View(func(tx *bbolt.Tx) error {
			// bbolt maps the file and trusts its meta page; reading a page
			// beyond the end of a truncated file would fault.
			if tx.Size() > info.Size() {
				return s.corrupt(fmt.Errorf("truncated: %d bytes, want at least %d", info.Size(), tx.Size()))
			}
			meta := tx.Bucket([]byte(metaBucket))
			if meta == nil {
				k, _ := tx.Cursor().First()
				if k != nil {
					return s.corrupt(fmt.Errorf("a bbolt file without a %s bucket, not written by ptfsh", metaBucket))
				}
				fresh = true
				return nil
			}
			v := meta.Get([]byte(versionKey))
			if len(v) != 4 || binary.BigEndian.Uint32(v) == 0 {
				return s.corrupt(fmt.Errorf("invalid format version %x", v))
			}
			if ver := binary.BigEndian.Uint32(v); ver > FormatVersion {
				return &fileError{
					path: s.path, kind: ErrVersion,
					msg: fmt.Sprintf("has format version %d, newer than version %d that this ptfsh supports", ver, FormatVersion),
				}
			}
			return nil
		})
	})
	return fresh, err
}

func (s *boltStore) View(fn func(Tx) error) error {
	return s.run(false, fn)
}

func (s *boltStore) Update(fn func(Tx) error) error {
	if s.readOnly && !s.closed.Load() {
		return fmt.Errorf("state: update %s: %w", s.path, ErrReadOnly)
	}
	return s.run(true, fn)
}

// run is View and Update. It manages the bbolt transaction itself, rather
// than with bbolt's DB.View and DB.Update, so that bbolt's calls can be
// guarded while fn's panics pass through untouched.
func (s *boltStore) run(writable bool, fn func(Tx) error) (err error) {
	var btx *bbolt.Tx
	if err := s.guard(func() (err error) {
		btx, err = s.db.Begin(writable)
		return err
	}); err != nil {
		if errors.Is(err, berrors.ErrDatabaseNotOpen) {
			return fmt.Errorf("state: %s: %w", opName(writable), ErrClosed)
		}
		return fmt.Errorf("state: %s: %w", opName(writable), err)
	}
	t := &boltTx{s: s, tx: btx, writable: writable}
	committed := false
	defer func() {
		t.done = true
		if !committed {
			if rerr := s.guard(btx.Rollback); rerr != nil && err == nil {
				err = rerr
			}
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if !writable {
		return nil
	}
	if err := t.flushAll(); err != nil {
		return err
	}
	if t.corrupt != nil {
		// fn ignored an error from a damaged page; do not commit a
		// transaction that may have been cut short inside bbolt.
		return t.corrupt
	}
	committed = true
	if err := s.guard(btx.Commit); err != nil {
		return fmt.Errorf("state: commit %s: %w", s.path, err)
	}
	return nil
}

func opName(writable bool) string {
	if writable {
		return "update"
	}
	return "view"
}

func (s *boltStore) Close() error {
	s.closed.Store(true)
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("state: close %s: %w", s.path, err)
	}
	return nil
}

// boltTx is a transaction of the bbolt store.
//
// Writes are buffered per namespace and applied to bbolt in key order: at
// the commit, and before a Scan or DeleteNamespace of that namespace. bbolt
// splits nodes only when it commits, so keys inserted in random order into
// one node cost a copy of the node's entries each; 100k new keys in one
// Update took seconds that way, and sorted they take milliseconds. Get reads
// the buffer first, so a transaction still sees its own writes.
type boltTx struct {
	s        *boltStore
	tx       *bbolt.Tx
	writable bool
	done     bool
	guard    scanGuard
	corrupt  error              // the first ErrCorrupt seen, if any
	spaces   map[string]*boltNS // namespaces looked up so far
}

// boltNS is a namespace as one transaction sees it.
type boltNS struct {
	b      *bbolt.Bucket
	writes map[string][]byte // buffered writes: key → value, or nil to delete
}

// call runs op through the store's guard and remembers corruption.
func (t *boltTx) call(op func() error) error {
	err := t.s.guard(op)
	if err != nil && t.corrupt == nil && errors.Is(err, ErrCorrupt) {
		t.corrupt = err
	}
	return err
}

// space returns namespace ns, or nil if it does not exist and create is
// false. Call it inside call.
func (t *boltTx) space(ns string, create bool) (*boltNS, error) {
	if sp := t.spaces[ns]; sp != nil {
		return sp, nil
	}
	var b *bbolt.Bucket
	if create {
		var err error
		if b, err = t.tx.CreateBucketIfNotExists([]byte(ns)); err != nil {
			return nil, fmt.Errorf("state: put in %q: %w", ns, err)
		}
	} else if b = t.tx.Bucket([]byte(ns)); b == nil {
		return nil, nil
	}
	if t.spaces == nil {
		t.spaces = make(map[string]*boltNS)
	}
	sp := &boltNS{b: b}
	t.spaces[ns] = sp
	return sp, nil
}

// flush applies the buffered writes of ns to bbolt, in key order.
func (t *boltTx) flush(ns string) error {
	sp := t.spaces[ns]
	if sp == nil || len(sp.writes) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(sp.writes))
	err := t.call(func() error {
		for _, k := range keys {
			var err error
			if v := sp.writes[k]; v == nil {
				err = sp.b.Delete([]byte(k))
			} else {
				// bbolt copies the key but keeps v until the commit; v is
				// our own copy, made by Put.
				err = sp.b.Put([]byte(k), v)
			}
			if err != nil {
				return fmt.Errorf("state: write to %q: %w", ns, err)
			}
		}
		return nil
	})
	sp.writes = nil
	return err
}

// flushAll flushes every namespace, in name order.
func (t *boltTx) flushAll() error {
	for _, ns := range slices.Sorted(maps.Keys(t.spaces)) {
		if err := t.flush(ns); err != nil {
			return err
		}
	}
	return nil
}

func (t *boltTx) Get(ns string, key []byte) (v []byte, err error) {
	if err := checkRead(t.done, ns); err != nil {
		return nil, err
	}
	if sp := t.spaces[ns]; sp != nil {
		if v, ok := sp.writes[string(key)]; ok {
			return bytes.Clone(v), nil // nil for a deletion
		}
	}
	err = t.call(func() error {
		sp, err := t.space(ns, false)
		if sp != nil {
			v = bytes.Clone(sp.b.Get(key)) // bbolt's slice dies with the transaction
		}
		return err
	})
	return v, err
}

func (t *boltTx) Put(ns string, key, value []byte) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opPut, ns); err != nil {
		return err
	}
	if err := checkPut(ns, key, value); err != nil {
		return err
	}
	sp := t.spaces[ns]
	if sp == nil {
		// Create the bucket now, so that Namespaces sees it.
		if err := t.call(func() (err error) { sp, err = t.space(ns, true); return err }); err != nil {
			return err
		}
	}
	if sp.writes == nil {
		sp.writes = make(map[string][]byte)
	}
	// Copy the value: the caller may reuse it, and bbolt keeps a reference
	// until the commit. Never store nil, which marks a deletion.
	sp.writes[string(key)] = append(make([]byte, 0, len(value)), value...)
	return nil
}

func (t *boltTx) Delete(ns string, key []byte) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opDelete, ns); err != nil {
		return err
	}
	var sp *boltNS
	if err := t.call(func() (err error) { sp, err = t.space(ns, false); return err }); sp == nil || err != nil {
		return err
	}
	if sp.writes == nil {
		sp.writes = make(map[string][]byte)
	}
	sp.writes[string(key)] = nil
	return nil
}

func (t *boltTx) DeleteNamespace(ns string) error {
	if err := checkWrite(t.done, t.writable, &t.guard, opDeleteNS, ns); err != nil {
		return err
	}
	delete(t.spaces, ns)
	return t.call(func() error {
		err := t.tx.DeleteBucket([]byte(ns))
		if err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
			return fmt.Errorf("state: delete namespace %q: %w", ns, err)
		}
		return nil
	})
}

func (t *boltTx) Namespaces() ([]string, error) {
	if t.done {
		return nil, errTxDone
	}
	names := []string{}
	err := t.call(func() error {
		return t.tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
			if !bytes.HasPrefix(name, []byte(reservedNS)) {
				names = append(names, string(name))
			}
			return nil
		})
	})
	return names, err
}

func (t *boltTx) Scan(ns string, prefix []byte, fn func(key, value []byte) error) error {
	if err := checkRead(t.done, ns); err != nil {
		return err
	}
	if err := t.flush(ns); err != nil {
		return err
	}
	var c *bbolt.Cursor
	var k, v []byte
	kbuf := make([]byte, 0, scanBufSize)
	vbuf := make([]byte, 0, scanBufSize)
	// step moves the cursor and copies the pair out of bbolt's memory, which
	// fn must not see: writing to it would fault.
	step := func(first bool) error {
		if first {
			sp, err := t.space(ns, false)
			if sp == nil || err != nil {
				return err
			}
			c = sp.b.Cursor()
			k, v = c.Seek(prefix)
		} else {
			k, v = c.Next()
		}
		if k != nil && !bytes.HasPrefix(k, prefix) {
			k = nil
		}
		kbuf = append(kbuf[:0], k...)
		vbuf = append(vbuf[:0], v...)
		return nil
	}
	if err := t.call(func() error { return step(true) }); err != nil || k == nil {
		return err
	}
	t.guard.begin(ns)
	defer t.guard.end()
	for k != nil {
		if err := fn(kbuf, vbuf); err != nil {
			return err
		}
		if err := t.call(func() error { return step(false) }); err != nil {
			return err
		}
	}
	return nil
}

// rawBoltPut writes one pair into a bucket of a bbolt file, bypassing the
// checks of OpenBolt and Tx. Tests use it (through export_test.go) to make
// files that OpenBolt must refuse, since no other file may import bbolt.
func rawBoltPut(path, bucket string, key, value []byte) error {
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: DefaultBoltTimeout})
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucket))
		if err != nil {
			return err
		}
		return b.Put(key, value)
	})
	return errors.Join(err, db.Close())
}
