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

// sqlOpBenchRows and sqlOpBenchKeys size BenchmarkSQLOperators' input.
const (
	sqlOpBenchRows = 200_000
	sqlOpBenchKeys = 20_000
)

// sqlOpBenchQueries are the queries of BenchmarkSQLOperators, one per
// stateful SQL operator, over clicks (k, g, v, ts: a key of 20k, a group
// of 100, a value and a time that grows by 10 ms a row, out of order by up
// to 50 ms), dim (one row per key), and prices (an upsert table keyed by
// k with a time attribute: a versioned table).
var sqlOpBenchQueries = []struct{ name, query string }{
	{"group_by", "SELECT k, COUNT(*), SUM(v) FROM clicks GROUP BY k"},
	{"join", "SELECT c.k, c.v, d.name FROM clicks c JOIN dim d ON c.k = d.k"},
	{"join_left_streams", "SELECT a.k, a.v, b.v FROM clicks a LEFT JOIN (SELECT k, v FROM clicks WHERE v < 10) b ON a.k = b.k AND a.v > b.v"},
	{"interval_join", "SELECT a.k, a.v, b.v FROM clicks a JOIN clicks b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts"},
	{"temporal_join", "SELECT c.k, c.v, p.price FROM clicks c JOIN prices FOR SYSTEM_TIME AS OF c.ts AS p ON c.k = p.k"},
	{"over_rows", "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM clicks"},
	{"over_range", "SELECT k, v, COUNT(*) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM clicks"},
	{"top3", "SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM clicks) WHERE rn <= 3"},
	{"dedup_last", "SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM clicks) WHERE rn = 1"},
	{"order_limit", "SELECT k, v FROM clicks ORDER BY v DESC, k LIMIT 10"},
	{"temporal_sort", "SELECT k, v FROM clicks ORDER BY ts"},
	{"retract_top3", "SELECT * FROM (SELECT g, k, n, ROW_NUMBER() OVER (PARTITION BY g ORDER BY n DESC) AS rn FROM (SELECT g, k, COUNT(*) AS n FROM clicks GROUP BY g, k)) WHERE rn <= 3"},
	{"match", "SELECT * FROM clicks MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS a, B.v AS b ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE B AS B.v > A.v)"},
	{"normalize", "SELECT k, SUM(price) FROM prices GROUP BY k"},
}

// BenchmarkSQLOperators runs one query per stateful SQL operator end to
// end (CSV source, the operator, the rows printer to io.Discard) with the
// default store (a scratch file: only the final checkpoint) and cache.
func BenchmarkSQLOperators(b *testing.B) {
	dir := b.TempDir()
	writeSQLOpBenchData(b, dir)
	setup := `CREATE TABLE clicks (k STRING, g INT, v INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'clicks.csv', 'format' = 'csv');
CREATE TABLE dim (k STRING, name STRING) WITH ('connector' = 'filesystem', 'path' = 'dim.csv', 'format' = 'csv');
CREATE TABLE prices (k STRING, price INT, ts TIMESTAMP_LTZ(3), PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'prices.csv', 'format' = 'csv');`
	for _, q := range sqlOpBenchQueries {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sh, err := assembly.New(assembly.Options{Out: io.Discard, BaseDir: dir, Format: "rows"})
				if err != nil {
					b.Fatal(err)
				}
				if err := sh.Session.Exec(context.Background(), "", setup); err != nil {
					b.Fatal(err)
				}
				if err := sh.Session.Exec(context.Background(), "", q.query+";"); err != nil {
					b.Fatal(err)
				}
				sh.Close()
			}
			b.ReportMetric(float64(sqlOpBenchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

func writeSQLOpBenchData(b *testing.B, dir string) {
	write := func(name string, rows int, line func(w io.Writer, i int)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := range rows {
			line(w, i)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	start := int64(1_767_225_600_000)
	write("clicks.csv", sqlOpBenchRows, func(w io.Writer, i int) {
		k := (i * 7919) % sqlOpBenchKeys
		fmt.Fprintf(w, "k%05d,%d,%d,%d\n", k, k%100, (i*31)%1000, start+int64(i)*10-int64(i*13%6)*10)
	})
	write("dim.csv", sqlOpBenchKeys, func(w io.Writer, i int) { fmt.Fprintf(w, "k%05d,name%d\n", i, i) })
	write("prices.csv", sqlOpBenchRows/4, func(w io.Writer, i int) {
		fmt.Fprintf(w, "k%05d,%d,%d\n", (i*104729)%sqlOpBenchKeys, i%500, start+int64(i)*40)
	})
}
