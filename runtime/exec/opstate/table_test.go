package opstate_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

type stringCodec struct{}

func (stringCodec) Append(b []byte, v string) ([]byte, error) { return append(b, v...), nil }
func (stringCodec) Decode(b []byte) (string, error)           { return string(b), nil }

func open(t *testing.T, st state.Store, cache int) *opstate.Table[string] {
	return openSpilling(t, st, cache, 0)
}

// openSpilling opens the table with its live generation spilled after
// spill writes (0: the default).
func openSpilling(t *testing.T, st state.Store, cache, spill int) *opstate.Table[string] {
	t.Helper()
	// Compactions of a few keys a transaction, so that they span reads,
	// writes, scans, checkpoints and crashes.
	opts := opstate.SmallBatches(opstate.Options{CacheEntries: cache}, 3)
	if spill > 0 {
		opts = opstate.SmallSpills(opts, spill)
	}
	tb, err := opstate.Open[string](st, "op/t", stringCodec{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func checkpoint(t *testing.T, st state.Store, tb *opstate.Table[string]) {
	t.Helper()
	if err := st.Update(tb.Flush); err != nil {
		t.Fatal(err)
	}
}

func scanAll(t *testing.T, tb *opstate.Table[string], prefix string) map[string]string {
	t.Helper()
	got := map[string]string{}
	var last string
	err := tb.Scan([]byte(prefix), func(k []byte, v string) (bool, error) {
		if len(got) > 0 && string(k) <= last {
			t.Errorf("Scan(%q): key %q after %q", prefix, k, last)
		}
		last = string(k)
		got[string(k)] = v
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func withPrefix(m map[string]string, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if strings.HasPrefix(k, prefix) {
			out[k] = v
		}
	}
	return out
}

// TestTable_model runs random reads, writes, deletions, scans,
// checkpoints and crashes against a map, with caches small enough that
// most keys live in the store, on both stores, and with live generations
// spilled after a few writes. After each checkpoint ScanStored reads what
// it committed.
func TestTable_model(t *testing.T) {
	stores := map[string]func(*testing.T) state.Store{"mem": statetest.OpenMem, "bolt": statetest.OpenBolt}
	for name, openStore := range stores {
		for _, tc := range []struct{ cache, spill int }{{1, 0}, {7, 0}, {50, 0}, {1000, 0}, {1, 4}, {7, 5}, {50, 9}} {
			cache := tc.cache
			t.Run(fmt.Sprintf("%s/cache=%d/spill=%d", name, cache, tc.spill), func(t *testing.T) {
				st := openStore(t)
				r := rand.New(rand.NewPCG(uint64(cache), uint64(1+tc.spill)))
				open := func(t *testing.T, st state.Store, cache int) *opstate.Table[string] {
					return openSpilling(t, st, cache, tc.spill)
				}
				tb := open(t, st, cache)
				live := map[string]string{}      // what the table holds now
				committed := map[string]string{} // as of the last checkpoint
				key := func() string { return fmt.Sprintf("%c%02d", 'a'+r.IntN(3), r.IntN(40)) }
				steps := 4000
				if testing.Short() {
					steps = 1000
				}
				for i := range steps {
					switch op := r.IntN(100); {
					case op < 30:
						k := key()
						v, ok, err := tb.Get([]byte(k))
						if err != nil {
							t.Fatal(err)
						}
						if want, wok := live[k]; ok != wok || v != want {
							t.Fatalf("step %d: Get(%q) = %q, %v; want %q, %v", i, k, v, ok, want, wok)
						}
					case op < 60:
						k, v := key(), fmt.Sprint(i)
						if err := tb.Put([]byte(k), v); err != nil {
							t.Fatal(err)
						}
						live[k] = v
					case op < 75:
						k := key()
						if err := tb.Delete([]byte(k)); err != nil {
							t.Fatal(err)
						}
						delete(live, k)
					case op < 80:
						p := string(rune('a' + r.IntN(3)))
						if got, want := scanAll(t, tb, p), withPrefix(live, p); !maps.Equal(got, want) {
							t.Fatalf("step %d: Scan(%q) = %v; want %v", i, p, got, want)
						}
					case op < 82:
						p := string(rune('a' + r.IntN(3)))
						from := key()
						want := map[string]string{}
						for k, v := range withPrefix(live, p) {
							if k >= from {
								want[k] = v
							}
						}
						got := map[string]string{}
						err := tb.ScanFrom([]byte(p), []byte(from), func(k []byte, v string) (bool, error) {
							got[string(k)] = v
							return true, nil
						})
						if err != nil {
							t.Fatal(err)
						}
						if !maps.Equal(got, want) {
							t.Fatalf("step %d: ScanFrom(%q, %q) = %v; want %v", i, p, from, got, want)
						}
					case op < 84:
						// A Scan that deletes every other key and rewrites the rest.
						p := string(rune('a' + r.IntN(3)))
						n := 0
						err := tb.Scan([]byte(p), func(k []byte, v string) (bool, error) {
							n++
							if n%2 == 0 {
								delete(live, string(k))
								return true, tb.Delete(k)
							}
							live[string(k)] = v + "'"
							return true, tb.Put(k, v+"'")
						})
						if err != nil {
							t.Fatal(err)
						}
					case op < 86:
						// A Scan that deletes, at each key, the key after
						// it, which it must then not visit.
						p := string(rune('a' + r.IntN(3)))
						keys := slices.Sorted(maps.Keys(withPrefix(live, p)))
						next := map[string]string{}
						for j := 0; j+1 < len(keys); j++ {
							next[keys[j]] = keys[j+1]
						}
						gone := map[string]bool{}
						err := tb.Scan([]byte(p), func(k []byte, v string) (bool, error) {
							if gone[string(k)] {
								t.Fatalf("step %d: Scan(%q) visited %q, deleted before its turn", i, p, k)
							}
							if n, ok := next[string(k)]; ok && r.IntN(2) == 0 {
								gone[n] = true
								delete(live, n)
								return true, tb.Delete([]byte(n))
							}
							return true, nil
						})
						if err != nil {
							t.Fatal(err)
						}
					case op < 92:
						checkpoint(t, st, tb)
						committed = maps.Clone(live)
						stored := map[string]string{}
						err := st.View(func(tx state.Tx) error {
							return opstate.ScanStored(tx, "op/t", nil, func(k, v []byte) error {
								stored[string(k)] = string(v)
								return nil
							})
						})
						if err != nil {
							t.Fatal(err)
						}
						if !maps.Equal(stored, committed) {
							t.Fatalf("step %d: ScanStored after a checkpoint = %v; want %v", i, stored, committed)
						}
					default:
						// A crash: the table is lost; a new run opens it.
						tb = open(t, st, cache)
						live = maps.Clone(committed)
						if got := scanAll(t, tb, ""); !maps.Equal(got, live) {
							t.Fatalf("step %d: after a restart the table holds %v; want the last checkpoint's %v", i, got, live)
						}
					}
				}
				checkpoint(t, st, tb)
				if got := scanAll(t, open(t, st, cache), ""); !maps.Equal(got, live) {
					t.Errorf("after the last checkpoint the store holds %v; want %v", got, live)
				}
				if tb.Cached() > cache {
					t.Errorf("the cache holds %d entries; want at most %d", tb.Cached(), cache)
				}
			})
		}
	}
}

// TestTable_memoryBound checks that a table of many keys keeps only its
// cache in memory and the rest in the delta and then the store.
func TestTable_memoryBound(t *testing.T) {
	st := statetest.OpenMem(t)
	tb := open(t, st, 100)
	for i := range 10_000 {
		if err := tb.Put(fmt.Appendf(nil, "k%05d", i), fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
		if tb.Cached() > 100 {
			t.Fatalf("after %d keys the cache holds %d entries", i+1, tb.Cached())
		}
	}
	for i := range 10_000 {
		v, ok, err := tb.Get(fmt.Appendf(nil, "k%05d", i))
		if err != nil || !ok || v != fmt.Sprint(i) {
			t.Fatalf("Get(k%05d) = %q, %v, %v", i, v, ok, err)
		}
	}
	checkpoint(t, st, tb)
	if got := len(scanAll(t, tb, "k")); got != 10_000 {
		t.Errorf("Scan after the checkpoint saw %d keys; want 10000", got)
	}
}

// ptrCodec encodes *int values, which a caller changes in place.
type ptrCodec struct{}

func (ptrCodec) Append(b []byte, v *int) ([]byte, error) {
	return strconv.AppendInt(b, int64(*v), 10), nil
}
func (ptrCodec) Decode(b []byte) (*int, error) {
	n, err := strconv.Atoi(string(b))
	return &n, err
}

// TestTable_changeInPlace: a value that Get read from the store, changed
// in place and Touched is written, however full the cache was when Get
// added it (an eviction that Get begins must not take the value it
// returns).
func TestTable_changeInPlace(t *testing.T) {
	st := state.NewMem()
	for _, size := range []int{1, 2, 16, 64} {
		ns := "t" + strconv.Itoa(size)
		tb, err := opstate.Open[*int](st, ns, ptrCodec{}, opstate.Options{CacheEntries: size})
		if err != nil {
			t.Fatal(err)
		}
		keys := 3 * size
		want := make([]int, keys)
		for k := range keys {
			v := 0
			if err := tb.Put([]byte{byte(k)}, &v); err != nil {
				t.Fatal(err)
			}
		}
		r := rand.New(rand.NewPCG(uint64(size), 1))
		for range 50 * keys {
			// Mostly keys the cache holds, so that their use bits are set
			// when a miss makes room.
			k := r.IntN(keys)
			if r.IntN(4) > 0 {
				k = r.IntN(size)
			}
			v, _, err := tb.Get([]byte{byte(k)})
			if err != nil {
				t.Fatal(err)
			}
			*v++
			want[k]++
			tb.Touch([]byte{byte(k)})
		}
		if err := st.Update(tb.Flush); err != nil {
			t.Fatal(err)
		}
		tb, err = opstate.Open[*int](st, ns, ptrCodec{}, opstate.Options{CacheEntries: size})
		if err != nil {
			t.Fatal(err)
		}
		for k := range keys {
			v, _, err := tb.Get([]byte{byte(k)})
			if err != nil {
				t.Fatal(err)
			}
			if *v != want[k] {
				t.Fatalf("cache of %d: key %d holds %d after %d changes in place", size, k, *v, want[k])
			}
		}
	}
}

// TestTable_deleteUnstored: a key deleted before any of it reached the
// store leaves the cache at once (no marker), so that a table whose keys
// come and go, as a window operator's, keeps a small cache and fast scans.
func TestTable_deleteUnstored(t *testing.T) {
	st := statetest.OpenMem(t)
	tb := open(t, st, 1000)
	for i := range 500 {
		k := fmt.Appendf(nil, "k%05d", i)
		if err := tb.Put(k, "v"); err != nil {
			t.Fatal(err)
		}
		if err := tb.Delete(k); err != nil {
			t.Fatal(err)
		}
	}
	if n := tb.Cached(); n != 0 {
		t.Errorf("after 500 keys put and deleted the cache holds %d entries; want 0", n)
	}
	checkpoint(t, st, tb)
	if got := scanAll(t, tb, ""); len(got) != 0 {
		t.Errorf("the table holds %v; want nothing", got)
	}
	// Once a key is in the store, its deletion must reach the store.
	if err := tb.Put([]byte("s"), "v"); err != nil {
		t.Fatal(err)
	}
	checkpoint(t, st, tb)
	if err := tb.Delete([]byte("s")); err != nil {
		t.Fatal(err)
	}
	checkpoint(t, st, tb)
	if got := scanAll(t, open(t, st, 1000), ""); len(got) != 0 {
		t.Errorf("after a checkpoint of the deletion the store holds %v; want nothing", got)
	}
}

// countingStore counts the writes of its Update transactions.
type countingStore struct {
	state.Store
	puts int
}

type countingTx struct {
	state.Tx
	s *countingStore
}

func (s *countingStore) Update(fn func(state.Tx) error) error {
	return s.Store.Update(func(tx state.Tx) error { return fn(countingTx{tx, s}) })
}

func (tx countingTx) Put(ns string, k, v []byte) error {
	tx.s.puts++
	return tx.Tx.Put(ns, k, v)
}

// TestTable_checkpointWritesChanges: a checkpoint writes the cache's
// changed values and the list of generations, not the table, however many
// keys the table holds; compactions keep the generations few; the state
// read back after a restart is the last checkpoint's.
func TestTable_checkpointWritesChanges(t *testing.T) {
	const cache, perCheckpoint, checkpoints = 100, 1000, 60
	st := &countingStore{Store: statetest.OpenMem(t)}
	tb, err := opstate.Open[string](st, "op/t", stringCodec{}, opstate.Options{CacheEntries: cache})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	want := map[string]string{}
	maxGens := 0
	for c := range checkpoints {
		for i := range perCheckpoint {
			k := fmt.Sprintf("k%06d", r.IntN(20_000))
			v := fmt.Sprint(c, "/", i)
			if r.IntN(10) == 0 {
				if err := tb.Delete([]byte(k)); err != nil {
					t.Fatal(err)
				}
				delete(want, k)
				continue
			}
			if err := tb.Put([]byte(k), v); err != nil {
				t.Fatal(err)
			}
			want[k] = v
		}
		st.puts = 0
		if err := st.Update(tb.Flush); err != nil {
			t.Fatal(err)
		}
		if st.puts > cache+1 {
			t.Fatalf("checkpoint %d of a table of %d keys wrote %d keys; want at most the cache's %d and the list", c, len(want), st.puts, cache)
		}
		n, _ := tb.Generations()
		maxGens = max(maxGens, n)
	}
	if maxGens > 8 {
		t.Errorf("%d generations at most after %d checkpoints; want compactions to keep them few", maxGens, checkpoints)
	}
	if got := scanAll(t, open(t, st, cache), ""); !maps.Equal(got, want) {
		t.Errorf("after a restart the table holds %d keys; want the last checkpoint's %d", len(got), len(want))
	}
	// Every key read back one by one, through the filters.
	tb2 := open(t, st, cache)
	for i := range 20_000 {
		k := fmt.Sprintf("k%06d", i)
		v, ok, err := tb2.Get([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		if w, wok := want[k]; ok != wok || v != w {
			t.Fatalf("Get(%q) = %q, %v; want %q, %v", k, v, ok, w, wok)
		}
	}
}

// TestTable_olderStateFile: a table's namespace as older builds wrote it
// (the state of the last checkpoint, values without markers) is read as
// the oldest generation, and merged into the new form.
func TestTable_olderStateFile(t *testing.T) {
	st := statetest.OpenBolt(t)
	want := map[string]string{}
	if err := st.Update(func(tx state.Tx) error {
		for i := range 50 {
			k, v := fmt.Sprintf("k%02d", i), fmt.Sprint("old", i)
			want[k] = v
			if err := tx.Put("op/t", []byte(k), []byte(v)); err != nil {
				return err
			}
		}
		// What a run of an older build left before its next checkpoint.
		return tx.Put("delta/op/t", []byte("k00"), []byte("vlost"))
	}); err != nil {
		t.Fatal(err)
	}
	tb := open(t, st, 5)
	if got := scanAll(t, tb, ""); !maps.Equal(got, want) {
		t.Fatalf("an older state file read as %v; want %v", got, want)
	}
	for i := range 50 {
		k := fmt.Sprintf("k%02d", i)
		switch i % 3 {
		case 0:
			if err := tb.Delete([]byte(k)); err != nil {
				t.Fatal(err)
			}
			delete(want, k)
		case 1:
			if err := tb.Put([]byte(k), "new"); err != nil {
				t.Fatal(err)
			}
			want[k] = "new"
		}
		if i%10 == 9 {
			checkpoint(t, st, tb)
		}
	}
	checkpoint(t, st, tb)
	// Compactions go on as the table is used.
	for range 100 {
		if _, _, err := tb.Get([]byte("k01")); err != nil {
			t.Fatal(err)
		}
	}
	if got := scanAll(t, open(t, st, 5), ""); !maps.Equal(got, want) {
		t.Fatalf("after checkpoints the table holds %v; want %v", got, want)
	}
	var names []string
	if err := st.View(func(tx state.Tx) (err error) { names, err = tx.Namespaces(); return err }); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, "delta/op/t") {
		t.Errorf("namespaces %q: the older build's unfinished delta is still there", names)
	}
}
