package ptfop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// eventList is a Stream over fixed events.
type eventList struct {
	evs []exec.Event
	i   int
}

func (l *eventList) Next() (exec.Event, error) {
	if l.i == len(l.evs) {
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	l.i++
	return l.evs[l.i-1], nil
}
func (l *eventList) Close() error { return nil }

// TestShuffleStream: a shuffle keeps each key's rows in order and every
// watermark between the same rows, keeps every row, and does reorder.
func TestShuffleStream(t *testing.T) {
	var in []exec.Event
	for i := range 300 {
		key := fmt.Sprint("k", i%7)
		in = append(in, exec.Event{Kind: exec.EvRow, Row: types.Row{Fields: []any{key, int64(i)}}})
		if i%50 == 49 {
			in = append(in, exec.Event{Kind: exec.EvWatermark, Wm: int64(i)})
		}
	}
	for _, rowSemantics := range []bool{false, true} {
		changed := false
		for seed := range uint64(20) {
			b := &TableBinding{Partition: []int{0}, Set: !rowSemantics}
			s := newShuffleStream(&eventList{evs: in}, rand.New(rand.NewPCG(seed, 1)), b)
			var out []exec.Event
			for {
				ev, err := s.Next()
				if err != nil {
					t.Fatal(err)
				}
				if ev.Kind == exec.EvEnd {
					break
				}
				out = append(out, ev)
			}
			if len(out) != len(in) {
				t.Fatalf("%d events out of %d", len(out), len(in))
			}
			last := map[any]int64{}
			var seen []int64
			for i, ev := range out {
				if in[i].Kind != ev.Kind || ev.Kind == exec.EvWatermark && ev.Wm != in[i].Wm {
					t.Fatalf("seed %d: event %d is %v, want %v: watermarks must not move", seed, i, ev, in[i])
				}
				if ev.Kind != exec.EvRow {
					continue
				}
				k, n := ev.Row.Fields[0], ev.Row.Fields[1].(int64)
				if p, ok := last[k]; ok && p > n && !rowSemantics {
					t.Fatalf("seed %d: key %v: row %d after row %d", seed, k, n, p)
				}
				last[k] = n
				seen = append(seen, n)
				if ev.Row.Fields[1] != in[i].Row.Fields[1] {
					changed = true
				}
			}
			slices.Sort(seen)
			for i, n := range seen {
				if n != int64(i) {
					t.Fatalf("seed %d: rows lost or doubled", seed)
				}
			}
		}
		if !changed {
			t.Errorf("row semantics %v: no seed changed the order", rowSemantics)
		}
	}
}
