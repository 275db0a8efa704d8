package state_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// The tests in this file damage a state file while a store has it open, in
// the two ways that made bbolt panic while holding one of its locks: in
// Begin (both meta pages damaged) and in Commit (the freelist page damaged).
// Before the store handled them, the transaction reported the damage and
// the next transaction, or Close, waited forever for the lock, so ptfsh
// printed "state file ... is corrupt" and never exited, holding the file.

// within runs fn and fails the test if it does not return within d.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// overwrite writes b at off in the file at path, behind the store's back.
func overwrite(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// newestMeta returns the page size and the freelist page of the newest
// meta page of the file at path.
func newestMeta(t *testing.T, path string) (pageSize int, freelist uint64) {
	t.Helper()
	b := readFile(t, path)
	pageSize = int(binary.NativeEndian.Uint32(b[16+8:]))
	meta := func(off int) (freelist, txid uint64) {
		m := b[off+16:]
		return binary.NativeEndian.Uint64(m[32:]), binary.NativeEndian.Uint64(m[48:])
	}
	f0, t0 := meta(0)
	f1, t1 := meta(pageSize)
	if t1 > t0 {
		return pageSize, f1
	}
	return pageSize, f0
}

// wantReleased checks that Close returns and that the file is unlocked
// afterwards: OpenBolt may refuse the damaged file, but not as in use.
func wantReleased(t *testing.T, st state.Store, path string) {
	t.Helper()
	within(t, 10*time.Second, "Close", func() { st.Close() })
	st2, err := state.OpenBolt(path, state.BoltOptions{Timeout: -1})
	if errors.Is(err, state.ErrInUse) {
		t.Fatalf("after Close the file is still locked: %v", err)
	}
	if err == nil {
		st2.Close()
	}
}

func TestBolt_damagedMetaPagesAfterOpen(t *testing.T) {
	path := makeStateFile(t, 100, 10)
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pageSize, _ := newestMeta(t, path)
	for _, off := range []int64{16, int64(pageSize) + 16} {
		overwrite(t, path, off, []byte("not bbolt's magic number"))
	}
	for i := range 3 {
		within(t, 10*time.Second, "View", func() {
			err := st.View(func(tx state.Tx) error { _, err := tx.Get("s", orderedcode.AppendUint64(nil, 1)); return err })
			if !errors.Is(err, state.ErrCorrupt) {
				t.Errorf("View %d = %v; want ErrCorrupt", i, err)
			}
		})
		within(t, 10*time.Second, "Update", func() {
			err := st.Update(func(tx state.Tx) error { return tx.Put("s", []byte("k"), []byte("v")) })
			if !errors.Is(err, state.ErrCorrupt) {
				t.Errorf("Update %d = %v; want ErrCorrupt", i, err)
			}
		})
	}
	wantReleased(t, st, path)
}

func TestBolt_damagedFreelistAfterOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(v string) error {
		return st.Update(func(tx state.Tx) error { return tx.Put("s", []byte("k"), []byte(v)) })
	}
	if err := put("1"); err != nil {
		t.Fatal(err)
	}
	// The commit frees the current freelist page, and bbolt panics when
	// that page says it is page 0.
	pageSize, freelist := newestMeta(t, path)
	overwrite(t, path, int64(freelist)*int64(pageSize), make([]byte, 8))
	within(t, 10*time.Second, "Update", func() {
		if err := put("2"); !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("Update = %v; want ErrCorrupt", err)
		} else {
			t.Log(err)
		}
	})
	// bbolt's free pages are unknown now: no more transactions.
	within(t, 10*time.Second, "Update after the failed commit", func() {
		if err := put("3"); !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("Update after the failed commit = %v; want ErrCorrupt", err)
		}
	})
	wantReleased(t, st, path)
}
