package state_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

// asyncStore is a store whose Update leaves its commit in flight
// (state.UpdateAsync without Wait): the next transaction meets it.
type asyncStore struct{ state.Store }

func (s asyncStore) Update(fn func(state.Tx) error) error {
	_, err := state.UpdateAsync(s.Store, fn)
	return err
}

// TestBoltAsync_conformance runs the conformance suite with every Update
// committing in the background, slowly enough that the Views after it run
// while it is in flight: they must read what a committed Update gives.
func TestBoltAsync_conformance(t *testing.T) {
	state.SetBeforeAsyncCommit(t, func() error { time.Sleep(time.Millisecond); return nil })
	statetest.Run(t, func(t *testing.T) state.Store { return asyncStore{statetest.OpenBolt(t)} })
}

// held opens a bolt store whose background commits wait for release.
func held(t *testing.T) (st state.Store, release func()) {
	t.Helper()
	gate := make(chan struct{}, 1)
	state.SetBeforeAsyncCommit(t, func() error { <-gate; return nil })
	st, err := state.OpenBolt(filepath.Join(t.TempDir(), "state.db"), state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, func() { gate <- struct{}{} }
}

func mustUpdate(t *testing.T, st state.Store, fn func(state.Tx) error) {
	t.Helper()
	if err := st.Update(fn); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, st state.Store, ns, key string) string {
	t.Helper()
	var v []byte
	err := st.View(func(tx state.Tx) (err error) {
		v, err = tx.Get(ns, []byte(key))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v == nil {
		return "<none>"
	}
	return string(v)
}

// returnsWhile says whether f returns within a short time, and, if it did
// not, waits for it after calling release.
func returnsWhile(f func(), release func()) bool {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(50 * time.Millisecond):
		release()
		<-done
		return false
	}
}

// TestBoltAsync_viewsDuringCommit: while a commit is held in flight, Views
// read its writes (a changed key, a deleted key, a key it left alone, a
// new namespace) without waiting; those it cannot answer from its writes
// (a namespace it deleted, a Scan of one it wrote to, Namespaces) wait for
// the commit; a Scan of a namespace it did not touch does not.
func TestBoltAsync_viewsDuringCommit(t *testing.T) {
	st, release := held(t)
	mustUpdate(t, st, func(tx state.Tx) error {
		return errors.Join(tx.Put("a", []byte("k1"), []byte("old1")), tx.Put("a", []byte("k2"), []byte("old2")),
			tx.Put("a", []byte("k3"), []byte("old3")), tx.Put("gone", []byte("k"), []byte("v")), tx.Put("other", []byte("k"), []byte("v")))
	})
	c, err := state.UpdateAsync(st, func(tx state.Tx) error {
		return errors.Join(tx.Put("a", []byte("k1"), []byte("new1")), tx.Delete("a", []byte("k2")),
			tx.Put("fresh", []byte("k"), []byte("v")), tx.DeleteNamespace("gone"))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ ns, key, want string }{
		{"a", "k1", "new1"}, {"a", "k2", "<none>"}, {"a", "k3", "old3"}, {"fresh", "k", "v"}, {"other", "k", "v"}, {"a", "k4", "<none>"},
	} {
		var got string
		if !returnsWhile(func() { got = get(t, st, tc.ns, tc.key) }, release) {
			t.Fatalf("Get %s/%s waited for the commit", tc.ns, tc.key)
		}
		if got != tc.want {
			t.Errorf("Get %s/%s during the commit = %s, want %s", tc.ns, tc.key, got, tc.want)
		}
	}
	scan := func(ns string) func() {
		return func() {
			_ = st.View(func(tx state.Tx) error {
				return tx.Scan(ns, nil, func(k, v []byte) error { return nil })
			})
		}
	}
	if !returnsWhile(scan("other"), release) {
		t.Fatal("a Scan of a namespace the commit does not touch waited for it")
	}
	if returnsWhile(scan("a"), release) {
		t.Fatal("a Scan of a namespace the commit wrote to did not wait for it")
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	// The next commit: a deleted namespace and Namespaces wait.
	if _, err := state.UpdateAsync(st, func(tx state.Tx) error { return tx.DeleteNamespace("other") }); err != nil {
		t.Fatal(err)
	}
	var got string
	if returnsWhile(func() { got = get(t, st, "other", "k") }, release) {
		t.Fatal("a Get in a namespace the commit deleted did not wait for it")
	}
	if got != "<none>" {
		t.Errorf("Get other/k after its namespace was deleted = %s", got)
	}
	if _, err := state.UpdateAsync(st, func(tx state.Tx) error { return tx.Put("b", []byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	var names []string
	if returnsWhile(func() {
		_ = st.View(func(tx state.Tx) (err error) { names, err = tx.Namespaces(); return err })
	}, release) {
		t.Fatal("Namespaces did not wait for the commit")
	}
	if want := []string{"a", "b", "fresh"}; !slices.Equal(names, want) {
		t.Errorf("Namespaces = %v, want %v", names, want)
	}
}

// TestBoltAsync_updateWaits: an Update waits for the commit in flight, so
// transactions commit one at a time and in order.
func TestBoltAsync_updateWaits(t *testing.T) {
	st, release := held(t)
	if _, err := state.UpdateAsync(st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	if returnsWhile(func() { mustUpdate(t, st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("2")) }) }, release) {
		t.Fatal("Update did not wait for the commit in flight")
	}
	if got := get(t, st, "a", "k"); got != "2" {
		t.Errorf("a/k = %s, want 2", got)
	}
}

// TestBoltAsync_failedCommit: a commit that fails in the background
// reports it through Wait and leaves the store as it was; Views during it
// read its writes, and the store works on after it.
func TestBoltAsync_failedCommit(t *testing.T) {
	gate := make(chan struct{})
	state.SetBeforeAsyncCommit(t, func() error { <-gate; return errors.New("disk full") })
	st := statetest.OpenBolt(t)
	mustUpdate(t, st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("1")) })
	c, err := state.UpdateAsync(st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("2")) })
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, st, "a", "k"); got != "2" {
		t.Errorf("a/k during the commit = %s, want 2", got)
	}
	close(gate)
	if err := c.Wait(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Wait = %v, want disk full", err)
	}
	if got := get(t, st, "a", "k"); got != "1" {
		t.Errorf("a/k after the failed commit = %s, want 1", got)
	}
	state.SetBeforeAsyncCommit(t, nil)
	mustUpdate(t, st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("3")) })
	if got := get(t, st, "a", "k"); got != "3" {
		t.Errorf("a/k after a later Update = %s, want 3", got)
	}
}

