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

// BenchmarkNoDepartureAlertParallel runs examples/no_departure_alert.js
// (event time: a watermark after almost every row, a timer per row, timers
// of quiet airports firing) over 500k generated departures from 300
// airports at --parallelism 1 and 2.
func BenchmarkNoDepartureAlertParallel(b *testing.B) {
	const n = 500_000
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "flights.csv"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	ts := int64(978_307_200_000) // 2001-01-01
	for i := 0; i < n; i++ {
		ts += int64(i*7919%61) * 1000
		// airport k of 300 takes a share of about 1/(k+1)
		a := (i * 7919) % 300
		a = a * a / 300
		fmt.Fprintf(w, "%d,%d,%d,A%03d,B%03d\n", ts, i%60-10, 300+i%2000, a, i%300)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	src, err := os.ReadFile(filepath.Join("..", "examples", "no_departure_alert.js"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alert.js"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	script := "CREATE FUNCTION NoDepartureAlert AS 'alert.js';\n" +
		"CREATE TABLE flights (`date` TIMESTAMP_LTZ(3), delay INT, distance INT, origin STRING, destination STRING, " +
		"WATERMARK FOR `date` AS `date` - INTERVAL '1' MINUTE) WITH ('connector' = 'filesystem', 'path' = 'flights.csv', 'format' = 'csv');\n" +
		"SELECT * FROM NoDepartureAlert(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`));\n"
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("rows=500k/parallelism=%d", par), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sh, err := assembly.New(assembly.Options{Out: io.Discard, Memory: true, BaseDir: dir, Format: "csv", Parallelism: par})
				if err != nil {
					b.Fatal(err)
				}
				if err := sh.Session.Exec(context.Background(), "", script); err != nil {
					b.Fatal(err)
				}
				sh.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
