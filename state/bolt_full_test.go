package state_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// TestBolt_fullDisk fills a small file system during a checkpoint: the
// Update fails with an error, and the state file still holds the previous
// checkpoint. It needs root to mount a tmpfs, and skips otherwise.
func TestBolt_fullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "state.db")
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(tx state.Tx) error { return tx.Put("ns", []byte("k"), []byte("checkpoint 1")) }); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 1<<20)
	err = st.Update(func(tx state.Tx) error {
		if err := tx.Put("ns", []byte("k"), []byte("checkpoint 2")); err != nil {
			return err
		}
		for i := 0; i < 4; i++ {
			if err := tx.Put("ns", []byte{byte('a' + i)}, big); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		t.Fatal("a checkpoint larger than the disk succeeded")
	}
	t.Logf("the full disk said: %v", err)
	st.Close()
	st, err = state.OpenBolt(path, state.BoltOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("the state file no longer opens after the failed checkpoint: %v", err)
	}
	defer st.Close()
	var got []byte
	if err := st.View(func(tx state.Tx) error {
		var err error
		got, err = tx.Get("ns", []byte("k"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if string(got) != "checkpoint 1" {
		t.Fatalf("after the failed checkpoint the state reads %q, want the previous checkpoint", got)
	}
}
