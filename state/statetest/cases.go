package statetest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// The conformance cases, run by Run in the order of suite.

func testGetPut(t *testing.T, st state.Store) {
	put(t, st, "a", "k1", "v1", "k2", "v2")
	put(t, st, "b", "k1", "other")
	wantGet(t, st, "a", "k1", "v1")
	wantGet(t, st, "a", "k2", "v2")
	wantGet(t, st, "b", "k1", "other")
	put(t, st, "a", "k1", "v1 again")
	wantGet(t, st, "a", "k1", "v1 again")
	wantGet(t, st, "b", "k1", "other")
}

func testAbsent(t *testing.T, st state.Store) {
	wantAbsent(t, st, "nowhere", "k")
	put(t, st, "a", "k", "v")
	wantAbsent(t, st, "a", "k2")
	wantAbsent(t, st, "a", "")
	wantAbsent(t, st, "b", "k")
	if got := scan(t, st, "nowhere", nil); len(got) != 0 {
		t.Errorf("Scan of absent namespace = %q; want nothing", got)
	}
}

func testEmptyValue(t *testing.T, st state.Store) {
	update(t, st, func(tx state.Tx) error {
		if err := tx.Put("a", []byte("nil"), nil); err != nil {
			return err
		}
		return tx.Put("a", []byte("empty"), []byte{})
	})
	for _, k := range []string{"nil", "empty"} {
		view(t, st, func(tx state.Tx) error {
			v, err := tx.Get("a", []byte(k))
			if v == nil || len(v) != 0 {
				t.Errorf("Get(%q) = %#v; want a non-nil empty slice", k, v)
			}
			return err
		})
	}
	wantPairs(t, "Scan", scan(t, st, "a", nil), []pair{{"empty", ""}, {"nil", ""}})
}

func testDelete(t *testing.T, st state.Store) {
	put(t, st, "a", "k1", "v1", "k2", "v2")
	update(t, st, func(tx state.Tx) error {
		if err := tx.Delete("a", []byte("k1")); err != nil {
			return err
		}
		if err := tx.Delete("a", []byte("absent")); err != nil {
			return fmt.Errorf("delete absent key: %w", err)
		}
		if err := tx.Delete("nowhere", []byte("k")); err != nil {
			return fmt.Errorf("delete in absent namespace: %w", err)
		}
		return nil
	})
	wantAbsent(t, st, "a", "k1")
	wantGet(t, st, "a", "k2", "v2")
	wantStrings(t, "Namespaces after deletes", namespaces(t, st), []string{"a"})
	put(t, st, "a", "k1", "back")
	wantGet(t, st, "a", "k1", "back")
}

func testNamespaces(t *testing.T, st state.Store) {
	wantStrings(t, "Namespaces of an empty store", namespaces(t, st), []string{})
	put(t, st, "b", "k", "v")
	put(t, st, "a", "k", "v")
	put(t, st, "a/x", "k", "v")
	wantStrings(t, "Namespaces", namespaces(t, st), []string{"a", "a/x", "b"})
	// A namespace stays when its last key goes.
	update(t, st, func(tx state.Tx) error { return tx.Delete("b", []byte("k")) })
	wantStrings(t, "Namespaces after emptying b", namespaces(t, st), []string{"a", "a/x", "b"})
	// Reads do not create namespaces.
	view(t, st, func(tx state.Tx) error {
		_, err := tx.Get("c", []byte("k"))
		return err
	})
	scan(t, st, "d", nil)
	wantStrings(t, "Namespaces after reads", namespaces(t, st), []string{"a", "a/x", "b"})
}

func testDeleteNamespace(t *testing.T, st state.Store) {
	put(t, st, "a", "k1", "v1", "k2", "v2")
	put(t, st, "b", "k1", "v1")
	update(t, st, func(tx state.Tx) error {
		if err := tx.DeleteNamespace("a"); err != nil {
			return err
		}
		return tx.DeleteNamespace("nowhere")
	})
	wantStrings(t, "Namespaces", namespaces(t, st), []string{"b"})
	wantAbsent(t, st, "a", "k1")
	if got := scan(t, st, "a", nil); len(got) != 0 {
		t.Errorf("Scan of deleted namespace = %q", got)
	}
	// Deleted and re-created in one transaction: only the new key.
	put(t, st, "a", "old", "v")
	update(t, st, func(tx state.Tx) error {
		if err := tx.DeleteNamespace("a"); err != nil {
			return err
		}
		return tx.Put("a", []byte("new"), []byte("v"))
	})
	wantPairs(t, "Scan after re-creating", scan(t, st, "a", nil), []pair{{"new", "v"}})
}

