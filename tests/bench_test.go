package tests

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
)

// BenchmarkGreetingWithMemory runs the GreetingWithMemory example end to
// end — CSV source, set semantics, value state in goja, the rows printer —
// over generated CSV files with 1,000 distinct names.
func BenchmarkGreetingWithMemory(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%dk", n/1000), func(b *testing.B) { benchGreeting(b, n, 1) })
	}
}

// BenchmarkGreetingWithMemoryParallel is BenchmarkGreetingWithMemory at
// --parallelism 1 and 2 over 1M rows.
func BenchmarkGreetingWithMemoryParallel(b *testing.B) {
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("rows=1000k/parallelism=%d", par), func(b *testing.B) { benchGreeting(b, 1_000_000, par) })
	}
}

func benchGreeting(b *testing.B, n, par int) {
	dir := b.TempDir()
	writeNames(b, filepath.Join(dir, "names.csv"), n)
	src, err := os.ReadFile(filepath.Join("..", "examples", "greeting_with_memory.js"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "g.js"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	setup := `CREATE FUNCTION GreetingWithMemory AS 'g.js';
CREATE TABLE names (name STRING) WITH ('connector' = 'filesystem', 'path' = 'names.csv', 'format' = 'csv');`
	query := `SELECT * FROM GreetingWithMemory(TABLE names PARTITION BY name);`
	b.ReportAllocs()
	for b.Loop() {
		sh, err := assembly.New(assembly.Options{Out: io.Discard, Memory: true, BaseDir: dir, Format: "rows", Parallelism: par})
		if err != nil {
			b.Fatal(err)
		}
		sess := sh.Session
		if err := sess.Exec(context.Background(), "", setup); err != nil {
			b.Fatal(err)
		}
		if err := sess.Exec(context.Background(), "", query); err != nil {
			b.Fatal(err)
		}
		sh.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func writeNames(b *testing.B, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "user%03d\n", (i*7919)%1000)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}
