package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/state"
)

// sumJob writes a folder with csv as k.csv (key,v) and the keyed sum
// crashSum, and returns it with the query that sums k by key.
func sumJob(t *testing.T, csv string) (dir, query string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sum.js"), []byte(crashSum), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, `SET 'ptfsh.format' = 'rows';
CREATE FUNCTION sum AS 'sum.js';
CREATE TABLE k (key STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'k.csv', 'format' = 'csv');
SELECT * FROM sum(TABLE k PARTITION BY key);
`
}

// TestCache_spillKeepsOutput runs a stateful query whose state is ten
// times (and a hundred times) the value-state cache, over a memory and a
// bbolt store, with and without checkpoints in between: every run prints
// what a run with a large cache prints.
func TestCache_spillKeepsOutput(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 6000; i++ {
		fmt.Fprintf(&b, "k%04d,%d\n", (i*7919)%1000, i%7)
	}
	dir, query := sumJob(t, b.String())
	want := RunScript(t, dir, query)
	if n := strings.Count(want, "\n"); n != 6000 {
		t.Fatalf("reference run printed %d lines", n)
	}
	for _, tc := range []struct{ cache, bytes, every string }{{"100", "256 mb", "0"}, {"100", "256 mb", "1000"}, {"10", "256 mb", "250"}, {"10", "2 kb", "0"}, {"10", "2 kb", "250"}} {
		for _, kind := range []string{"mem", "bolt", "bolt-parallel"} {
			var store state.Store = state.NewMem()
			if kind != "mem" {
				var err error
				if store, err = state.OpenBolt(filepath.Join(t.TempDir(), "s.db"), state.BoltOptions{NoSync: true}); err != nil {
					t.Fatal(err)
				}
			}
			par := 1
			if kind == "bolt-parallel" {
				par = 2
			}
			got := runScriptParallel(t, dir, "query.sql", fmt.Sprintf("SET 'state.cache-size' = '%s';\nSET 'state.cache-bytes' = '%s';\nSET 'execution.checkpointing.interval-rows' = '%s';\n%s", tc.cache, tc.bytes, tc.every, query), store, par)
			got, _ = stripWorkerNotes(got)
			store.Close()
			if got != want {
				t.Errorf("cache %s keys and %s, checkpoint every %s rows, %s store: output differs from the large-cache run", tc.cache, tc.bytes, tc.every, kind)
			}
		}
	}
}

// TestCache_cleanEvictionAfterCheckpoint: keys that a checkpoint wrote and
// that were evicted unchanged since come back with their values (from the
// warm tier; TestCache_spillKeepsOutput's small cache-bytes sends them to
// the store). The first rows use few keys (no eviction before the first
// checkpoint), the rest many.
func TestCache_cleanEvictionAfterCheckpoint(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "k%04d,%d\n", i%20, i%7)
	}
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "k%04d,%d\n", (i*7919)%500, i%7)
	}
	dir, query := sumJob(t, b.String())
	want := RunScript(t, dir, query)
	for _, par := range []int{1, 2} {
		got, _ := stripWorkerNotes(runScriptParallel(t, dir, "query.sql", "SET 'state.cache-size' = '50';\nSET 'execution.checkpointing.interval-rows' = '300';\n"+query, state.NewMem(), par))
		if got != want {
			t.Errorf("parallelism %d: the output differs from a run with a large cache", par)
		}
	}
}

// viewCounter is a store that counts its read transactions.
type viewCounter struct {
	state.Store
	views int
}

func (c *viewCounter) View(fn func(state.Tx) error) error {
	c.views++
	return c.Store.View(fn)
}

// TestCache_cleanKeysStayWarm: a key evicted unchanged since a checkpoint
// wrote it stays in memory as a warm record, so that reading it again
// needs no store read. 50 keys, a cache of 10, a checkpoint every 100
// rows: a run that read evicted keys back from the store made 194 reads.
func TestCache_cleanKeysStayWarm(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "k%04d,%d\n", (i*7919)%50, i%7)
	}
	dir, query := sumJob(t, b.String())
	want := RunScript(t, dir, query)
	store := &viewCounter{Store: state.NewMem()}
	got := runScriptParallel(t, dir, "query.sql", "SET 'state.cache-size' = '10';\nSET 'execution.checkpointing.interval-rows' = '100';\n"+query, store, 1)
	if got != want {
		t.Fatalf("the output differs from a run with a large cache")
	}
	if store.views > 20 {
		t.Errorf("%d store reads for 2000 rows over 50 keys: evicted keys were read back from the store", store.views)
	}
	t.Logf("%d store reads", store.views)
}

// TestCache_timersSurviveEviction: keys with timers leave the live cache
// and come back when a timer fires or a row comes, their values encoded in
// between or spilled to the store. The output equals a large-cache run's.
func TestCache_timersSurviveEviction(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 4000; i++ {
		// 40 airports, departures a few minutes apart, some silent for hours.
		origin := (i * 7) % 40
		if i%400 < 200 && origin%5 == 0 {
			origin++ // every fifth airport falls silent for a while
		}
		ts := int64(i) * 90_000
		fmt.Fprintf(&b, "%s,A%02d\n", time.UnixMilli(ts).UTC().Format("2006-01-02 15:04:05"), origin)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "examples", "no_departure_alert.js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "alert.js"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	query := `SET 'ptfsh.format' = 'rows';
CREATE FUNCTION alert AS 'alert.js';
CREATE TABLE f (` + "`date`" + ` TIMESTAMP(3), origin STRING, WATERMARK FOR ` + "`date`" + ` AS ` + "`date`" + ` - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'f.csv', 'format' = 'csv');
SELECT * FROM alert(flights => TABLE f PARTITION BY origin, on_time => DESCRIPTOR(` + "`date`" + `));
`
	want := RunScript(t, dir, query)
	if n := strings.Count(want, "\n"); n < 20 {
		t.Fatalf("the reference run printed only %d lines:\n%s", n, want)
	}
	for _, tc := range []struct{ cache, bytes, every string }{{"2", "256 mb", "0"}, {"3", "1 kb", "0"}, {"3", "1 kb", "500"}} {
		for _, par := range []int{1, 2} {
			store, err := state.OpenBolt(filepath.Join(t.TempDir(), "s.db"), state.BoltOptions{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			got := runScriptParallel(t, dir, "query.sql", fmt.Sprintf("SET 'state.cache-size' = '%s';\nSET 'state.cache-bytes' = '%s';\nSET 'execution.checkpointing.interval-rows' = '%s';\n%s", tc.cache, tc.bytes, tc.every, query), store, par)
			got, _ = stripWorkerNotes(got)
			store.Close()
			if got != want {
				t.Errorf("cache %s keys and %s, checkpoint every %s rows, parallelism %d: output differs from the large-cache run\n got: %.300s\nwant: %.300s", tc.cache, tc.bytes, tc.every, par, got, want)
			}
		}
	}
}