func testInvalid(t *testing.T, st state.Store) {
	for _, ns := range []string{"", "__meta", "__x"} {
		err := st.Update(func(tx state.Tx) error { return tx.Put(ns, []byte("k"), []byte("v")) })
		if err == nil {
			t.Errorf("Put in namespace %q: no error", ns)
		}
		err = st.View(func(tx state.Tx) error {
			_, err := tx.Get(ns, []byte("k"))
			return err
		})
		if err == nil {
			t.Errorf("Get in namespace %q: no error", ns)
		}
	}
	cases := []struct {
		name       string
		key, value []byte
	}{
		{"empty key", nil, []byte("v")},
		{"key too long", make([]byte, 32<<10+1), nil},
	}
	for _, c := range cases {
		err := st.Update(func(tx state.Tx) error { return tx.Put("a", c.key, c.value) })
		if err == nil {
			t.Errorf("Put with %s: no error", c.name)
		}
	}
	put(t, st, "a", string(make([]byte, 32<<10)), "longest key")
	wantStrings(t, "Namespaces", namespaces(t, st), []string{"a"})
}

func testScanOrder(t *testing.T, st state.Store) {
	keys := []string{"b", "a", "ab", "a\x00", "aa", "z", "\xff", "B", "ba", "a\xff", "a\x00\x00"}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	update(t, st, func(tx state.Tx) error {
		for _, k := range keys {
			if err := tx.Put("s", []byte(k), []byte("v"+k)); err != nil {
				return err
			}
		}
		return nil
	})
	sorted := slices.Clone(keys)
	slices.Sort(sorted) // Go compares strings bytewise, as bytes.Compare does
	var want []pair
	for _, k := range sorted {
		want = append(want, pair{k, "v" + k})
	}
	wantPairs(t, "Scan(nil)", scan(t, st, "s", nil), want)
	wantPairs(t, "Scan([]byte{})", scan(t, st, "s", []byte{}), want)
}

func testScanPrefix(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "ab", "2", "abc", "3", "abd", "4", "b", "5", "\xff", "6", "\xff\xff", "7")
	put(t, st, "t", "ab", "other")
	cases := []struct {
		prefix string
		want   []pair
	}{
		{"a", []pair{{"a", "1"}, {"ab", "2"}, {"abc", "3"}, {"abd", "4"}}},
		{"ab", []pair{{"ab", "2"}, {"abc", "3"}, {"abd", "4"}}},
		{"abc", []pair{{"abc", "3"}}},
		{"abcd", nil},
		{"aa", nil},
		{"c", nil},
		{"\xff", []pair{{"\xff", "6"}, {"\xff\xff", "7"}}},
	}
	for _, c := range cases {
		wantPairs(t, fmt.Sprintf("Scan(%q)", c.prefix), scan(t, st, "s", []byte(c.prefix)), c.want)
	}
}

func testScanFrom(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "ab", "2", "abc", "3", "abd", "4", "b", "5")
	cases := []struct {
		prefix, from string
		want         []pair
	}{
		{"", "", []pair{{"a", "1"}, {"ab", "2"}, {"abc", "3"}, {"abd", "4"}, {"b", "5"}}},
		{"", "abc", []pair{{"abc", "3"}, {"abd", "4"}, {"b", "5"}}},
		{"", "abca", []pair{{"abd", "4"}, {"b", "5"}}},
		{"a", "ab\x00", []pair{{"abc", "3"}, {"abd", "4"}}},
		{"ab", "a", []pair{{"ab", "2"}, {"abc", "3"}, {"abd", "4"}}}, // from below the prefix
		{"a", "b", nil},
		{"", "c", nil},
	}
	for _, c := range cases {
		var got []pair
		view(t, st, func(tx state.Tx) error {
			return tx.ScanFrom("s", []byte(c.prefix), []byte(c.from), func(k, v []byte) error {
				got = append(got, pair{string(k), string(v)})
				return nil
			})
		})
		wantPairs(t, fmt.Sprintf("ScanFrom(%q, %q)", c.prefix, c.from), got, c.want)
	}
	// Writes of the transaction that scans are seen from the key on too.
	update(t, st, func(tx state.Tx) error {
		if err := tx.Put("s", []byte("abe"), []byte("6")); err != nil {
			return err
		}
		if err := tx.Delete("s", []byte("abd")); err != nil {
			return err
		}
		var got []pair
		err := tx.ScanFrom("s", []byte("ab"), []byte("abd"), func(k, v []byte) error {
			got = append(got, pair{string(k), string(v)})
			return nil
		})
		wantPairs(t, "ScanFrom in an Update", got, []pair{{"abe", "6"}})
		return err
	})
}