// TestBoltAsync_fnFails: an error or a panic in fn commits nothing and
// leaves nothing in flight.
func TestBoltAsync_fnFails(t *testing.T) {
	st := statetest.OpenBolt(t)
	boom := errors.New("boom")
	c, err := state.UpdateAsync(st, func(tx state.Tx) error {
		if err := tx.Put("a", []byte("k"), []byte("1")); err != nil {
			return err
		}
		return boom
	})
	if c != nil || !errors.Is(err, boom) {
		t.Fatalf("UpdateAsync = %v, %v; want nil, boom", c, err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic in fn did not go on")
			}
		}()
		_, _ = state.UpdateAsync(st, func(tx state.Tx) error {
			_ = tx.Put("a", []byte("k"), []byte("2"))
			panic("oops")
		})
	}()
	if got := get(t, st, "a", "k"); got != "<none>" {
		t.Errorf("a/k = %s, want none", got)
	}
	mustUpdate(t, st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("3")) })
	if got := get(t, st, "a", "k"); got != "3" {
		t.Errorf("a/k = %s, want 3", got)
	}
}

// TestBoltAsync_closeWaits: Close waits for the commit in flight, which
// is in the file when it is opened again.
func TestBoltAsync_closeWaits(t *testing.T) {
	state.SetBeforeAsyncCommit(t, func() error { time.Sleep(30 * time.Millisecond); return nil })
	path := filepath.Join(t.TempDir(), "state.db")
	st, err := state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := state.UpdateAsync(st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("v")) })
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	st, err = state.OpenBolt(path, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := get(t, st, "a", "k"); got != "v" {
		t.Errorf("a/k after reopening = %s, want v", got)
	}
}

// TestMemAsync: the memory store commits before UpdateAsync returns.
func TestMemAsync(t *testing.T) {
	st := statetest.OpenMem(t)
	c, err := state.UpdateAsync(st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("v")) })
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := get(t, st, "a", "k"); got != "v" {
		t.Errorf("a/k = %s, want v", got)
	}
}

