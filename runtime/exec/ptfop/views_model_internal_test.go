package ptfop

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

// viewModel is what the lists and maps of the test's keys hold.
type viewModel struct {
	lists map[string][]string
	maps  map[string]map[string]int64
}

func (m viewModel) clone() viewModel {
	c := viewModel{lists: map[string][]string{}, maps: map[string]map[string]int64{}}
	for k, l := range m.lists {
		c.lists[k] = slices.Clone(l)
	}
	for k, e := range m.maps {
		c.maps[k] = maps.Clone(e)
	}
	return c
}

func modelKey(k string) *keyState {
	return &keyState{key: []any{k}, enc: keycodec.Encode([]any{k})}
}

// readViews returns list l and map m of key k as the views read them:
// the list by size, slices and single gets, the map by iteration and
// gets.
func readViews(v *viewState, k string) (list []string, entries map[string]int64, err error) {
	ks := modelKey(k)
	n, err := v.ListSize(ks, 0)
	if err != nil {
		return nil, nil, err
	}
	for from := 0; from < n; from += 100 {
		xs, err := v.ListSlice(ks, 0, from, 100)
		if err != nil {
			return nil, nil, err
		}
		for _, x := range xs {
			list = append(list, x.(string))
		}
	}
	if n > 0 {
		last, err := v.ListSlice(ks, 0, n-1, 1)
		if err != nil {
			return nil, nil, err
		}
		if last[0] != list[n-1] {
			return nil, nil, fmt.Errorf("get(%d) = %v, slice has %v", n-1, last[0], list[n-1])
		}
	}
	it, err := v.MapIter(ks, 1)
	if err != nil {
		return nil, nil, err
	}
	entries = map[string]int64{}
	var order []string
	for {
		mk, mv, ok, err := it.Next()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		entries[mk.(string)] = mv.(int64)
		order = append(order, mk.(string))
	}
	if !slices.IsSorted(order) {
		return nil, nil, fmt.Errorf("map iterated out of order: %v", order)
	}
	for _, mk := range []string{"a", "c", "zz"} {
		got, ok, err := v.MapGet(ks, 1, mk)
		if err != nil {
			return nil, nil, err
		}
		if want, wok := entries[mk]; ok != wok || ok && got != want {
			return nil, nil, fmt.Errorf("get(%q) = %v, %v; iteration found %v, %v", mk, got, ok, want, wok)
		}
	}
	return list, entries, nil
}

// TestViews_model runs random list and map operations of one or two
// workers (each on its own keys, at once) with checkpoints and crashes
// (a new operator over the store, which the changes since the last
// checkpoint never reached) against a model, with a table cache of a few
// elements so that most of them live in the store, on both stores.
func TestViews_model(t *testing.T) {
	stores := map[string]func(*testing.T) state.Store{"mem": statetest.OpenMem, "bolt": statetest.OpenBolt}
	for name, openStore := range stores {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(t *testing.T) {
				st := openStore(t)
				var clock int64
				var vs []*viewState
				start := func() {
					h := ttlHarness(t, st, &clock, func(*ptf.Context, types.Row) error { return nil })
					h.op.ex.Opts.CacheSize = 5
					vs = []*viewState{&h.op.views}
					for len(vs) < workers {
						w := h.op.views.worker()
						vs = append(vs, &w)
					}
				}
				start()
				const keys = 8
				key := func(w int, r *rand.Rand) string { return fmt.Sprintf("k%d", w+workers*r.IntN(keys/workers)) }
				live := viewModel{lists: map[string][]string{}, maps: map[string]map[string]int64{}}
				committed := live.clone()
				rounds := 60
				if testing.Short() {
					rounds = 20
				}
				for round := range rounds {
					// Each worker changes its own keys, at once.
					var wg sync.WaitGroup
					var mu sync.Mutex // guards live
					for w := range workers {
						wg.Add(1)
						go func() {
							defer wg.Done()
							r := rand.New(rand.NewPCG(uint64(round), uint64(w)))
							v := vs[w]
							for step := range 40 {
								k := key(w, r)
								ks := modelKey(k)
								var err error
								mu.Lock()
								switch op := r.IntN(100); {
								case op < 40:
									x := fmt.Sprintf("%d.%d.%d", round, w, step)
									err = v.ListAdd(ks, 0, []any{x})
									live.lists[k] = append(live.lists[k], x)
								case op < 43:
									err = v.ListClear(ks, 0)
									delete(live.lists, k)
								case op < 80:
									mk, n := string(rune('a'+r.IntN(6))), int64(r.IntN(1000))
									err = v.MapPut(ks, 1, []any{mk}, []any{n})
									if live.maps[k] == nil {
										live.maps[k] = map[string]int64{}
									}
									live.maps[k][mk] = n
								case op < 95:
									mk := string(rune('a' + r.IntN(6)))
									err = v.MapRemove(ks, 1, mk)
									delete(live.maps[k], mk)
								default:
									err = v.MapClear(ks, 1)
									delete(live.maps, k)
								}
								want := live.clone()
								mu.Unlock()
								if err != nil {
									t.Errorf("round %d worker %d step %d: %v", round, w, step, err)
									return
								}
								l, m, err := readViews(v, k)
								if err != nil {
									t.Errorf("round %d worker %d step %d: key %s: %v", round, w, step, k, err)
									return
								}
								if diff := cmp.Diff(want.lists[k], l); diff != "" {
									t.Errorf("round %d worker %d step %d: list of %s (-want +got):\n%s", round, w, step, k, diff)
								}
								if diff := cmp.Diff(want.maps[k], m, cmpEmpty); diff != "" {
									t.Errorf("round %d worker %d step %d: map of %s (-want +got):\n%s", round, w, step, k, diff)
								}
							}
						}()
					}
					wg.Wait()
					if t.Failed() {
						return
					}
					r := rand.New(rand.NewPCG(uint64(round), 99))
					switch op := r.IntN(10); {
					case op < 4:
						if err := st.Update(vs[0].flush); err != nil {
							t.Fatal(err)
						}
						committed = live.clone()
					case op < 6:
						start() // a crash: the changes since the last checkpoint are lost
						live = committed.clone()
						for k := range keys {
							key := fmt.Sprintf("k%d", k)
							l, m, err := readViews(vs[k%workers], key)
							if err != nil {
								t.Fatalf("round %d, after a restart: key %s: %v", round, key, err)
							}
							if diff := cmp.Diff(live.lists[key], l); diff != "" {
								t.Fatalf("round %d, after a restart: list of %s (-want +got):\n%s", round, key, diff)
							}
							if diff := cmp.Diff(live.maps[key], m, cmpEmpty); diff != "" {
								t.Fatalf("round %d, after a restart: map of %s (-want +got):\n%s", round, key, diff)
							}
						}
					}
				}
			})
		}
	}
}