var errStop = errors.New("stop")

func testScanEarlyStop(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "b", "2", "c", "3", "d", "4")
	var seen []string
	err := st.View(func(tx state.Tx) error {
		return tx.Scan("s", nil, func(k, _ []byte) error {
			seen = append(seen, string(k))
			if len(seen) == 2 {
				return fmt.Errorf("at %q: %w", k, errStop)
			}
			return nil
		})
	})
	if !errors.Is(err, errStop) {
		t.Errorf("View = %v; want errStop", err)
	}
	wantStrings(t, "keys seen", seen, []string{"a", "b"})
}

func testScanSlices(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "b", "2")
	view(t, st, func(tx state.Tx) error {
		return tx.Scan("s", nil, func(k, v []byte) error {
			// Mutating what Scan passes must not reach the store.
			for i := range k {
				k[i] = 'X'
			}
			for i := range v {
				v[i] = 'Y'
			}
			return nil
		})
	})
	wantPairs(t, "Scan after mutating", scan(t, st, "s", nil), []pair{{"a", "1"}, {"b", "2"}})
}

func testScanWrites(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "b", "2")
	ops := map[string]func(tx state.Tx) error{
		"Put":             func(tx state.Tx) error { return tx.Put("s", []byte("c"), nil) },
		"Delete":          func(tx state.Tx) error { return tx.Delete("s", []byte("b")) },
		"DeleteNamespace": func(tx state.Tx) error { return tx.DeleteNamespace("s") },
	}
	for name, op := range ops {
		err := st.Update(func(tx state.Tx) error {
			return tx.Scan("s", nil, func(_, _ []byte) error { return op(tx) })
		})
		if err == nil {
			t.Errorf("%s during a scan of its namespace: no error", name)
		}
	}
	// Other namespaces may change, and so may s once the scan is over.
	update(t, st, func(tx state.Tx) error {
		err := tx.Scan("s", nil, func(k, v []byte) error { return tx.Put("copy", k, v) })
		if err != nil {
			return err
		}
		return tx.Delete("s", []byte("a"))
	})
	wantPairs(t, "copy", scan(t, st, "copy", nil), []pair{{"a", "1"}, {"b", "2"}})
	wantPairs(t, "s", scan(t, st, "s", nil), []pair{{"b", "2"}})
}

func testReadYourWrites(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "c", "3", "e", "5")
	update(t, st, func(tx state.Tx) error {
		for _, kv := range [][2]string{{"b", "2"}, {"c", "33"}, {"f", "6"}} {
			if err := tx.Put("s", []byte(kv[0]), []byte(kv[1])); err != nil {
				return err
			}
		}
		if err := tx.Delete("s", []byte("e")); err != nil {
			return err
		}
		if err := tx.Put("n", []byte("k"), []byte("v")); err != nil {
			return err
		}
		if v, err := tx.Get("s", []byte("c")); err != nil || string(v) != "33" {
			t.Errorf("Get(c) in the transaction = %q, %v; want 33", v, err)
		}
		if v, err := tx.Get("s", []byte("e")); err != nil || v != nil {
			t.Errorf("Get(e) after Delete = %q, %v; want nil", v, err)
		}
		got, err := scanTx(tx, "s", nil)
		wantPairs(t, "Scan in the transaction", got, []pair{{"a", "1"}, {"b", "2"}, {"c", "33"}, {"f", "6"}})
		names, _ := tx.Namespaces()
		wantStrings(t, "Namespaces in the transaction", names, []string{"n", "s"})
		return err
	})
	wantPairs(t, "Scan after commit", scan(t, st, "s", nil), []pair{{"a", "1"}, {"b", "2"}, {"c", "33"}, {"f", "6"}})
}

