package script_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
	"github.com/ptfsh/ptfsh/state"
)

// A list-append PTF: every row's name goes to its key's ListView.
const listAppend = `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { seen: { kind: "list", type: "ARRAY<STRING>" } },
  eval(ctx, { seen }, { input }) {
    seen.add(input.name);
  },
};
`

// The same with a map: a count per score, read and written per row.
const mapCount = `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { counts: { kind: "map", type: "MAP<INT, BIGINT>" } },
  eval(ctx, { counts }, { input }) {
    counts.put(input.score, (counts.get(input.score) ?? 0) + 1);
  },
};
`

// BenchmarkViews runs list and map state PTFs through goja over 100k rows
// and one checkpoint, on the memory and bbolt stores. One op is the whole
// run, from an empty store; rows/s is reported.
func BenchmarkViews(b *testing.B) {
	const n = 100_000
	for _, fn := range []struct{ name, src string }{{"listAppend", listAppend}, {"mapCount", mapCount}} {
		for _, keys := range []int{1, 1000} {
			rows := make([]types.Row, n)
			for i := range rows {
				rows[i] = types.NewRow(fmt.Sprintf("user%03d", i%keys), int64(i%7))
			}
			for _, st := range []string{"mem", "bolt"} {
				b.Run(fmt.Sprintf("%s/keys=%d/%s/rows=100k", fn.name, keys, st), func(b *testing.B) {
					e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest})
					defer e.Close()
					def, err := e.Load(fn.name, fn.name+".js", fn.src)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						b.StopTimer()
						var store state.Store = state.NewMem()
						if st == "bolt" {
							if store, err = state.OpenBolt(filepath.Join(b.TempDir(), fmt.Sprint(i, ".db")), state.BoltOptions{}); err != nil {
								b.Fatal(err)
							}
						}
						h, err := ptfop.NewHarness(def, names, ptfop.HarnessOptions{PartitionBy: []string{"name"}, Store: store})
						if err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						if _, err := h.Process(rows...); err != nil {
							b.Fatal(err)
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
