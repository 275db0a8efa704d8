package ptfop

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestSortBuffer_order hands rows out in ORDER BY order (time, the further
// keys, arrival) whatever order they arrive in: in order, out of order,
// and mixed with watermarks between, against a stable sort of the same rows.
func TestSortBuffer_order(t *testing.T) {
	keys := []SortKey{{Col: 1, Desc: true, NullsFirst: true}}
	cases := []struct {
		name   string
		keys   []SortKey
		spread int64 // how far back of the newest time a row may arrive
	}{
		{"in order", nil, 0},
		{"in order, a key", keys, 0},
		{"out of order", nil, 50},
		{"out of order, a key", keys, 50},
		{"mostly in order", nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			b := newSortBuffer(0, c.keys)
			var all, got []sortEntry
			var newest int64
			wm := int64(-1)
			drain := func(w int64) {
				for {
					e, ok := b.pop(w)
					if !ok {
						break
					}
					if e.ts > w {
						t.Fatalf("row at %d handed out at watermark %d", e.ts, w)
					}
					got = append(got, e)
				}
			}
			for i := range 5000 {
				newest += rng.Int64N(3)
				ts := newest - rng.Int64N(c.spread+1)
				if ts <= wm {
					ts = wm + 1
				}
				var k any
				if rng.IntN(5) > 0 {
					k = rng.Int64N(4)
				}
				r := types.Row{Fields: []any{ts, k, int64(i)}}
				b.Add(r, ts)
				all = append(all, sortEntry{row: r, ts: ts, seq: b.seq})
				if rng.IntN(10) == 0 {
					wm = newest - c.spread - 1
					drain(wm)
				}
			}
			if n := b.Len(); n != len(all)-len(got) {
				t.Fatalf("Len %d, want %d", n, len(all)-len(got))
			}
			drain(newest)
			if n := b.Len(); n != 0 {
				t.Fatalf("%d rows left after the last watermark", n)
			}
			want := slices.Clone(all)
			slices.SortStableFunc(want, func(x, y sortEntry) int {
				if lessEntry(c.keys, &x, &y) {
					return -1
				}
				if lessEntry(c.keys, &y, &x) {
					return 1
				}
				return 0
			})
			if len(got) != len(want) {
				t.Fatalf("%d rows out, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i].seq != want[i].seq {
					t.Fatalf("row %d: got the %d-th arrival (time %d), want the %d-th (time %d)", i, got[i].seq, got[i].ts, want[i].seq, want[i].ts)
				}
			}
		})
	}
}

// TestSortBuffer_reuses buffers rows that arrive in order without
// allocating once its queue has grown.
func TestSortBuffer_reuses(t *testing.T) {
	b := newSortBuffer(0, nil)
	r := types.Row{Fields: []any{int64(0)}}
	var ts int64
	step := func() {
		for range 100 {
			ts++
			b.Add(r, ts)
		}
		for {
			if _, ok := b.pop(ts - 50); !ok {
				break
			}
		}
	}
	for range 100 {
		step()
	}
	if a := testing.AllocsPerRun(100, step); a != 0 {
		t.Fatalf("%v allocations per 100 rows, want 0", a)
	}
}

// BenchmarkSortBuffer buffers rows a watermark of a minute trails, as in
// front of DelayStreak over the flights: mostly in order, one in fifty a
// few seconds late.
func BenchmarkSortBuffer(b *testing.B) {
	rows := make([]types.Row, 4096)
	for i := range rows {
		rows[i] = types.Row{Fields: []any{int64(i)}}
	}
	buf := newSortBuffer(0, nil)
	var ts int64
	b.ReportAllocs()
	for i := range b.N {
		ts += 1000
		t := ts
		if i%50 == 0 {
			t -= 5000
		}
		buf.Add(rows[i&4095], t)
		for {
			if _, ok := buf.pop(ts - 60_000); !ok {
				break
			}
		}
	}
}
