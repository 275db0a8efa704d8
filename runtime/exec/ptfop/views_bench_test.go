package ptfop_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// BenchmarkViews runs Go PTFs with list and map state over 100k rows, with
// one checkpoint at the end (as a statement of 100k rows has), on the
// memory and bbolt stores. One op is the whole run; rows/s is reported.
func BenchmarkViews(b *testing.B) {
	const n = 100_000
	evals := []struct {
		name string
		eval func(ctx *ptf.Context, r types.Row) error
	}{
		{"list_add", func(ctx *ptf.Context, r types.Row) error { return ctx.List(0).Add(r.Fields[1]) }},
		{"list_add_size", func(ctx *ptf.Context, r types.Row) error {
			l := ctx.List(0)
			if err := l.Add(r.Fields[1]); err != nil {
				return err
			}
			_, err := l.Size()
			return err
		}},
		{"map_get_put", func(ctx *ptf.Context, r types.Row) error {
			m := ctx.Map(1)
			v, _, err := m.Get(r.Fields[1])
			if err != nil {
				return err
			}
			c, _ := v.(int64)
			return m.Put(r.Fields[1], c+1)
		}},
	}
	for _, keys := range []int{1, 1000} {
		rs := make([]types.Row, n)
		for i := range rs {
			rs[i] = types.Row{Fields: []any{fmt.Sprint("k", i%keys), fmt.Sprint("v", i%5000)}}
		}
		for _, ev := range evals {
			for _, st := range []struct {
				name string
				open func(b *testing.B, i int) (state.Store, error)
			}{
				{"mem", func(*testing.B, int) (state.Store, error) { return state.NewMem(), nil }},
				{"bolt", func(b *testing.B, i int) (state.Store, error) {
					return state.OpenBolt(filepath.Join(b.TempDir(), fmt.Sprint("state", i, ".db")), state.BoltOptions{})
				}},
			} {
				b.Run(fmt.Sprintf("%s/keys=%d/%s/rows=100k", ev.name, keys, st.name), func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						b.StopTimer()
						store, err := st.open(b, i)
						if err != nil {
							b.Fatal(err)
						}
						h, err := ptfop.NewHarness(viewFunc(ev.eval), viewInput, ptfop.HarnessOptions{PartitionBy: []string{"name"}, Store: store})
						if err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						for i := 0; i < n; i += 1000 {
							if _, err := h.Process(rs[i : i+1000]...); err != nil {
								b.Fatal(err)
							}
						}
						if err := h.Flush(); err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						h.Close()
						store.Close()
						b.StartTimer()
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

// BenchmarkViews_storeReads measures reads that miss the overlay and go to
// the store, one read transaction each: MapView.Get and ListView.Get of
// 100k stored entries, and iterating a 100k-element list and map.
func BenchmarkViews_storeReads(b *testing.B) {
	const n = 100_000
	for _, st := range []string{"mem", "bolt"} {
		var store state.Store = state.NewMem()
		if st == "bolt" {
			var err error
			if store, err = state.OpenBolt(filepath.Join(b.TempDir(), "state.db"), state.BoltOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		var phase string
		var i int
		h, err := ptfop.NewHarness(viewFunc(func(ctx *ptf.Context, r types.Row) error {
			l, m := ctx.List(0), ctx.Map(1)
			switch phase {
			case "fill":
				for j := 0; j < n; j++ {
					k := fmt.Sprint("k", j)
					if err := l.Add(k); err != nil {
						return err
					}
					if err := m.Put(k, int64(j)); err != nil {
						return err
					}
				}
			case "map_get":
				_, _, err := m.Get(fmt.Sprint("k", i%n))
				return err
			case "list_get":
				_, err := l.Get(i % n)
				return err
			case "list_range":
				return l.Range(func(int, any) bool { return true })
			case "map_range":
				return m.Range(func(_, _ any) bool { return true })
			}
			return nil
		}), viewInput, ptfop.HarnessOptions{PartitionBy: []string{"name"}, Store: store})
		if err != nil {
			b.Fatal(err)
		}
		row := types.Row{Fields: []any{"Bob", ""}}
		phase = "fill"
		if _, err := h.Process(row); err != nil {
			b.Fatal(err)
		}
		if err := h.Flush(); err != nil {
			b.Fatal(err)
		}
		for _, p := range []string{"map_get", "list_get", "list_range", "map_range"} {
			b.Run(st+"/"+p, func(b *testing.B) {
				phase = p
				b.ReportAllocs()
				for i = 0; b.Loop(); i++ {
					if _, err := h.Process(row); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		h.Close()
		store.Close()
	}
}
