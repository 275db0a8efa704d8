package exec_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// TestNormalize_smallCache: the last rows of many more keys than the
// cache holds live in the store, and the normalised changelog is the one
// a cache that holds every key gives: -U before each +U with the key's
// last row, full deletes, deletes of keys never inserted dropped.
func TestNormalize_smallCache(t *testing.T) {
	big := types.Type{Kind: types.KindBigInt}
	sch := types.Schema{Columns: []types.Column{{Name: "k", Type: big}, {Name: "v", Type: big}}}
	r := rand.New(rand.NewPCG(1, 2))
	var evs []exec.Event
	for i := range 20_000 {
		k := int64(r.IntN(3000))
		kind := types.UpdateAfter
		switch r.IntN(8) {
		case 0:
			kind = types.Delete
		case 1:
			kind = types.Insert
		}
		fields := []any{k, int64(i)}
		if kind == types.Delete {
			fields = []any{k, nil} // a delete that carries the key only
		}
		evs = append(evs, exec.Event{Kind: exec.EvRow, Row: types.Row{Kind: kind, Fields: fields}})
	}
	run := func(cache int) []string {
		opts := exec.DefaultOptions()
		opts.CacheSize = cache
		ex := exec.NewExecution(context.Background(), state.NewMem(), opts)
		n := &exec.NormalizeNode{In: &exec.ValuesNode{Sch: sch, Events: evs}, Key: []int{0}, Retract: true, FullDeletes: true,
			Mode: types.RetractAll}
		st, err := n.Open(ex)
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
	want, got := run(1<<20), run(50)
	if len(want) < 20_000 {
		t.Fatalf("only %d rows out", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("with a cache of 50: %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("with a cache of 50, row %d is %s, want %s", i, got[i], want[i])
		}
	}
}
