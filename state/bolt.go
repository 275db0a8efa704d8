package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ptfsh/ptfsh/internal/fault"
	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The bolt*.go files are the only ones that import bbolt: the rest
// of ptfsh sees Store and Tx, so bbolt's rules (slices valid only inside a transaction, values that
// must outlive Put, panics on damaged pages) stay here.

// The bbolt store's own metadata lives in a bucket that Namespaces hides.
const (
	metaBucket = reservedNS + "meta" // "__meta"
	versionKey = "version"           // a big-endian uint32 in metaBucket, stored as values are
)

// FormatVersion is the version of the state file format this build of ptfsh
// writes. OpenBolt reads files of this version and version 1, which it
// upgrades, and refuses newer ones with ErrVersion.
//
// Version 1 stored values as they were given. Version 2 stores each value
// behind a header with a CRC-32C of its namespace, key and bytes (value.go).
const FormatVersion uint32 = 2

// DefaultBoltTimeout is how long OpenBolt waits for the file lock when
// BoltOptions.Timeout is zero.
const DefaultBoltTimeout = time.Second

// Our limits must be bbolt's, for values with their header.
const (
	_ = uint(bbolt.MaxKeySize-maxKeySize) + uint(maxKeySize-bbolt.MaxKeySize)
	_ = uint(bbolt.MaxValueSize-(maxValueSize+valueHeaderSize)) + uint(maxValueSize+valueHeaderSize-bbolt.MaxValueSize)
)

// initialMmapSize is the size of bbolt's first mapping of the file: 1 GiB
// of address space on 64-bit machines, which a file smaller than that
// never outgrows (no remapping while a transaction commits).
const initialMmapSize = 1 << 30 * (strconv.IntSize / 64)

// BoltOptions configures OpenBolt. The zero value is ready to use.
type BoltOptions struct {
	// Timeout is how long to wait for the lock on the file, which another
	// process may hold. Zero means DefaultBoltTimeout; a negative value means
	// no waiting at all beyond one attempt.
	Timeout time.Duration

	// NoSync skips fsync after each commit. It is faster, but a crash of the
	// machine (not only of the process) can lose or corrupt recent commits.
	NoSync bool

	// Temporary says that the file is removed once the store is closed:
	// Close leaves the pages of deleted namespaces to the removal rather
	// than free them first.
	Temporary bool

	// ReadOnly opens the file for reading only, with a shared lock: several
	// read-only stores may use one file, but not while a read-write store
	// holds it. Update returns ErrReadOnly. The file must already exist.
	ReadOnly bool

	// PageSize is the page size of a file OpenBolt creates (0: the
	// operating system's, 4 KiB); an existing file keeps its own.
	// CheckpointPageSize suits a state file that takes checkpoints.
	PageSize int

	// Label, when not "", is what errors call the store in place of
	// "state file PATH": a scratch file removed as soon as it is open
	// has no path worth naming.
	Label string
}

// name is what messages call the file at path: the label, or the path.
func (o BoltOptions) name(path string) string {
	if o.Label != "" {
		return o.Label
	}
	return path
}

// CheckpointPageSize is the page size for state files that periodic
// checkpoints write: a checkpoint that changes most keys rewrites a
// quarter as many pages as with 4 KiB, through a tree one level
// shallower, with less garbage for the collector (B over 5M rows with
// checkpoints every 100k rows: 0.987× the time in pairs, 1.083× that of
// no checkpoints instead of 1.109×). A small file is larger (112 KiB
// instead of 28), and the final checkpoint of 1M keys holds about
// 24 MiB more at its peak, so a scratch store keeps 4 KiB.
const CheckpointPageSize = 16 << 10

// OpenBolt opens the state file at path, creating it if no file exists
// there, and returns a Store backed by it, with one bbolt bucket per
// namespace. Close the store to release the file.
//
// OpenBolt locks the file and reads all of it before bbolt does (see
// boltfile.go): a file held by another process gives an error wrapping
// ErrInUse; a file that is empty, is not a state file, or is truncated or
// damaged anywhere gives one wrapping ErrCorrupt that says where; a file of
// a newer format version gives one wrapping ErrVersion. In these cases the
// file is left untouched and unlocked. A file of format version 1 is
// upgraded to the current version when it is opened for writing, and read
// as it is when opened with ReadOnly.
func OpenBolt(path string, opts BoltOptions) (Store, error) {
	timeout := opts.Timeout
	switch {
	case timeout == 0:
		timeout = DefaultBoltTimeout
	case timeout < 0:
		timeout = 0 // one attempt
	}
	f, created, err := openStateFile(path, opts)
	if err != nil {
		return nil, err
	}
	s, err := openLocked(path, f, created, opts, timeout)
	if err != nil {
		if created {
			// Leave no empty file behind: it would be refused next time.
			os.Remove(path)
		}
		releaseFile(f)
		return nil, err
	}
	return s, nil
}