// testWriteOrders runs seeded random Puts, Deletes, Gets and Scans in
// transactions against a map: keys written in key order (which a store
// may write straight into its pages) mixed with keys out of order, the
// same key written twice, two namespaces, a Scan in the middle, and one
// transaction that fails and must leave nothing behind.
func testWriteOrders(t *testing.T, st state.Store) {
	rng := rand.New(rand.NewPCG(7, 11))
	model := map[string]map[string]string{"a": {}, "b": {}}
	key := func(i int) string { return fmt.Sprintf("k%05d", i) }
	for round := range 8 {
		next := map[string]map[string]string{"a": maps.Clone(model["a"]), "b": maps.Clone(model["b"])}
		fail := round == 5
		err := st.Update(func(tx state.Tx) error {
			i := rng.IntN(50) // keys mostly rise, now and then they go back
			for op := range 600 {
				ns := []string{"a", "b"}[rng.IntN(2)]
				if rng.IntN(10) == 0 {
					i = rng.IntN(2000)
				} else {
					i += 1 + rng.IntN(3)
				}
				k := key(i)
				switch r := rng.IntN(10); {
				case r < 6:
					v := fmt.Sprintf("v%d.%d", round, op)
					if err := tx.Put(ns, []byte(k), []byte(v)); err != nil {
						return err
					}
					next[ns][k] = v
				case r < 8:
					if err := tx.Delete(ns, []byte(k)); err != nil {
						return err
					}
					delete(next[ns], k)
				case r < 9:
					got, err := tx.Get(ns, []byte(k))
					if err != nil {
						return err
					}
					want, ok := next[ns][k]
					if (got != nil) != ok || string(got) != want {
						t.Fatalf("round %d op %d: Get(%s, %s) = %q, want %q (present %v)", round, op, ns, k, got, want, ok)
					}
				case op%100 == 0:
					got, err := scanTx(tx, ns, nil)
					if err != nil {
						return err
					}
					wantPairs(t, fmt.Sprintf("round %d op %d: Scan(%s)", round, op, ns), got, modelPairs(next[ns]))
				}
			}
			if fail {
				return errors.New("fail")
			}
			return nil
		})
		if fail != (err != nil) {
			t.Fatalf("round %d: Update = %v", round, err)
		}
		if !fail {
			model = next
		}
		for _, ns := range []string{"a", "b"} {
			wantPairs(t, fmt.Sprintf("round %d: %s after the transaction", round, ns), scan(t, st, ns, nil), modelPairs(model[ns]))
		}
	}
}

// modelPairs is the pairs of m in key order, as Scan gives them.
func modelPairs(m map[string]string) []pair {
	ps := make([]pair, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ps = append(ps, pair{k, m[k]})
	}
	return ps
}

func testRollback(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1", "b", "2")
	errFail := errors.New("fail")
	err := st.Update(func(tx state.Tx) error {
		for _, op := range []error{
			tx.Put("s", []byte("a"), []byte("changed")),
			tx.Put("s", []byte("c"), []byte("new")),
			tx.Delete("s", []byte("b")),
			tx.Put("fresh", []byte("k"), []byte("v")),
		} {
			if op != nil {
				return op
			}
		}
		return errFail
	})
	if !errors.Is(err, errFail) {
		t.Fatalf("Update = %v; want the function's error", err)
	}
	wantPairs(t, "Scan after rollback", scan(t, st, "s", nil), []pair{{"a", "1"}, {"b", "2"}})
	wantStrings(t, "Namespaces after rollback", namespaces(t, st), []string{"s"})
	put(t, st, "s", "c", "3") // the store still works
	wantGet(t, st, "s", "c", "3")
}

func testRollbackDeleteNamespace(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1")
	put(t, st, "t", "b", "2")
	errFail := errors.New("fail")
	err := st.Update(func(tx state.Tx) error {
		if err := tx.DeleteNamespace("s"); err != nil {
			return err
		}
		if err := tx.DeleteNamespace("t"); err != nil {
			return err
		}
		if err := tx.Put("t", []byte("new"), nil); err != nil {
			return err
		}
		return errFail
	})
	if !errors.Is(err, errFail) {
		t.Fatalf("Update = %v; want the function's error", err)
	}
	wantStrings(t, "Namespaces", namespaces(t, st), []string{"s", "t"})
	wantPairs(t, "s", scan(t, st, "s", nil), []pair{{"a", "1"}})
	wantPairs(t, "t", scan(t, st, "t", nil), []pair{{"b", "2"}})
}

func testRollbackOnPanic(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1")
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v; want the function's panic", r)
			}
		}()
		st.Update(func(tx state.Tx) error {
			tx.Put("s", []byte("a"), []byte("changed"))
			tx.Put("s", []byte("b"), []byte("new"))
			panic("boom")
		})
	}()
	wantPairs(t, "Scan after panic", scan(t, st, "s", nil), []pair{{"a", "1"}})
	put(t, st, "s", "b", "2")
	wantGet(t, st, "s", "b", "2")
}

