package opstate_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

// TestRun_model: a table used through Runs (packed generations) and
// ReadStored, against a model: reads see every run written, a reopened
// table (a restart) and ScanStored see the state of the last checkpoint,
// through compactions and snapshots (which replace every generation),
// over a namespace of an older build.
func TestRun_model(t *testing.T) {
	st := statetest.OpenBolt(t)
	r := rand.New(rand.NewPCG(1, 2))
	value := func(k string, round int) string {
		return fmt.Sprintf("%s@%d:%s", k, round, strings.Repeat("x", r.IntN(300)))
	}
	committed := map[string]string{}
	if err := st.Update(func(tx state.Tx) error {
		for i := 0; i < 400; i += 3 {
			k := fmt.Sprintf("k%03d", i)
			committed[k] = value(k, 0)
			if err := tx.Put("op/t", []byte(k), []byte(committed[k])); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	current := maps.Clone(committed)
	tb := open(t, st, 1)
	check := func(round int) {
		t.Helper()
		for i := range 400 {
			k := fmt.Sprintf("k%03d", i)
			v, ok, err := tb.ReadStored([]byte(k))
			if err != nil {
				t.Fatal(err)
			}
			if want, wok := current[k]; ok != wok || v != want {
				t.Fatalf("round %d: ReadStored(%s) = %.20q, %v; want %.20q, %v", round, k, v, ok, want, wok)
			}
		}
		for _, prefix := range []string{"", "k1", "k39"} {
			got := map[string]string{}
			if err := st.View(func(tx state.Tx) error {
				return opstate.ScanStored(tx, "op/t", []byte(prefix), func(k, v []byte) error {
					got[string(k)] = string(v)
					return nil
				})
			}); err != nil {
				t.Fatal(err)
			}
			want := maps.Clone(committed)
			maps.DeleteFunc(want, func(k, _ string) bool { return !strings.HasPrefix(k, prefix) })
			if !maps.Equal(got, want) {
				t.Fatalf("round %d: ScanStored(%q) holds %d keys, want %d", round, prefix, len(got), len(want))
			}
		}
	}
	snapshots := 0
	for round := 1; round <= 40; round++ {
		keys := map[string]bool{}
		for range r.IntN(120) + 1 {
			keys[fmt.Sprintf("k%03d", r.IntN(400))] = true
		}
		sorted := slices.Sorted(maps.Keys(keys))
		checkpoint := r.IntN(3) > 0
		snapshot := checkpoint && (tb.SnapshotDue() || r.IntN(6) == 0)
		if err := st.Update(func(tx state.Tx) error {
			run := tb.BeginRun(tx)
			if snapshot {
				run = tb.BeginSnapshot(tx)
			}
			for _, k := range sorted {
				if r.IntN(4) == 0 {
					delete(current, k)
					if !snapshot {
						if err := run.Delete([]byte(k)); err != nil {
							return err
						}
					}
					continue
				}
				current[k] = value(k, round)
				if !snapshot {
					if err := run.Put([]byte(k), current[k]); err != nil {
						return err
					}
				}
			}
			if snapshot {
				for _, k := range slices.Sorted(maps.Keys(current)) {
					if err := run.Put([]byte(k), current[k]); err != nil {
						return err
					}
				}
			}
			if err := run.Close(); err != nil {
				return err
			}
			if checkpoint {
				return tb.Flush(tx)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if checkpoint {
			committed = maps.Clone(current)
		}
		if snapshot {
			snapshots++
			if n, _ := tb.Generations(); n != 1 {
				t.Fatalf("round %d: %d generations after a snapshot, want 1", round, n)
			}
			for tb.Compacting() { // deletes what the snapshot replaced
				if err := tb.Compact(); err != nil {
					t.Fatal(err)
				}
			}
			var names []string
			if err := st.View(func(tx state.Tx) error {
				var err error
				names, err = tx.Namespaces()
				return err
			}); err != nil {
				t.Fatal(err)
			}
			names = slices.DeleteFunc(names, func(n string) bool { return !strings.HasPrefix(n, "op/t") })
			if len(names) != 2 { // the list and the snapshot
				t.Fatalf("round %d: namespaces %q after a snapshot and compactions, want the list and one generation", round, names)
			}
		}
		for range r.IntN(6) {
			if err := tb.Compact(); err != nil {
				t.Fatal(err)
			}
		}
		check(round)
		if r.IntN(5) == 0 { // a restart: what was not checkpointed is gone
			tb = open(t, st, 1)
			current = maps.Clone(committed)
			check(round)
		}
	}
	for tb.Compacting() {
		if err := tb.Compact(); err != nil {
			t.Fatal(err)
		}
	}
	check(41)
	if snapshots < 3 {
		t.Errorf("%d snapshots, want a few", snapshots)
	}
	if n, _ := tb.Generations(); n > 8 {
		t.Errorf("%d generations after the compactions, want a few", n)
	}
}

// TestRun_outOfOrder: a run refuses a key that does not come after the
// one before.
func TestRun_outOfOrder(t *testing.T) {
	st := statetest.OpenBolt(t)
	tb := open(t, st, 1)
	err := st.Update(func(tx state.Tx) error {
		run := tb.BeginRun(tx)
		if err := run.Put([]byte("b"), "1"); err != nil {
			return err
		}
		return run.Put([]byte("a"), "2")
	})
	if err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Fatalf("got %v, want an error about the order", err)
	}
}