// cmpEmpty makes a nil map equal to an empty one.
var cmpEmpty = cmp.Comparer(func(a, b map[string]int64) bool { return maps.Equal(a, b) })

// countingStore records the namespaces each Update puts keys in.
type countingStore struct {
	state.Store
	puts map[string]int
}

func (s *countingStore) Update(fn func(state.Tx) error) error {
	return s.Store.Update(func(tx state.Tx) error { return fn(countingTx{tx, s}) })
}

type countingTx struct {
	state.Tx
	s *countingStore
}

func (tx countingTx) Put(ns string, k, v []byte) error {
	tx.s.puts[ns]++
	return tx.Tx.Put(ns, k, v)
}

// A checkpoint writes what changed since the one before, into a
// namespace of its own: not into the namespaces that hold the earlier
// checkpoints' elements and entries, whose pages a few changes at random
// keys would all rewrite.
func TestViews_checkpointWritesChanges(t *testing.T) {
	st := &countingStore{Store: statetest.OpenBolt(t), puts: map[string]int{}}
	var clock int64
	h := ttlHarness(t, st, &clock, func(ctx *ptf.Context, r types.Row) error {
		if err := ctx.List(0).Add(r.Fields[1]); err != nil {
			return err
		}
		return ctx.Map(1).Put(r.Fields[1], int64(1))
	})
	const keys = 2000
	var rows []types.Row
	for k := range keys {
		rows = append(rows, types.Row{Fields: []any{fmt.Sprintf("k%04d", k), "x"}})
	}
	if _, err := h.Process(rows...); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	if err := st.View(func(tx state.Tx) error {
		names, err := tx.Namespaces()
		for _, n := range names {
			before[n] = true
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	clear(st.puts)
	var changed []types.Row
	for k := 0; k < keys; k += 100 {
		changed = append(changed, types.Row{Fields: []any{fmt.Sprintf("k%04d", k), "y"}})
	}
	if _, err := h.Process(changed...); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	total := 0
	for ns, n := range st.puts {
		if _, _, _, ok := ViewEntryOf(ns, "ttl"); !ok && !strings.Contains(ns, "~") {
			continue // not list or map state
		}
		total += n
		if before[ns] && !strings.HasSuffix(ns, "~meta") {
			t.Errorf("the checkpoint put %d keys into %s, which held the earlier checkpoints' state", n, ns)
		}
	}
	// Per changed key: an element, the list's meta record, a map entry;
	// and the two lists of generations.
	if want := 3*len(changed) + 2; total > want {
		t.Errorf("the checkpoint put %d keys (%v), want at most %d", total, st.puts, want)
	}
}

// A state file of an older build keeps the elements and entries in the
// entries' namespaces themselves, without generations: it reads the
// same, takes changes and checkpoints, and SHOW STATE shows it.
func TestViews_olderStateFile(t *testing.T) {
	st := statetest.OpenBolt(t)
	rec := func(at int64, v any, extra ...any) []byte {
		b, err := newRecord(at, v, extra...)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The layout of the earlier build, written as it wrote it.
	err := st.Update(func(tx state.Tx) error {
		for _, k := range []string{"Ann", "Bob"} {
			enc := keycodec.Encode([]any{k})
			meta := binary.BigEndian.AppendUint64(nil, 5)
			meta = binary.AppendUvarint(binary.AppendUvarint(meta, 1), 3) // head 1 (element 0 expired and deleted), end 3
			if err := tx.Put(exec.ListNamespace("ttl", "l"), orderedcode.AppendNull(bytes.Clone(enc)), meta); err != nil {
				return err
			}
			for p, v := range map[int64]string{1: k + "1", 2: k + "2"} {
				if err := tx.Put(exec.ListNamespace("ttl", "l"), orderedcode.AppendInt64(bytes.Clone(enc), p), rec(5, v)); err != nil {
					return err
				}
			}
			for _, mk := range []string{"x", "y"} {
				key := keycodec.AppendValue(bytes.Clone(enc), mk)
				if err := tx.Put(exec.MapNamespace("ttl", "m"), key, rec(5, int64(len(k)), mk)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var clock int64
	open := func() *viewState {
		h := ttlHarness(t, st, &clock, func(*ptf.Context, types.Row) error { return nil })
		return &h.op.views
	}
	check := func(v *viewState, k string, wantList []string, wantMap map[string]int64) {
		t.Helper()
		l, m, err := readViews(v, k)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantList, l); diff != "" {
			t.Errorf("list of %s (-want +got):\n%s", k, diff)
		}
		if diff := cmp.Diff(wantMap, m); diff != "" {
			t.Errorf("map of %s (-want +got):\n%s", k, diff)
		}
	}
	describe := func() []string {
		var rows []string
		if err := st.View(func(tx state.Tx) error {
			for _, e := range []struct {
				ns, entry string
				kind      ptf.StateKind
			}{{exec.ListNamespace("ttl", "l"), "l", ptf.ListState}, {exec.MapNamespace("ttl", "m"), "m", ptf.MapState}} {
				rs, err := DescribeView(tx, e.ns, e.entry, e.kind, nil)
				if err != nil {
					return err
				}
				for _, r := range rs {
					rows = append(rows, strings.Join(r[:3], " "))
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	wantRows := []string{"(Ann) l[0] Ann1", "(Ann) l[1] Ann2", "(Bob) l[0] Bob1", "(Bob) l[1] Bob2", "(Ann) m[x] 3", "(Ann) m[y] 3", "(Bob) m[x] 3", "(Bob) m[y] 3"}
	if diff := cmp.Diff(wantRows, describe()); diff != "" {
		t.Errorf("SHOW STATE of the older file (-want +got):\n%s", diff)
	}
	v := open()
	check(v, "Ann", []string{"Ann1", "Ann2"}, map[string]int64{"x": 3, "y": 3})
	check(v, "Bob", []string{"Bob1", "Bob2"}, map[string]int64{"x": 3, "y": 3})
	ann, bob := modelKey("Ann"), modelKey("Bob")
	if err := v.ListAdd(ann, 0, []any{"Ann3"}); err != nil {
		t.Fatal(err)
	}
	if err := v.MapRemove(ann, 1, "x"); err != nil {
		t.Fatal(err)
	}
	if err := v.ListClear(bob, 0); err != nil {
		t.Fatal(err)
	}
	if err := v.MapPut(bob, 1, []any{"z"}, []any{int64(7)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Update(v.flush); err != nil {
		t.Fatal(err)
	}
	if err := v.ListAdd(bob, 0, []any{"lost"}); err != nil { // after the checkpoint: a restart does not see it
		t.Fatal(err)
	}
	v = open()
	check(v, "Ann", []string{"Ann1", "Ann2", "Ann3"}, map[string]int64{"y": 3})
	check(v, "Bob", nil, map[string]int64{"x": 3, "y": 3, "z": 7})
	wantRows = []string{"(Ann) l[0] Ann1", "(Ann) l[1] Ann2", "(Ann) l[2] Ann3", "(Ann) m[y] 3", "(Bob) m[x] 3", "(Bob) m[y] 3", "(Bob) m[z] 7"}
	if diff := cmp.Diff(wantRows, describe()); diff != "" {
		t.Errorf("SHOW STATE after a checkpoint (-want +got):\n%s", diff)
	}
}