func testViewReadOnly(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1")
	view(t, st, func(tx state.Tx) error {
		for name, err := range map[string]error{
			"Put":                      tx.Put("s", []byte("b"), []byte("2")),
			"Put in a new namespace":   tx.Put("new", []byte("b"), []byte("2")),
			"Delete":                   tx.Delete("s", []byte("a")),
			"DeleteNamespace":          tx.DeleteNamespace("s"),
			"DeleteNamespace (absent)": tx.DeleteNamespace("absent"),
		} {
			if !errors.Is(err, state.ErrReadOnly) {
				t.Errorf("%s in View = %v; want ErrReadOnly", name, err)
			}
		}
		return nil
	})
	wantPairs(t, "Scan", scan(t, st, "s", nil), []pair{{"a", "1"}})
	wantStrings(t, "Namespaces", namespaces(t, st), []string{"s"})
}

func testIsolation(t *testing.T, st state.Store) {
	key, value := []byte("k"), []byte("value")
	update(t, st, func(tx state.Tx) error {
		if err := tx.Put("s", key, value); err != nil {
			return err
		}
		// The caller may reuse its buffers as soon as Put returns, even
		// before the commit.
		key[0], value[0] = 'X', 'X'
		v, err := tx.Get("s", []byte("k"))
		if err == nil {
			v[0] = 'Y' // a returned slice belongs to the caller
		}
		return err
	})
	view(t, st, func(tx state.Tx) error {
		v, err := tx.Get("s", []byte("k"))
		if err == nil {
			v[0] = 'Z'
		}
		return err
	})
	wantGet(t, st, "s", "k", "value")
	wantAbsent(t, st, "s", "X")
	names := namespaces(t, st)
	names[0] = "changed"
	wantStrings(t, "Namespaces", namespaces(t, st), []string{"s"})
}

func testTxAfterReturn(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1")
	var kept state.Tx
	update(t, st, func(tx state.Tx) error { kept = tx; return nil })
	if err := kept.Put("s", []byte("b"), nil); err == nil {
		t.Error("Put on a finished transaction: no error")
	}
	if _, err := kept.Get("s", []byte("a")); err == nil {
		t.Error("Get on a finished transaction: no error")
	}
	view(t, st, func(tx state.Tx) error { kept = tx; return nil })
	if err := kept.Scan("s", nil, func(_, _ []byte) error { return nil }); err == nil {
		t.Error("Scan on a finished transaction: no error")
	}
	if _, err := kept.Namespaces(); err == nil {
		t.Error("Namespaces on a finished transaction: no error")
	}
	wantPairs(t, "Scan", scan(t, st, "s", nil), []pair{{"a", "1"}})
}

