package script_test

import (
	"fmt"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
)

const greeting = `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) {
    ctx.collect("Hello " + input.name + "!");
  },
};
`

const countClicksBench = `export default {
  output: "ROW<name STRING, click_count BIGINT>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { clicks: { default: { count: 0 } } },
  eval(ctx, { clicks }, { input }) {
    clicks.count += input.score;
    ctx.collect({ name: input.name, click_count: clicks.count });
  },
};
`

// BenchmarkEval runs per-row eval through goja, conversions and the
// runtime's harness (state cache, collect) included, over rows with 1000
// distinct names.
func BenchmarkEval(b *testing.B) {
	for _, fn := range []struct{ name, src string }{
		{"greeting", greeting},
		{"greetingWithMemory", greetingWithMemory},
		{"countClicks", countClicksBench},
	} {
		for _, n := range []int{1000, 100_000} {
			b.Run(fmt.Sprintf("%s/rows=%dk", fn.name, n/1000), func(b *testing.B) {
				rows := make([]types.Row, n)
				for i := range rows {
					rows[i] = types.NewRow(fmt.Sprintf("user%03d", i%1000), int64(i%7))
				}
				e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest})
				defer e.Close()
				def, err := e.Load(fn.name, fn.name+".js", fn.src)
				if err != nil {
					b.Fatal(err)
				}
				opts := session.HarnessOptions{}
				if def.Args[0].Traits.Has(ptf.SetSemanticTable) {
					opts.PartitionBy = []string{"name"}
				}
				h, err := session.NewHarness(def, names, opts)
				if err != nil {
					b.Fatal(err)
				}
				defer h.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					out, err := h.Process(rows...)
					if err != nil {
						b.Fatal(err)
					}
					if len(out) != n {
						b.Fatalf("%d rows out", len(out))
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
