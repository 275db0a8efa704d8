package ptfop

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/state"
)

// TestKeyFilter: a key added is always found (a miss would skip a store
// read and lose its state); other keys rarely are.
func TestKeyFilter(t *testing.T) {
	f := newKeyFilter()
	if (*keyFilter)(nil).has([]byte("x")) {
		t.Fatal("an empty filter has a key")
	}
	const n = 200_000
	for i := range n {
		f.add([]byte(fmt.Sprintf("user%d", i)))
	}
	for i := range n {
		if !f.has([]byte(fmt.Sprintf("user%d", i))) {
			t.Fatalf("user%d was added but is not found", i)
		}
	}
	hits := 0
	for i := range n {
		if f.has([]byte(fmt.Sprintf("other%d", i))) {
			hits++
		}
	}
	if rate := float64(hits) / n; rate > 0.01 {
		t.Errorf("%.2f %% of keys never added are found (want under 1 %%)", 100*rate)
	}
}

// everyRows is a checkpoint policy for tests: periodic checkpoints may
// come (the keyed state keeps its list of changed warm keys).
type everyRows struct{}

func (everyRows) Due(int64) bool { return false }

// TestKeyedState_flushWritesChanges: after each flush the store holds
// every key's count as the rows left it, and no other key, whether the
// changed warm keys were listed as they were evicted (periodic
// checkpoints come) or are found by a walk of every key (none come: no
// list is kept), through the snapshots that replace the generations
// before a merge is due, and the final flush.
func TestKeyedState_flushWritesChanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy exec.CheckpointPolicy
	}{
		{"periodic checkpoints", everyRows{}},
		{"no periodic checkpoint", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := state.NewMem()
			ex := exec.NewExecution(context.Background(), store, exec.DefaultOptions())
			ex.Opts.CacheSize = 40
			ex.Checkpoints = tc.policy
			node := &Node{Def: &ptf.FuncDef{State: []ptf.StateDecl{{Name: "count"}}}, Fn: "test", UID: "test"}
			s := newKeyedState(node, ex)
			s.codec = counterCodec{}
			if _, err := s.openValues(); err != nil {
				t.Fatal(err)
			}
			const rounds, perRound = 20, 300
			rows := zipfRows(rounds*perRound, 500)
			want := map[string]int64{}
			var cur *keyState
			snapshots := 0
			for round := range rounds {
				for _, r := range rows[round*perRound : (round+1)*perRound] {
					cur = s.count(r, cur)
					want[r.Fields[0].(string)]++
				}
				if s.evictErr != nil {
					t.Fatal(s.evictErr)
				}
				if listed := len(s.dirtyWarm) > 0; listed != (tc.policy != nil) {
					t.Fatalf("round %d: changed warm keys listed: %v (%d)", round, listed, len(s.dirtyWarm))
				}
				final := round == rounds-1
				if err := store.Update(func(tx state.Tx) error { return s.flushValues(tx, final) }); err != nil {
					t.Fatal(err)
				}
				if err := s.compactValues(); err != nil { // as the operator's steps do
					t.Fatal(err)
				}
				gens := 0
				got := map[string]int64{}
				err := store.View(func(tx state.Tx) error {
					names, err := tx.Namespaces()
					for _, n := range names {
						if strings.HasPrefix(n, s.nss[0]+"~") && !strings.HasSuffix(n, "~meta") {
							gens++
						}
					}
					if err != nil {
						return err
					}
					return ScanValues(tx, s.nss[0], func(key, stored []byte) error {
						v, err := counterCodec{}.DecodeState(0, stored[8:])
						if err != nil {
							return err
						}
						got[string(key)] = *v.(*int64)
						return nil
					})
				})
				if err != nil {
					t.Fatal(err)
				}
				wantEnc := map[string]int64{}
				for k, n := range want {
					wantEnc[string(keycodec.Encode([]any{k}))] = n
				}
				if !maps.Equal(got, wantEnc) {
					t.Fatalf("round %d: the store holds %d keys, want %d (or other counts)", round, len(got), len(want))
				}
				if gens > 8 {
					t.Fatalf("round %d: %d generations in the store, want at most 8", round, gens)
				}
				if gens == 1 && round > 0 {
					snapshots++
				}
				for k, n := range want {
					enc := keycodec.Encode([]any{k})
					b, err := s.readStored(0, enc)
					if err != nil {
						t.Fatal(err)
					}
					if len(b) < 8 {
						t.Fatalf("round %d: key %s not stored", round, k)
					}
					v, err := counterCodec{}.DecodeState(0, b[8:])
					if err != nil {
						t.Fatal(err)
					}
					if got := *v.(*int64); got != n {
						t.Fatalf("round %d: key %s stored %d, want %d", round, k, got, n)
					}
				}
			}
			if snapshots < 2 {
				t.Errorf("%d snapshots, want a few", snapshots)
			}
		})
	}
}
