package state

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"go.etcd.io/bbolt"
)

// fillNamespace writes n keys of 200 bytes into namespace ns.
func fillNamespace(t *testing.T, st Store, ns string, n int) {
	t.Helper()
	v := make([]byte, 200)
	for lo := 0; lo < n; lo += 20_000 {
		err := st.Update(func(tx Tx) error {
			for i := lo; i < min(lo+20_000, n); i++ {
				if err := tx.Put(ns, binary.BigEndian.AppendUint64(nil, uint64(i)), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func hasTrash(t *testing.T, s *boltStore) bool {
	t.Helper()
	var has bool
	err := s.txn(false, func(tx *bbolt.Tx) error {
		has = tx.Bucket([]byte(trashBucket)) != nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return has
}

// TestBolt_trash: a deleted namespace larger than a page goes to the
// trash and is freed, batch by batch, after the Update; one left in the
// trash by a run that stopped passes the checks of OpenBolt, is not a
// namespace, and is freed by the next Update; the freed pages are used
// again.
func TestBolt_trash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := OpenBolt(path, BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*boltStore)
	fillNamespace(t, st, "big", 3*purgeBatch+100)
	fillNamespace(t, st, "small", 3)
	if err := st.Update(func(tx Tx) error { return tx.DeleteNamespace("big") }); err != nil {
		t.Fatal(err)
	}
	if hasTrash(t, s) {
		t.Error("the trash is still there after the Update that deleted the namespace")
	}
	// A stop before the trash is freed: the deletion alone, then Close of
	// a temporary store, which leaves the trash.
	fillNamespace(t, st, "big", 3*purgeBatch+100)
	err = s.txn(true, func(tx *bbolt.Tx) error {
		_, err := deleteBucket(tx, []byte("big"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.temporary = true
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	size := fileSize(t, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckBoltFile(b); err != nil {
		t.Fatalf("a file with trash fails the checks: %v", err)
	}

	st, err = OpenBolt(path, BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	s = st.(*boltStore)
	if !hasTrash(t, s) {
		t.Fatal("the trash was not left")
	}
	err = st.View(func(tx Tx) error {
		names, err := tx.Namespaces()
		if len(names) != 1 || names[0] != "small" {
			t.Errorf("Namespaces = %q, want [small]", names)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(tx Tx) error { return tx.Put("small", []byte("k"), nil) }); err != nil {
		t.Fatal(err)
	}
	if hasTrash(t, s) {
		t.Error("the next Update did not free the trash")
	}
	fillNamespace(t, st, "big", 3*purgeBatch+100)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if grown := fileSize(t, path) - size; grown > size/4 {
		t.Errorf("the file grew by %d bytes of %d writing again what the trash freed", grown, size)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// TestBolt_trimNow: the pages of the file that a scan made resident go
// back to the kernel.
func TestBolt_trimNow(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("trims only on Linux")
	}
	st, err := OpenBolt(filepath.Join(t.TempDir(), "state.db"), BoltOptions{NoSync: true, Temporary: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := st.(*boltStore)
	fillNamespace(t, st, "big", 200_000) // about 50 MB
	s.trimNow()
	err = st.View(func(tx Tx) error { return tx.Scan("big", nil, func(_, _ []byte) error { return nil }) })
	if err != nil {
		t.Fatal(err)
	}
	before, _ := fileResident()
	s.trimNow()
	after, _ := fileResident()
	if before-after < 20<<20 {
		t.Errorf("file pages resident %d MB before the trim, %d MB after: want 20 MB less at least", before>>20, after>>20)
	}
}
