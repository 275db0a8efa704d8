package state_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

func TestBolt(t *testing.T) {
	statetest.Run(t, statetest.OpenBolt)
}

// makeStateFile writes a state file with n keys of valueSize bytes in
// namespace "s" and returns its path.
func makeStateFile(t *testing.T, n, valueSize int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(func(tx state.Tx) error {
		for i := range n {
			v := bytes.Repeat([]byte{byte(i)}, valueSize)
			if err := tx.Put("s", orderedcode.AppendUint64(nil, uint64(i)), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpenBolt_inUse(t *testing.T) {
	path := makeStateFile(t, 1, 1)
	first, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()

	for _, opts := range []state.BoltOptions{
		{Timeout: 50 * time.Millisecond},
		{Timeout: 50 * time.Millisecond, ReadOnly: true},
		{Timeout: -1},
	} {
		start := time.Now()
		second, err := state.OpenBolt(path, opts)
		if err == nil {
			second.Close()
			t.Fatalf("second OpenBolt(%+v) succeeded", opts)
		}
		if !errors.Is(err, state.ErrInUse) {
			t.Errorf("second OpenBolt(%+v) = %v; want ErrInUse", opts, err)
		}
		if want := "state file " + path + " is in use by another process"; err.Error() != want {
			t.Errorf("message = %q; want %q", err, want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("second OpenBolt(%+v) took %v", opts, d)
		}
	}

	// The lock goes with Close.
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := state.OpenBolt(path, state.BoltOptions{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("OpenBolt after Close: %v", err)
	}
	second.Close()
}

func TestOpenBolt_corrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	valid := func(t *testing.T) []byte { return readFile(t, makeStateFile(t, 200, 1000)) }
	cases := []struct {
		name string
		data func(t *testing.T) []byte
		path func(t *testing.T) string // instead of data, for files made with bbolt
	}{
		{name: "random bytes", data: func(*testing.T) []byte { return random(64 << 10) }},
		{name: "a few random bytes", data: func(*testing.T) []byte { return random(100) }},
		{name: "text", data: func(*testing.T) []byte { return []byte("user,count\nalice,3\n") }},
		{name: "truncated to half", data: func(t *testing.T) []byte { b := valid(t); return b[:len(b)/2] }},
		{name: "truncated to one page", data: func(t *testing.T) []byte { return valid(t)[:5000] }},
		{name: "truncated to three pages", data: func(t *testing.T) []byte { return valid(t)[:3*4096] }},
		{name: "meta pages overwritten", data: func(t *testing.T) []byte {
			b := valid(t)
			copy(b, random(2*4096))
			return b
		}},
		{name: "a bbolt file of another program", path: func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "other.db")
			if err := state.RawBoltPut(path, "users", []byte("alice"), []byte("3")); err != nil {
				t.Fatal(err)
			}
			return path
		}},
		{name: "invalid format version", path: func(t *testing.T) string {
			path := makeStateFile(t, 1, 1)
			if err := state.RawBoltPut(path, "__meta", []byte("version"), []byte{1}); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var path string
			if c.path != nil {
				path = c.path(t)
			} else {
				path = filepath.Join(t.TempDir(), "state.db")
				if err := os.WriteFile(path, c.data(t), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before := readFile(t, path)
			for _, ro := range []bool{false, true} {
				st, err := state.OpenBolt(path, state.BoltOptions{ReadOnly: ro})
				if err == nil {
					st.Close()
					t.Fatalf("OpenBolt(ReadOnly: %v) succeeded", ro)
				}
				if !errors.Is(err, state.ErrCorrupt) {
					t.Errorf("OpenBolt(ReadOnly: %v) = %v; want ErrCorrupt", ro, err)
				}
				if prefix := "state file " + path + " is corrupt"; !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("message = %q; want it to start with %q", err, prefix)
				}
			}
			if !bytes.Equal(readFile(t, path), before) {
				t.Error("OpenBolt changed the file")
			}
		})
	}
}

// TestOpenBolt_damagedPages damages the pages after the meta pages. OpenBolt
// may not notice, but then reading them must fail with ErrCorrupt rather
// than crash the process.
func TestOpenBolt_damagedPages(t *testing.T) {
	path := makeStateFile(t, 2000, 100)
	b := readFile(t, path)
	r := rand.New(rand.NewPCG(1, 1))
	for i := 2 * 4096; i < len(b); i++ {
		b[i] = byte(r.Uint32())
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		if !errors.Is(err, state.ErrCorrupt) {
			t.Fatalf("OpenBolt = %v; want ErrCorrupt", err)
		}
		if !bytes.Equal(readFile(t, path), b) {
			t.Error("OpenBolt changed the file")
		}
		return
	}
	defer st.Close()
	err = st.View(func(tx state.Tx) error {
		return tx.Scan("s", nil, func(_, _ []byte) error { return nil })
	})
	if !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("Scan of damaged pages = %v; want ErrCorrupt", err)
	}
}

func TestOpenBolt_newerVersion(t *testing.T) {
	path := makeStateFile(t, 1, 1)
	if err := state.RawBoltPut(path, "__meta", []byte("version"), state.VersionValue(state.FormatVersion+1)); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, path)
	for _, ro := range []bool{false, true} {
		_, err := state.OpenBolt(path, state.BoltOptions{ReadOnly: ro})
		if !errors.Is(err, state.ErrVersion) {
			t.Fatalf("OpenBolt(ReadOnly: %v) = %v; want ErrVersion", ro, err)
		}
		want := fmt.Sprintf("state file %s has format version %d, newer than version %d that this ptfsh supports",
			path, state.FormatVersion+1, state.FormatVersion)
		if err.Error() != want {
			t.Errorf("message = %q; want %q", err, want)
		}
	}
	if !bytes.Equal(readFile(t, path), before) {
		t.Error("OpenBolt changed the file")
	}
}

func TestOpenBolt_reopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := state.OpenBolt(path, state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(func(tx state.Tx) error {
		if err := tx.Put("b", []byte("k"), []byte("v")); err != nil {
			return err
		}
		if err := tx.Put("a", []byte("empty"), nil); err != nil {
			return err
		}
		return tx.Put("a", []byte("k"), []byte("v2"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	for _, ro := range []bool{true, false} {
		st, err := state.OpenBolt(path, state.BoltOptions{ReadOnly: ro})
		if err != nil {
			t.Fatalf("reopen (ReadOnly: %v): %v", ro, err)
		}
		var names []string
		got := map[string]string{}
		err = st.View(func(tx state.Tx) error {
			if names, err = tx.Namespaces(); err != nil {
				return err
			}
			for _, ns := range names {
				err := tx.Scan(ns, nil, func(k, v []byte) error {
					got[ns+"/"+string(k)] = string(v)
					return nil
				})
				if err != nil {
					return err
				}
			}
			v, err := tx.Get("a", []byte("empty"))
			if v == nil {
				t.Error("empty value read back as absent")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"a", "b"}, names); diff != "" {
			t.Errorf("Namespaces (-want +got):\n%s", diff)
		}
		want := map[string]string{"a/empty": "", "a/k": "v2", "b/k": "v"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("contents (-want +got):\n%s", diff)
		}
		err = st.Update(func(tx state.Tx) error { return tx.Put("c", []byte("k"), nil) })
		if ro && !errors.Is(err, state.ErrReadOnly) {
			t.Errorf("Update on a read-only store = %v; want ErrReadOnly", err)
		}
		if !ro && err != nil {
			t.Errorf("Update after reopen: %v", err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenBolt_readOnlyShared(t *testing.T) {
	path := makeStateFile(t, 1, 1)
	a, err := state.OpenBolt(path, state.BoltOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := state.OpenBolt(path, state.BoltOptions{ReadOnly: true, Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatalf("second read-only OpenBolt: %v", err)
	}
	defer b.Close()
	_, err = state.OpenBolt(path, state.BoltOptions{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, state.ErrInUse) {
		t.Errorf("read-write OpenBolt beside readers = %v; want ErrInUse", err)
	}
}

func TestOpenBolt_newFiles(t *testing.T) {
	dir := t.TempDir()

	missing := filepath.Join(dir, "missing.db")
	_, err := state.OpenBolt(missing, state.BoltOptions{ReadOnly: true})
	if err == nil || errors.Is(err, state.ErrCorrupt) {
		t.Errorf("read-only OpenBolt of a missing file = %v; want an error other than ErrCorrupt", err)
	}
	if _, statErr := os.Stat(missing); !errors.Is(statErr, os.ErrNotExist) {
		t.Error("read-only OpenBolt created the file")
	}

	// An existing empty file is not a new state file: it may be one whose
	// contents were lost, and starting afresh would lose its state for good.
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		_, err := state.OpenBolt(empty, state.BoltOptions{ReadOnly: ro})
		if !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("OpenBolt(ReadOnly: %v) of an empty file = %v; want ErrCorrupt", ro, err)
		} else if want := "state file " + empty + " is corrupt: the file is empty (0 bytes)"; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("message = %q; want it to start with %q", err, want)
		}
	}
	if b := readFile(t, empty); len(b) != 0 {
		t.Errorf("OpenBolt wrote %d bytes to the empty file", len(b))
	}

	// A missing file is new, and it is created with the format version.
	fresh := filepath.Join(dir, "fresh.db")
	st, err := state.OpenBolt(fresh, state.BoltOptions{})
	if err != nil {
		t.Fatalf("OpenBolt of a missing file: %v", err)
	}
	st.Close()
	st, err = state.OpenBolt(fresh, state.BoltOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("reopening the new file: %v", err)
	}
	st.Close()

	// A directory: a clear error, not corruption.
	_, err = state.OpenBolt(dir, state.BoltOptions{})
	if err == nil || errors.Is(err, state.ErrCorrupt) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("OpenBolt of a directory = %v", err)
	}

	// A directory that does not exist: an I/O error, not corruption.
	_, err = state.OpenBolt(filepath.Join(dir, "no", "such", "dir.db"), state.BoltOptions{})
	if err == nil || errors.Is(err, state.ErrCorrupt) {
		t.Errorf("OpenBolt in a missing directory = %v", err)
	}
}

// damageBranchPages overwrites the branch pages of the file at path (the
// pages between the root and the leaves of large namespaces) with random
// bytes, in place, and returns how many it damaged.
func damageBranchPages(t *testing.T, path string) int {
	t.Helper()
	b := readFile(t, path)
	// bbolt's page header: id uint64, flags uint16, count uint16, overflow
	// uint32; the meta page then holds magic, version and page size.
	pageSize := int(binary.LittleEndian.Uint32(b[16+8:]))
	const branchPage = 0x01
	r := rand.New(rand.NewPCG(3, 3))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	damaged := 0
	for off := 2 * pageSize; off+pageSize <= len(b); off += pageSize {
		if binary.LittleEndian.Uint16(b[off+8:]) != branchPage {
			continue
		}
		page := make([]byte, pageSize)
		for i := range page {
			page[i] = byte(r.Uint32())
		}
		if _, err := f.WriteAt(page, int64(off)); err != nil {
			t.Fatal(err)
		}
		damaged++
	}
	if damaged == 0 {
		t.Fatal("no branch page to damage")
	}
	return damaged
}

// TestOpenBolt_damagedBranchPages damages only the branch pages of
// namespace s: OpenBolt reads them, and refuses the file.
func TestOpenBolt_damagedBranchPages(t *testing.T) {
	path := makeStateFile(t, 2000, 100)
	damageBranchPages(t, path)
	_, err := state.OpenBolt(path, state.BoltOptions{})
	if !errors.Is(err, state.ErrCorrupt) {
		t.Fatalf("OpenBolt = %v; want ErrCorrupt", err)
	}
	if want := "state file " + path + ` is corrupt: namespace "s", `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message = %q; want it to start with %q", err, want)
	}
	// The file is not left locked.
	st, err := state.OpenBolt(path, state.BoltOptions{Timeout: -1})
	if !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("second OpenBolt = %v; want ErrCorrupt", err)
	}
	if err == nil {
		st.Close()
	}
}

// TestBolt_damagedAfterOpen damages the branch pages of namespace s while
// the store is open, which OpenBolt cannot have seen: the Scan and Get that
// reach them must fail with ErrCorrupt, and the store must stay usable,
// rather than crash the process or hang.
func TestBolt_damagedAfterOpen(t *testing.T) {
	path := makeStateFile(t, 2000, 100)
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	defer st.Close()
	damageBranchPages(t, path)
	for _, op := range []struct {
		name string
		fn   func(tx state.Tx) error
	}{
		{"Scan", func(tx state.Tx) error { return tx.Scan("s", nil, func(_, _ []byte) error { return nil }) }},
		{"Get", func(tx state.Tx) error { _, err := tx.Get("s", orderedcode.AppendUint64(nil, 1999)); return err }},
	} {
		err := st.View(op.fn)
		if !errors.Is(err, state.ErrCorrupt) {
			t.Errorf("%s over damaged pages = %v; want ErrCorrupt", op.name, err)
		}
		t.Logf("%s: %v", op.name, err)
	}
	// A write that meets the damage is rolled back even if fn ignores the
	// error, and other namespaces still work.
	err = st.Update(func(tx state.Tx) error {
		tx.Put("s", orderedcode.AppendUint64(nil, 5000), []byte("x"))
		return tx.Put("t", []byte("k"), []byte("v"))
	})
	if !errors.Is(err, state.ErrCorrupt) {
		t.Errorf("Update over damaged pages = %v; want ErrCorrupt", err)
	}
	err = st.Update(func(tx state.Tx) error { return tx.Put("t", []byte("k"), []byte("v")) })
	if err != nil {
		t.Errorf("Update of another namespace: %v", err)
	}
	done := make(chan error)
	go func() { done <- st.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close hangs")
	}
}

// TestBolt_damagedValue changes one digit of a counter, as in ptfsh issue
// 10 where a counter of 1000 read back as 9000: before OpenBolt (which
// refuses the file) and while the store is open (Get and Scan fail). Each
// error names the file, the function's uid, the state and the key.
func TestBolt_damagedValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const ns = "state/count/counter"
	key := orderedcode.AppendString(nil, "alice")
	err = st.Update(func(tx state.Tx) error {
		for i := range 100 {
			if err := tx.Put(ns, orderedcode.AppendString(nil, fmt.Sprint("user", i)), []byte("1")); err != nil {
				return err
			}
		}
		return tx.Put(ns, key, []byte(`{"count":1000}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	b := readFile(t, path)
	off := bytes.Index(b, []byte(`{"count":1000}`))
	if off < 0 || bytes.Count(b, []byte(`{"count":1000}`)) != 1 {
		t.Fatal("the value is not in the file once")
	}
	off += len(`{"count":`)
	flip := func() {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt([]byte{b[off] ^ '1' ^ '9'}, int64(off)); err != nil {
			t.Fatal(err)
		}
		b[off] ^= '1' ^ '9'
	}
	want := "state file " + path + ` is corrupt: state "counter" of function uid "count" (namespace "state/count/counter"), ` +
		`key ("alice"): the stored value fails its checksum`

	flip() // 1000 → 9000
	_, err = state.OpenBolt(path, state.BoltOptions{})
	if !errors.Is(err, state.ErrCorrupt) || err.Error() != want {
		t.Errorf("OpenBolt =\n%v\nwant\n%s", err, want)
	}

	flip() // back to 1000
	st, err = state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	flip() // 1000 → 9000 behind the store's back
	err = st.View(func(tx state.Tx) error {
		v, err := tx.Get(ns, key)
		if v != nil {
			t.Errorf("Get returned %q with its error", v)
		}
		return err
	})
	if !errors.Is(err, state.ErrCorrupt) || err.Error() != want {
		t.Errorf("Get =\n%v\nwant\n%s", err, want)
	}
	err = st.View(func(tx state.Tx) error {
		return tx.Scan(ns, nil, func(k, v []byte) error {
			if bytes.Equal(k, key) {
				t.Errorf("Scan passed the damaged value %q", v)
			}
			return nil
		})
	})
	if !errors.Is(err, state.ErrCorrupt) || err.Error() != want {
		t.Errorf("Scan =\n%v\nwant\n%s", err, want)
	}
}

// TestOpenBolt_formatVersion1 opens a file of format version 1, whose values
// have no checksum: read-only it reads as it is; opened for writing it is
// upgraded, once, to the current format, with the same content.
func TestOpenBolt_formatVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	want := content{}
	raw := func(ns string, key []byte, value string) {
		if err := state.RawBoltPut(path, ns, key, []byte(value)); err != nil {
			t.Fatal(err)
		}
		if ns != "__meta" {
			want.put(ns, key, value)
		}
	}
	raw("__meta", []byte("version"), "\x00\x00\x00\x01")
	for i := range 20 {
		raw("state/count/counter", orderedcode.AppendString(nil, fmt.Sprint("user", i)), fmt.Sprint(1000+i))
	}
	raw("timers/count", orderedcode.AppendInt64(nil, 5), "")
	before := readFile(t, path)

	check := func(opts state.BoltOptions) {
		t.Helper()
		st, err := state.OpenBolt(path, opts)
		if err != nil {
			t.Fatalf("OpenBolt(%+v): %v", opts, err)
		}
		defer st.Close()
		got, err := readAll(st, want)
		if err != nil {
			t.Fatal(err)
		}
		if d := got.diff(want); d != "" {
			t.Errorf("OpenBolt(%+v): %s", opts, d)
		}
	}
	check(state.BoltOptions{ReadOnly: true})
	if !bytes.Equal(readFile(t, path), before) {
		t.Fatal("a read-only OpenBolt changed the file")
	}
	check(state.BoltOptions{})
	if !bytes.Contains(readFile(t, path), state.VersionValue(state.FormatVersion)) {
		t.Errorf("the file is not at format version %d after a read-write OpenBolt", state.FormatVersion)
	}
	check(state.BoltOptions{ReadOnly: true})
	check(state.BoltOptions{})
}

// TestOpenBolt_pageSize: a file OpenBolt creates takes BoltOptions.PageSize
// (CheckpointPageSize for state files), an existing file keeps its own,
// and a file of 4 KiB pages written before reads and takes writes when
// opened with 16 KiB asked for.
func TestOpenBolt_pageSize(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	st, err := state.OpenBolt(old, state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(tx state.Tx) error { return tx.Put("ns", []byte("k1"), []byte("v1")) }); err != nil {
		t.Fatal(err)
	}
	small := state.PageSizeOf(st)
	st.Close()
	st, err = state.OpenBolt(old, state.BoltOptions{NoSync: true, PageSize: state.CheckpointPageSize})
	if err != nil {
		t.Fatal(err)
	}
	if got := state.PageSizeOf(st); got != small {
		t.Errorf("an existing file of %d-byte pages opened as %d", small, got)
	}
	if err := st.Update(func(tx state.Tx) error { return tx.Put("ns", []byte("k2"), []byte("v2")) }); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k1", "k2"} {
		if err := st.View(func(tx state.Tx) error {
			v, err := tx.Get("ns", []byte(k))
			if err == nil && v == nil {
				err = fmt.Errorf("missing")
			}
			return err
		}); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	st.Close()

	fresh, err := state.OpenBolt(filepath.Join(dir, "new.db"), state.BoltOptions{NoSync: true, PageSize: state.CheckpointPageSize})
	if err != nil {
		t.Fatal(err)
	}
	if got := state.PageSizeOf(fresh); got != state.CheckpointPageSize {
		t.Errorf("a new file has %d-byte pages, want %d", got, state.CheckpointPageSize)
	}
	if err := fresh.Update(func(tx state.Tx) error {
		for i := range 2000 {
			if err := tx.Put("ns", fmt.Appendf(nil, "key%05d", i), bytes.Repeat([]byte("v"), 40)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	// OpenBolt's checks of the whole file know its page size: a file of
	// 16 KiB pages cut short is refused as one of 4 KiB pages is.
	path := filepath.Join(dir, "new.db")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	if st, err := state.OpenBolt(path, state.BoltOptions{PageSize: state.CheckpointPageSize}); !errors.Is(err, state.ErrCorrupt) {
		if err == nil {
			st.Close()
		}
		t.Errorf("a truncated file of 16 KiB pages: %v, want ErrCorrupt", err)
	}
}