// openStateFile opens the file at path, creating it when opening for
// writing and no file exists there; created says whether it did.
func openStateFile(path string, opts BoltOptions) (f *os.File, created bool, err error) {
	readOnly, name := opts.ReadOnly, opts.name(path)
	if readOnly {
		f, err = os.Open(path)
		if err != nil {
			return nil, false, fmt.Errorf("state: open %s read-only: %w", name, pathErr(err))
		}
		return f, false, nil
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f, true, nil
	}
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, os.O_RDWR, 0)
	}
	if err != nil {
		return nil, false, fmt.Errorf("state: open %s: %w", name, pathErr(err))
	}
	return f, false, nil
}

// releaseFile unlocks and closes f, which bbolt may have closed already.
// Closing alone would not do if bbolt has mapped the file: the mapping
// keeps the open file, and with it the lock, until it is unmapped.
func releaseFile(f *os.File) error {
	unlockFile(f)
	return f.Close()
}

// pathErr drops the operation and path that an *fs.PathError repeats.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// waitForCreator is how long OpenBolt waits when it finds an empty file, in
// case another process has just created it and is about to lock it.
const waitForCreator = 50 * time.Millisecond

// openLocked locks f, checks it, and opens it with bbolt. On error the
// caller closes f.
func openLocked(path string, f *os.File, created bool, opts BoltOptions, timeout time.Duration) (*boltStore, error) {
	name := opts.name(path)
	lock := func() error {
		err := lockFile(f, !opts.ReadOnly, timeout)
		switch {
		case errors.Is(err, errLockTimeout):
			return &fileError{path: path, label: opts.Label, msg: "is in use by another process", kind: ErrInUse}
		case err != nil:
			return fmt.Errorf("state: lock %s: %w", name, err)
		}
		return nil
	}
	if err := lock(); err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && info.Size() == 0 && !created {
		// Another OpenBolt may have created the file and not locked it yet.
		if err := unlockFile(f); err != nil {
			return nil, fmt.Errorf("state: lock %s: %w", name, err)
		}
		time.Sleep(waitForCreator)
		if err := lock(); err != nil {
			return nil, err
		}
		info, err = f.Stat()
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("state: open %s: %w", name, pathErr(err))
	case info.IsDir():
		return nil, fmt.Errorf("state: open %s: is a directory", name)
	case info.Size() == 0 && !created:
		return nil, corruptFile(path, opts.Label, errors.New("the file is empty (0 bytes); only a missing file is started as a new state file"))
	}

	check := boltCheck{fresh: true}
	if !created {
		if check, err = checkBoltFile(f, info.Size()); err != nil {
			if problem := (*fileProblem)(nil); errors.As(err, &problem) {
				return nil, corruptFile(path, opts.Label, err)
			}
			return nil, fmt.Errorf("state: read %s: %w", name, err)
		}
		if check.version > FormatVersion {
			return nil, &fileError{
				path: path, label: opts.Label, kind: ErrVersion,
				msg: fmt.Sprintf("has format version %d, newer than version %d that this ptfsh supports", check.version, FormatVersion),
			}
		}
	}

	s := &boltStore{path: path, label: opts.Label, file: f, readOnly: opts.ReadOnly, temporary: opts.Temporary, format: check.version}
	bopts := &bbolt.Options{
		Timeout: timeout, ReadOnly: opts.ReadOnly, NoSync: opts.NoSync,
		// bbolt uses the file OpenBolt has locked and checked.
		OpenFile: func(string, int, fs.FileMode) (*os.File, error) { return f, nil },
		// Address space, not memory: when a commit grows the file past
		// the mapping, bbolt maps it again and first copies every key and
		// value the transaction holds onto the heap (node.dereference);
		// B with 1M keys peaked 60 MB higher at its final checkpoint.
		InitialMmapSize: initialMmapSize,
		PageSize:        opts.PageSize, // of a new file; an existing one keeps its own
		// A temporary file serves no restart: growing it needs neither a
		// truncate nor an fsync (bbolt does both at each commit that
		// grows the file; Top-N over 300k keys spent a sixth of its
		// commits there).
		NoGrowSync: opts.Temporary,
	}
	err = s.guard(func() (err error) {
		s.db, err = bbolt.Open(path, 0o600, bopts)
		if err == nil && initialMmapSize > 0 {
			// With a mapping larger than bbolt's AllocSize, bbolt grows
			// the file by AllocSize (16 MiB) more than it needs each time:
			// grow it by what it needs, as a small file did before.
			s.db.AllocSize = 0
		}
		return err
	})
	var errno syscall.Errno
	switch {
	case err == nil:
	case errors.Is(err, ErrCorrupt):
		return nil, err // a panic caught by guard
	case errors.Is(err, berrors.ErrTimeout):
		return nil, &fileError{path: path, label: opts.Label, msg: "is in use by another process", kind: ErrInUse}
	case errors.As(err, new(*fs.PathError)), errors.As(err, &errno):
		return nil, fmt.Errorf("state: open %s: %w", name, pathErr(err))
	default:
		return nil, s.corrupt(err)
	}

	switch {
	case check.fresh && opts.ReadOnly:
		s.format = FormatVersion // nothing to read
	case check.fresh:
		err = s.txn(true, func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte(metaBucket))
			if err != nil {
				return err
			}
			return b.Put([]byte(versionKey), versionValue(FormatVersion))
		})
		if err != nil {
			err = fmt.Errorf("state: initialize %s: %w", name, err)
		}
		s.format = FormatVersion
	case check.version < FormatVersion && !opts.ReadOnly:
		if err = s.txn(true, s.upgrade); err != nil {
			err = fmt.Errorf("state: upgrade %s to format version %d: %w", name, FormatVersion, err)
		}
		s.format = FormatVersion
	}
	if err == nil && !opts.ReadOnly {
		// A run that stopped may have left deleted namespaces to free:
		// the next Update or Close frees them.
		err = s.txn(false, func(tx *bbolt.Tx) error {
			s.trim.trash.Store(tx.Bucket([]byte(trashBucket)) != nil)
			return nil
		})
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// versionValue is the stored value of the format version v.
func versionValue(v uint32) []byte {
	return sealValue(nsSum(metaBucket), []byte(versionKey), binary.BigEndian.AppendUint32(nil, v))
}

// upgrade rewrites a file of format version 1, whose values have no
// header, in the current format, in one transaction.
func (s *boltStore) upgrade(tx *bbolt.Tx) error {
	var names [][]byte
	err := tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
		if !bytes.HasPrefix(name, []byte(reservedNS)) {
			names = append(names, bytes.Clone(name))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range names {
		b := tx.Bucket(name)
		sum := nsSum(string(name))
		var keys, values [][]byte
		err := b.ForEach(func(k, v []byte) error {
			keys = append(keys, bytes.Clone(k))
			values = append(values, sealValue(sum, k, v))
			return nil
		})
		if err != nil {
			return err
		}
		for i, k := range keys {
			if err := b.Put(k, values[i]); err != nil {
				return err
			}
		}
	}
	return tx.Bucket([]byte(metaBucket)).Put([]byte(versionKey), versionValue(FormatVersion))
}

// boltStore is the bbolt Store.
type boltStore struct {
	db       *bbolt.DB
	file     *os.File // the file bbolt has open, locked by OpenBolt
	path     string
	label    string // BoltOptions.Label
	readOnly bool
	format   uint32 // the file's format version: how values are stored
	closed   atomic.Bool

	// broken is set when bbolt panicked where it may have left its own
	// state inconsistent: in Begin, Commit or Rollback. Later transactions
	// fail with it rather than risk writing through that state.
	broken atomic.Pointer[error]
	// leaked is set when bbolt may still hold one of its locks after such
	// a panic. Close then releases the file itself, since bbolt's DB.Close
	// would wait for that lock forever.
	leaked atomic.Bool

	// inflight is the last transaction UpdateAsync handed to a goroutine;
	// every transaction and Close waits for it (settle).
	inflight atomic.Pointer[Commit]
	// overViews counts the Views reading over a transaction in flight;
	// a writer waits for them (bolt_async.go).
	overMu    sync.Mutex
	overDone  *sync.Cond
	overViews int

	// The read transaction that Views share while nothing writes
	// (bolt_snap.go), the namespaces looked up in it, and the write
	// transactions begun and not over; guarded by snapMu.
	snapMu  sync.Mutex
	snap    *bbolt.Tx
	snapNS  map[string]*boltNS
	writers int

	// writeHint is, per namespace, how many writes out of key order the
	// last write transaction buffered: the next one makes its map that
	// large at once (a checkpoint of 50k keys grew it ten times). Write
	// transactions touch it one after the other, never at once.
	writeHint map[string]int

	// trim keeps the file's pages resident few; temporary: the file goes
	// after Close (bolt_trim.go).
	trim      trimmer
	temporary bool
}

// maxWriteHint bounds a map made ahead of its writes.
const maxWriteHint = 1 << 17

// corruptFile returns an error wrapping ErrCorrupt for the file at path
// (called label, when not "").
func corruptFile(path, label string, cause error) error {
	return &fileError{path: path, label: label, msg: "is corrupt", kind: ErrCorrupt, cause: cause}
}

// corrupt returns an error wrapping ErrCorrupt for this store's file.
func (s *boltStore) corrupt(cause error) error {
	return corruptFile(s.path, s.label, cause)
}

// name is what messages call the store's file: its label, or its path.
func (s *boltStore) name() string { return BoltOptions{Label: s.label}.name(s.path) }

// corruptAt returns an error wrapping ErrCorrupt about key in namespace ns.
func (s *boltStore) corruptAt(ns string, key []byte, msg string) error {
	return s.corrupt(&fileProblem{ns: ns, key: bytes.Clone(key), msg: msg})
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

// fail records that bbolt's state can no longer be trusted.
func (s *boltStore) fail(err error, leaked bool) {
	s.broken.CompareAndSwap(nil, &err)
	if leaked {
		s.leaked.Store(true)
	}
}

func (s *boltStore) View(fn func(Tx) error) error {
	return s.run(false, fn)
}

func (s *boltStore) Update(fn func(Tx) error) error {
	if s.readOnly && !s.closed.Load() {
		return fmt.Errorf("state: update %s: %w", s.name(), ErrReadOnly)
	}
	return s.run(true, fn)
}

// run is View and Update.
func (s *boltStore) run(writable bool, fn func(Tx) error) error {
	if s.closed.Load() {
		return fmt.Errorf("state: %s: %w", opName(writable), ErrClosed)
	}
	defer s.maybeTrim(writable) // bolt_trim.go
	if !writable {
		if c := s.inflight.Load(); c != nil {
			return s.viewOver(c, fn) // bolt_async.go
		}
		if err, ok := s.viewSnap(fn); ok {
			return err
		}
	}
	err := s.txn(writable, func(btx *bbolt.Tx) error {
		t := &boltTx{s: s, tx: btx, writable: writable}
		defer func() { t.done = true }()
		if err := fn(t); err != nil || !writable {
			return err
		}
		if err := t.flushAll(); err != nil {
			return err
		}
		// fn may have ignored an error from a damaged page; do not commit
		// a transaction that may have been cut short inside bbolt.
		return t.corrupt
	})
	if err == nil && writable {
		err = s.purgeTrash()
	}
	return err
}

// txn runs fn in a bbolt transaction that it manages itself, rather than
// with bbolt's DB.View and DB.Update, so that bbolt's calls can be guarded
// while fn's panics pass through untouched. A writable transaction commits
// if fn returns nil. Whatever happens, the transaction is over when txn
// returns, or the store is marked so that Close does not wait for it.
func (s *boltStore) txn(writable bool, fn func(*bbolt.Tx) error) (err error) {
	btx, err := s.begin(writable)
	if err != nil {
		return err
	}
	if writable {
		defer s.writerEnds()
	}
	committed := false
	defer func() {
		if !committed {
			err = s.rollback(btx, err)
		}
	}()
	if err := fn(btx); err != nil || !writable {
		return err
	}
	if err := s.commit(btx); err != nil {
		return err
	}
	committed = true
	return nil
}

// begin starts a bbolt transaction, after any commit still running in
// the background (UpdateAsync).
func (s *boltStore) begin(writable bool) (*bbolt.Tx, error) {
	s.settle()
	if writable {
		s.waitOverViews()
		s.writerBegins() // bolt_snap.go
		btx, err := s.beginNow(true)
		if err != nil {
			s.writerEnds()
		}
		return btx, err
	}
	return s.beginNow(writable)
}

// beginNow is begin without waiting: a View reading over a commit in
// flight (bolt_async.go).
func (s *boltStore) beginNow(writable bool) (*bbolt.Tx, error) {
	if p := s.broken.Load(); p != nil {
		return nil, fmt.Errorf("state: %s: an earlier transaction failed: %w", opName(writable), *p)
	}
	var btx *bbolt.Tx
	if err := s.guard(func() (err error) {
		btx, err = s.db.Begin(writable)
		return err
	}); err != nil {
		if errors.Is(err, ErrCorrupt) {
			s.fail(err, true) // a panic in Begin may leave bbolt's locks held
		}
		if errors.Is(err, berrors.ErrDatabaseNotOpen) {
			return nil, fmt.Errorf("state: %s: %w", opName(writable), ErrClosed)
		}
		return nil, fmt.Errorf("state: %s: %w", opName(writable), err)
	}
	return btx, nil
}

// commit commits btx. On error the transaction still needs rollback.
func (s *boltStore) commit(btx *bbolt.Tx) error {
	fault.Point(fault.StateCommit)
	if err := s.guard(btx.Commit); err != nil {
		if errors.Is(err, ErrCorrupt) {
			// A panic in the commit: bbolt's list of free pages may now be
			// wrong, and the rollback releases its lock.
			s.fail(err, false)
		}
		if strings.Contains(err.Error(), "mmap allocate error") {
			// bbolt maps the whole file, and grows the map as the file
			// grows: under ulimit -v the map can be what runs out.
			return fmt.Errorf("state: commit %s: %w: the state file no longer fits in the memory the process may map (ulimit -v, or the machine's memory); raise the limit, or give the statement less state to keep", s.name(), err)
		}
		if noRoom(err) {
			hint := "free space or raise the limit, and run again: the state file stays at its last checkpoint"
			if s.label != "" { // the scratch state: no next run goes on from it
				hint = "free space in the temporary folder (or set TMPDIR to one with room), or raise the limit"
			}
			return fmt.Errorf("state: commit %s: %w: the disk is full or the file reached its size limit (ulimit -f, a quota); %s", s.name(), pathErr(err), hint)
		}
		return fmt.Errorf("state: commit %s: %w", s.name(), pathErr(err))
	}
	fault.Point(fault.StateCommitted)
	return nil
}

// noRoom reports whether err is a full disk, a file size limit or a
// quota. bbolt wraps some errors as text (its "file resize error"), so
// the text is matched too.
func noRoom(err error) bool {
	for _, e := range []syscall.Errno{syscall.ENOSPC, syscall.EFBIG, syscall.EDQUOT} {
		if errors.Is(err, e) || strings.HasSuffix(err.Error(), e.Error()) {
			return true
		}
	}
	return false
}

// rollback ends btx without committing it and returns err, or the
// rollback's own error if err is nil.
func (s *boltStore) rollback(btx *bbolt.Tx, err error) error {
	rerr := s.guard(btx.Rollback)
	switch {
	case btx.DB() != nil:
		// Rollback panicked before it released bbolt's locks.
		s.fail(rerr, true)
	case errors.Is(rerr, ErrCorrupt):
		s.fail(rerr, false)
	case errors.Is(rerr, berrors.ErrTxClosed):
		rerr = nil // a failed Commit has rolled back already
	}
	if rerr != nil && err == nil {
		err = rerr
	}
	return err
}

func opName(writable bool) string {
	if writable {
		return "update"
	}
	return "view"
}

// Close closes the database and the file. If bbolt may still hold one of
// its locks after a panic, it unlocks and closes the file itself; bbolt's
// memory map of the file then stays until the process exits.
func (s *boltStore) Close() error {
	s.settle()
	var perr error
	if !s.temporary && !s.readOnly && !s.closed.Load() && s.broken.Load() == nil {
		perr = s.purgeTrash() // bolt_trim.go
	}
	if s.closed.Swap(true) {
		return nil
	}
	s.writerBegins() // closes the snapshot for good
	var err error
	if !s.leaked.Load() {
		err = s.guard(s.db.Close)
		if err == nil {
			if perr != nil {
				return fmt.Errorf("state: close %s: %w", s.name(), perr)
			}
			return nil
		}
	}
	if cerr := releaseFile(s.file); cerr != nil && err == nil && !errors.Is(cerr, fs.ErrClosed) {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("state: close %s: %w", s.name(), pathErr(err))
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
