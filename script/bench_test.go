package script_test

import (
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
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
			for _, compiled := range []bool{false, true} {
				run := "goja"
				if compiled {
					run = "compiled"
				}
				b.Run(fmt.Sprintf("%s/rows=%dk/%s", fn.name, n/1000, run), func(b *testing.B) {
					rows := make([]types.Row, n)
					for i := range rows {
						rows[i] = types.NewRow(fmt.Sprintf("user%03d", i%1000), int64(i%7))
					}
					e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, NoCompile: !compiled})
					defer e.Close()
					def, err := e.Load(fn.name, fn.name+".js", fn.src)
					if err != nil {
						b.Fatal(err)
					}
					opts := ptfop.HarnessOptions{}
					if def.Args[0].Traits.Has(ptf.SetSemanticTable) {
						opts.PartitionBy = []string{"name"}
					}
					h, err := ptfop.NewHarness(def, names, opts)
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
}

// BenchmarkLoad loads a function (GreetingWithMemory) again and again into
// one Engine, as CREATE FUNCTION does: esbuild, compiling, running the top
// level in a realm of its own, reading the declaration. live-B/fn is the
// heap each loaded function keeps (its realm, program and source map).
func BenchmarkLoad(b *testing.B) {
	var ms0, ms1 goruntime.MemStats
	time.Sleep(50 * time.Millisecond) // the goroutines of the last run's Engine end
	goruntime.GC()
	goruntime.ReadMemStats(&ms0)
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest})
	defer e.Close()
	var defs []*ptf.FuncDef
	b.ReportAllocs()
	for b.Loop() {
		def, err := e.Load("greeting", "greeting.js", greetingWithMemory)
		if err != nil {
			b.Fatal(err)
		}
		defs = append(defs, def)
	}
	b.StopTimer()
	goruntime.GC()
	goruntime.ReadMemStats(&ms1)
	b.ReportMetric(float64(int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc))/float64(len(defs)), "live-B/fn")
	goruntime.KeepAlive(defs)
}

// BenchmarkAppendState encodes a small state value, as a checkpoint does
// for each key that changed (outside a call: under the guard of a call).
func BenchmarkAppendState(b *testing.B) {
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, EvalTimeout: 10 * time.Second, MaxMemory: 1 << 30})
	defer e.Close()
	def, err := e.Load("g", "g.js", greetingWithMemory)
	if err != nil {
		b.Fatal(err)
	}
	p, err := def.New(ptf.CallSpec{})
	if err != nil {
		b.Fatal(err)
	}
	codec := p.(ptf.StateCodec)
	v, err := codec.NewState(0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := codec.AppendState(nil, 0, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScalar calls a scalar function (a number and a ROW result),
// the result's conversion included.
func BenchmarkScalar(b *testing.B) {
	for _, fn := range []struct{ name, src string }{
		{"number", `export default { kind: "scalar", args: [{ name: "x", type: "BIGINT" }], output: "BIGINT", eval(x) { return x * 2; } };`},
		{"row", `export default { kind: "scalar", args: [{ name: "x", type: "BIGINT" }], output: "ROW<a BIGINT, b STRING>", eval(x) { return { a: x, b: "n" }; } };`},
	} {
		b.Run(fn.name, func(b *testing.B) {
			e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest})
			defer e.Close()
			def, err := e.Load(fn.name, fn.name+".js", fn.src)
			if err != nil {
				b.Fatal(err)
			}
			call, err := def.Scalar()
			if err != nil {
				b.Fatal(err)
			}
			args := []any{int64(0)}
			b.ReportAllocs()
			i := int64(0)
			for b.Loop() {
				args[0] = i
				if _, err := call(args); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
