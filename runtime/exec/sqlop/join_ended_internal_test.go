package sqlop

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// randSide is n random changes of one join input: inserts of keys 0-2 (a
// NULL key now and then) and deletes of rows inserted before.
func randSide(rng *rand.Rand, n int, base int64) []exec.Event {
	var evs []exec.Event
	var live []types.Row
	for i := 0; i < n; i++ {
		if len(live) > 0 && rng.Intn(3) == 0 {
			j := rng.Intn(len(live))
			r := live[j]
			live = append(live[:j], live[j+1:]...)
			evs = append(evs, row(types.Delete, r.Fields...))
			continue
		}
		f := []any{int64(rng.Intn(3)), base + int64(i)}
		if rng.Intn(8) == 0 {
			f[0] = nil
		}
		live = append(live, types.Row{Fields: f})
		evs = append(evs, row(types.Insert, f...))
	}
	return evs
}

// TestJoinNode_otherEndedRandom: random changelogs on both sides, of
// different lengths so that one input ends while the other goes on with
// inserts and retractions; a statement on a scratch store (which keeps no
// row of a side whose other input has ended) gives the same rows, in the
// same order, as one that keeps every row, for each kind of join.
func TestJoinNode_otherEndedRandom(t *testing.T) {
	for seed := 0; seed < 3000; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		l := randSide(rng, rng.Intn(12), 100)
		r := randSide(rng, rng.Intn(12), 200)
		for _, kind := range []JoinKind{InnerJoin, LeftJoin, RightJoin, FullJoin} {
			run := func(scratch bool) []string {
				left := &listNode{sch: kv, mode: types.RetractAll, events: l}
				right := &listNode{sch: kv, mode: types.RetractAll, events: r}
				opts := exec.DefaultOptions()
				opts.Scratch = scratch
				ex := exec.NewExecution(context.Background(), state.NewMem(), opts)
				st, err := joins(left, right, kind).Open(ex)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				var out []string
				for {
					ev, err := st.Next()
					if err != nil {
						t.Fatal(err)
					}
					if ev.Kind == exec.EvEnd {
						return out
					}
					if ev.Kind == exec.EvRow {
						out = append(out, fmt.Sprint(ev.Row.Kind, ev.Row.Fields))
					}
				}
			}
			want, got := run(false), run(true)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("seed %d %v: l=%v r=%v\n%s", seed, kind, l, r, d)
			}
		}
	}
}