func testClose(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "1")
	if err := st.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	called := false
	fn := func(state.Tx) error { called = true; return nil }
	if err := st.View(fn); !errors.Is(err, state.ErrClosed) {
		t.Errorf("View after Close = %v; want ErrClosed", err)
	}
	if err := st.Update(fn); !errors.Is(err, state.ErrClosed) {
		t.Errorf("Update after Close = %v; want ErrClosed", err)
	}
	if called {
		t.Error("a closed store ran the function")
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

func testManyNamespaces(t *testing.T, st state.Store) {
	const n = 300
	var want []string
	update(t, st, func(tx state.Tx) error {
		for i := range n {
			ns := fmt.Sprintf("uid%03d/count", i)
			want = append(want, ns)
			for j := range 3 {
				if err := tx.Put(ns, fmt.Appendf(nil, "k%d", j), fmt.Appendf(nil, "%d/%d", i, j)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	wantStrings(t, "Namespaces", namespaces(t, st), want)
	wantGet(t, st, "uid123/count", "k2", "123/2")
	update(t, st, func(tx state.Tx) error {
		for i := 0; i < n; i += 2 {
			if err := tx.DeleteNamespace(want[i]); err != nil {
				return err
			}
		}
		return nil
	})
	var odd []string
	for i := 1; i < n; i += 2 {
		odd = append(odd, want[i])
	}
	wantStrings(t, "Namespaces after deleting half", namespaces(t, st), odd)
	wantAbsent(t, st, "uid122/count", "k0")
	wantPairs(t, "Scan of one namespace", scan(t, st, "uid123/count", nil),
		[]pair{{"k0", "123/0"}, {"k1", "123/1"}, {"k2", "123/2"}})
}

func testLargeValues(t *testing.T, st state.Store) {
	const size = 1 << 20
	vals := make([][]byte, 3)
	for i := range vals {
		vals[i] = bytes.Repeat([]byte{byte('a' + i), 0x00, 0xff}, size/3+1)[:size]
	}
	update(t, st, func(tx state.Tx) error {
		for i, v := range vals {
			if err := tx.Put("big", []byte{byte(i)}, v); err != nil {
				return err
			}
		}
		return nil
	})
	view(t, st, func(tx state.Tx) error {
		for i, want := range vals {
			got, err := tx.Get("big", []byte{byte(i)})
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				t.Errorf("value %d: got %d bytes, want %d equal bytes", i, len(got), len(want))
			}
		}
		i := 0
		return tx.Scan("big", nil, func(_, v []byte) error {
			if !bytes.Equal(v, vals[i]) {
				t.Errorf("Scan value %d differs", i)
			}
			i++
			return nil
		})
	})
}

func testBinaryKeys(t *testing.T, st state.Store) {
	keys := [][]byte{
		{0x00}, {0x00, 0x00}, {0x00, 0xff}, {0x00, 0x01}, {0x01},
		{0xff}, {0xff, 0x00}, {0xff, 0xff}, {0xff, 0xff, 0xff}, {0x7f, 0x80},
	}
	update(t, st, func(tx state.Tx) error {
		for i, k := range keys {
			if err := tx.Put("bin", k, []byte{byte(i), 0x00, 0xff}); err != nil {
				return err
			}
		}
		return nil
	})
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, bytes.Compare)
	var want []pair
	for _, k := range sorted {
		i := slices.IndexFunc(keys, func(x []byte) bool { return bytes.Equal(x, k) })
		want = append(want, pair{string(k), string([]byte{byte(i), 0x00, 0xff})})
	}
	wantPairs(t, "Scan", scan(t, st, "bin", nil), want)
	wantPairs(t, "Scan(0x00)", scan(t, st, "bin", []byte{0x00}), want[:4])
	wantPairs(t, "Scan(0xff 0xff)", scan(t, st, "bin", []byte{0xff, 0xff}), want[len(want)-2:])
	wantGet(t, st, "bin", "\x00", "\x00\x00\xff")
	wantAbsent(t, st, "bin", "\x00\x00\x00")
}

// testEncodedKeys stores keys made with the state encoding, as runtime will:
// (partition key, timestamp), and scans one partition in time order.
func testEncodedKeys(t *testing.T, st state.Store) {
	users := []string{"bob", "al", "al\x00", "", "alice"}
	times := []int64{50, -3, 0, 1 << 40, -1 << 40}
	update(t, st, func(tx state.Tx) error {
		for _, u := range users {
			for _, ts := range times {
				k := orderedcode.AppendInt64(orderedcode.AppendString(nil, u), ts)
				if err := tx.Put("timers", k, []byte(u)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	var got []int64
	view(t, st, func(tx state.Tx) error {
		return tx.Scan("timers", orderedcode.AppendString(nil, "al"), func(k, v []byte) error {
			d := orderedcode.NewDecoder(k)
			u, err := d.String()
			if err != nil {
				return err
			}
			ts, err := d.Int64()
			if err != nil {
				return err
			}
			if u != "al" || string(v) != "al" || !d.Done() {
				t.Errorf("Scan of partition al visited %q/%d = %q", u, ts, v)
			}
			got = append(got, ts)
			return nil
		})
	})
	want := slices.Sorted(slices.Values(times))
	if !slices.Equal(got, want) {
		t.Errorf("timestamps of al: got %d, want %d", got, want)
	}
}

// testConcurrent runs Views while Updates commit, checking that each View
// sees a consistent snapshot: a and b are always written together.
func testConcurrent(t *testing.T, st state.Store) {
	put(t, st, "s", "a", "0", "b", "0")
	const writes = 50
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				err := st.View(func(tx state.Tx) error {
					a, err := tx.Get("s", []byte("a"))
					if err != nil {
						return err
					}
					pairs, err := scanTx(tx, "s", nil)
					if err != nil {
						return err
					}
					if len(pairs) != 2 || pairs[0].v != string(a) || pairs[1].v != string(a) {
						return fmt.Errorf("inconsistent snapshot: a=%q, scan %q", a, pairs)
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for i := 1; i <= writes; i++ {
		v := fmt.Sprint(i)
		put(t, st, "s", "a", v, "b", v)
	}
	close(done)
	wg.Wait()
	wantGet(t, st, "s", "b", fmt.Sprint(writes))
}
