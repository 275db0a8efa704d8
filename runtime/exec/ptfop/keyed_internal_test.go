package ptfop

import (
	"context"
	"fmt"
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
// every key's count as the rows left it, whether the changed warm keys
// were listed as they were evicted (periodic checkpoints come) or are
// found by a walk of every key (none come: no list is kept), and
// through the final flush.
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
			rows := zipfRows(3000, 500)
			want := map[string]int64{}
			var cur *keyState
			for round := range 3 {
				for _, r := range rows[round*1000 : (round+1)*1000] {
					cur = s.count(r, cur)
					want[r.Fields[0].(string)]++
				}
				if s.evictErr != nil {
					t.Fatal(s.evictErr)
				}
				if listed := len(s.dirtyWarm) > 0; listed != (tc.policy != nil) {
					t.Fatalf("round %d: changed warm keys listed: %v (%d)", round, listed, len(s.dirtyWarm))
				}
				final := round == 2
				if err := store.Update(func(tx state.Tx) error { return s.flushValues(tx, final) }); err != nil {
					t.Fatal(err)
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
		})
	}
}
