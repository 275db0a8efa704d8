package format_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// prBenchSchema and prBenchRow are a typical PTF output: a key, a string, a
// number, a decimal and a rowtime.
var (
	prBenchSchema = prSchema(
		prCol("name", types.TypeString),
		prCol("EXPR$0", types.TypeString),
		prCol("cnt", types.TypeBigInt),
		prCol("amount", types.Type{Kind: types.KindDecimal, Length: 10, Scale: 2}),
		prCol("score", types.TypeDouble),
		prCol("rowtime", types.TypeTimestampLTZ),
	)
	prBenchRow = prRow(types.Insert, "Alice", "Hello Alice, your 42 time? Nice to see you again!",
		int64(42), fmtDec(123456, 2), 0.75, types.Instant{Millis: 1743076910000})
)

func BenchmarkTableauPrinter(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			p := format.NewTableauPrinter(io.Discard)
			for b.Loop() {
				if err := p.Begin(prBenchSchema); err != nil {
					b.Fatal(err)
				}
				for range n {
					if err := p.Row(prBenchRow); err != nil {
						b.Fatal(err)
					}
				}
				if err := p.End(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFormatRow(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = types.FormatRow(prBenchRow, prBenchSchema)
	}
}

func BenchmarkPrinters(b *testing.B) {
	for _, name := range format.FormatNames {
		b.Run("format="+name, func(b *testing.B) {
			b.ReportAllocs()
			p, err := format.NewPrinter(name, io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			if err := p.Begin(prBenchSchema); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := p.Row(prBenchRow); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