// TestBoltSnapshot: Views share a read transaction while nothing writes.
// A View inside a View still works; an Update that grows the file a
// hundredfold after Views (bbolt maps it anew, which waits for every open
// read transaction) does not hang, and the Views after it see it.
func TestBoltSnapshot(t *testing.T) {
	st := statetest.OpenBolt(t)
	mustUpdate(t, st, func(tx state.Tx) error { return tx.Put("a", []byte("k"), []byte("1")) })
	if got := get(t, st, "a", "k"); got != "1" {
		t.Fatalf("a/k = %s, want 1", got)
	}
	err := st.View(func(tx state.Tx) error {
		if got := get(t, st, "a", "k"); got != "1" {
			t.Errorf("a/k in a View inside a View = %s, want 1", got)
		}
		_, err := tx.Get("a", []byte("k"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		mustUpdate(t, st, func(tx state.Tx) error {
			value := make([]byte, 1000)
			for i := range 20_000 {
				if err := tx.Put("big", fmt.Appendf(nil, "%08d", i), value); err != nil {
					return err
				}
			}
			return tx.Put("a", []byte("k"), []byte("2"))
		})
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("an Update that grows the file hangs after Views")
	}
	if got := get(t, st, "a", "k"); got != "2" {
		t.Errorf("a/k after the Update = %s, want 2", got)
	}
}

// TestBoltAsync_Defer: work handed on with state.Defer runs after the
// function of UpdateAsync returned, on another goroutine, before the
// commit: UpdateAsync returns while it runs, a View waits for it and
// sees its writes, its error fails the commit and leaves the store as it
// was, it runs once even when the function fails after handing it on,
// and in an Update it runs at once.
func TestBoltAsync_Defer(t *testing.T) {
	st, err := state.OpenBolt(filepath.Join(t.TempDir(), "state.db"), state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(key, val string) func(state.Tx) error {
		return func(tx state.Tx) error { return tx.Put("ns", []byte(key), []byte(val)) }
	}

	gate, started := make(chan struct{}), make(chan struct{})
	c, err := state.UpdateAsync(st, func(tx state.Tx) error {
		if !state.Deferred(tx) {
			t.Error("the transaction of UpdateAsync does not defer")
		}
		if err := tx.Put("ns", []byte("a"), []byte("1")); err != nil {
			return err
		}
		return state.Defer(tx, func(tx state.Tx) error {
			close(started)
			<-gate
			return put("b", "2")(tx)
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	<-started // UpdateAsync returned with the deferred work under way
	viewed := make(chan string)
	go func() {
		var v []byte
		err := st.View(func(tx state.Tx) (err error) {
			v, err = tx.Get("ns", []byte("b"))
			return err
		})
		if err != nil {
			viewed <- err.Error()
			return
		}
		viewed <- string(v)
	}()
	select {
	case v := <-viewed:
		t.Fatalf("a View read %q before the deferred work was done", v)
	case <-time.After(20 * time.Millisecond):
	}
	close(gate)
	if v := <-viewed; v != "2" {
		t.Errorf("a View during the deferred work read %q, want 2", v)
	}
	if err := c.Wait(); err != nil {
		t.Fatal(err)
	}

	boom := errors.New("boom")
	c, err = state.UpdateAsync(st, func(tx state.Tx) error {
		if err := put("a", "3")(tx); err != nil {
			return err
		}
		return state.Defer(tx, func(state.Tx) error { return boom })
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(); !errors.Is(err, boom) {
		t.Fatalf("the commit returned %v, want the deferred error", err)
	}
	if v := get(t, st, "ns", "a"); v != "1" {
		t.Errorf("after a failed deferred write a = %q, want 1", v)
	}

	runs := 0
	_, err = state.UpdateAsync(st, func(tx state.Tx) error {
		if err := state.Defer(tx, func(tx state.Tx) error { runs++; return put("a", "4")(tx) }); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || runs != 1 {
		t.Fatalf("UpdateAsync returned %v and ran the deferred work %d times, want the error and once", err, runs)
	}
	if v := get(t, st, "ns", "a"); v != "1" {
		t.Errorf("after a failed transaction a = %q, want 1", v)
	}

	runs = 0
	mustUpdate(t, st, func(tx state.Tx) error {
		if state.Deferred(tx) {
			t.Error("the transaction of Update defers")
		}
		if err := state.Defer(tx, func(tx state.Tx) error { runs++; return put("c", "5")(tx) }); err != nil {
			return err
		}
		if runs != 1 {
			t.Error("Defer in an Update did not run at once")
		}
		return nil
	})
	if v := get(t, st, "ns", "c"); v != "5" {
		t.Errorf("c = %q, want 5", v)
	}
}
