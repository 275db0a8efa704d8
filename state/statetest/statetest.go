// Package statetest holds the conformance suite that every [state.Store]
// passes, and helpers for tests that need a store.
//
// A store's tests call Run with a function that opens a fresh, empty store:
//
//	func TestMem(t *testing.T) {
//		statetest.Run(t, statetest.OpenMem)
//	}
package statetest

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// OpenBolt opens a bbolt store in a new file under t.TempDir and closes it
// when the test ends. It fails the test if the store cannot be opened.
func OpenBolt(t *testing.T) state.Store {
	t.Helper()
	st, err := state.OpenBolt(filepath.Join(t.TempDir(), "state.db"), state.BoltOptions{})
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	closeAtEnd(t, st)
	return st
}

// OpenMem returns a new memory store and closes it when the test ends.
func OpenMem(t *testing.T) state.Store {
	st := state.NewMem()
	closeAtEnd(t, st)
	return st
}

func closeAtEnd(t *testing.T, st state.Store) {
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// Run runs the conformance suite, one subtest per behaviour. open must
// return a new, empty store each time it is called; the suite closes it,
// and open may also arrange to close it with t.Cleanup (Close twice is
// allowed).
func Run(t *testing.T, open func(t *testing.T) state.Store) {
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) {
			st := open(t)
			defer st.Close()
			tc.fn(t, st)
		})
	}
}

var suite = []struct {
	name string
	fn   func(*testing.T, state.Store)
}{
	{"GetPut", testGetPut},
	{"AbsentKeys", testAbsent},
	{"EmptyValue", testEmptyValue},
	{"Delete", testDelete},
	{"Namespaces", testNamespaces},
	{"DeleteNamespace", testDeleteNamespace},
	{"InvalidInput", testInvalid},
	{"ScanOrder", testScanOrder},
	{"ScanPrefix", testScanPrefix},
	{"ScanEarlyStop", testScanEarlyStop},
	{"ScanFrom", testScanFrom},
	{"ScanSlicesAreReused", testScanSlices},
	{"ScanRefusesWritesToItsNamespace", testScanWrites},
	{"ReadYourWrites", testReadYourWrites},
	{"WritesInAndOutOfOrder", testWriteOrders},
	{"Rollback", testRollback},
	{"RollbackDeleteNamespace", testRollbackDeleteNamespace},
	{"RollbackOnPanic", testRollbackOnPanic},
	{"ViewIsReadOnly", testViewReadOnly},
	{"ReturnedSlicesAreCopies", testIsolation},
	{"TxAfterReturn", testTxAfterReturn},
	{"Close", testClose},
	{"ManyNamespaces", testManyNamespaces},
	{"LargeValues", testLargeValues},
	{"BinaryKeys", testBinaryKeys},
	{"EncodedKeys", testEncodedKeys},
	{"ConcurrentViews", testConcurrent},
}

// pair is a key and value seen by Scan.
type pair struct{ k, v string }

func update(t *testing.T, st state.Store, fn func(state.Tx) error) {
	t.Helper()
	if err := st.Update(fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, st state.Store, fn func(state.Tx) error) {
	t.Helper()
	if err := st.View(fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

func put(t *testing.T, st state.Store, ns string, kvs ...string) {
	t.Helper()
	update(t, st, func(tx state.Tx) error {
		for i := 0; i < len(kvs); i += 2 {
			if err := tx.Put(ns, []byte(kvs[i]), []byte(kvs[i+1])); err != nil {
				return err
			}
		}
		return nil
	})
}

// get returns the value of key and whether it is present.
func get(t *testing.T, st state.Store, ns, key string) (string, bool) {
	t.Helper()
	var v []byte
	view(t, st, func(tx state.Tx) (err error) {
		v, err = tx.Get(ns, []byte(key))
		return err
	})
	return string(v), v != nil
}

func wantGet(t *testing.T, st state.Store, ns, key, want string) {
	t.Helper()
	if got, ok := get(t, st, ns, key); !ok || got != want {
		t.Errorf("Get(%q, %q) = %q, present %v; want %q", ns, key, got, ok, want)
	}
}

func wantAbsent(t *testing.T, st state.Store, ns, key string) {
	t.Helper()
	if got, ok := get(t, st, ns, key); ok {
		t.Errorf("Get(%q, %q) = %q; want absent", ns, key, got)
	}
}

func scanTx(tx state.Tx, ns string, prefix []byte) ([]pair, error) {
	var got []pair
	err := tx.Scan(ns, prefix, func(k, v []byte) error {
		got = append(got, pair{string(k), string(v)})
		return nil
	})
	return got, err
}

func scan(t *testing.T, st state.Store, ns string, prefix []byte) []pair {
	t.Helper()
	var got []pair
	view(t, st, func(tx state.Tx) (err error) {
		got, err = scanTx(tx, ns, prefix)
		return err
	})
	return got
}

func namespaces(t *testing.T, st state.Store) []string {
	t.Helper()
	var got []string
	view(t, st, func(tx state.Tx) (err error) {
		got, err = tx.Namespaces()
		return err
	})
	return got
}

func wantPairs(t *testing.T, what string, got, want []pair) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func wantStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
