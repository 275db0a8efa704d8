package tests

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
)

// TestScripts_windowsScratchStore runs the archives of window table
// functions as the ptfsh command runs a script without --state: over a
// scratch store, where a bounded window aggregation keeps its windows in
// memory instead of the store. The rows must be those of the store's
// way, which TestScripts checks against the same want.out.
func TestScripts_windowsScratchStore(t *testing.T) {
	for _, name := range []string{"window_agg", "windows", "group_windows", "window_join", "window_topn", "window_errors", "expressions", "nonreserved_names"} {
		file := filepath.Join("testdata", "sql", name+".txtar")
		t.Run(name, func(t *testing.T) {
			test, dir := extractArchive(t, file)
			checkArchive(t, file, test, runScratch(t, dir, test.Query))
		})
	}
}

// runScratch is RunScript over a scratch store, as the ptfsh command
// opens one without --state.
func runScratch(t *testing.T, dir, query string) string {
	t.Helper()
	var out bytes.Buffer
	seed := int64(1)
	sh, err := assembly.New(assembly.Options{Out: &out, BaseDir: dir, Seed: &seed,
		EvalTimeout: assembly.DefaultEvalTimeout, ProcessingTime: assembly.TestProcessingTime})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	sh.RunEach(context.Background(), "query.sql", query, &out)
	return strings.ReplaceAll(out.String(), dir+string(filepath.Separator), "")
}

// TestWindowAggregate_memoryMatchesStore runs TUMBLE and HOP window
// aggregations over generated rows (thousands of keys, NULLs, late rows,
// integers near INT's bounds, doubles) both ways: over a scratch store,
// where the windows live in memory, and over a given store, where they
// live in the store. Both must print the same rows in the same order.
func TestWindowAggregate_memoryMatchesStore(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 rows three times, both ways")
	}
	dir := t.TempDir()
	rnd := rand.New(rand.NewSource(7))
	var csv strings.Builder
	ts := int64(1_700_000_000_000)
	for i := range 20_000 {
		ts += int64(rnd.Intn(4))
		at := ts
		if rnd.Intn(50) == 0 {
			at -= 20_000 // late: its windows may have fired
		}
		k := fmt.Sprintf("k%d", rnd.Intn(6000))
		v := strconv.Itoa(rnd.Intn(200) - 100)
		switch rnd.Intn(20) {
		case 0:
			v = ""
		case 1:
			v = strconv.Itoa(math.MaxInt32 - rnd.Intn(10))
		}
		d := strconv.FormatFloat(rnd.NormFloat64()*100, 'g', -1, 64)
		if i%17 == 0 {
			d = ""
		}
		fmt.Fprintf(&csv, "%s,%d,%s,%s,%s\n", k, rnd.Intn(3), v, d, time.UnixMilli(at).UTC().Format("2006-01-02 15:04:05.000"))
	}
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const aggs = `COUNT(*), SUM(v), AVG(v), MIN(v), MAX(v), COUNT(d) FILTER (WHERE v > 50), SUM(d), AVG(d), MIN(d), MAX(d), MAX(k), MIN(ts)`
	query := `CREATE TABLE t (k STRING, k2 INT, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, window_start, window_end, ` + aggs + ` FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
SELECT k2, k, window_end, ` + aggs + ` FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) GROUP BY window_start, k2, window_end, k;
SELECT window_start, COUNT(*), SUM(CAST(v AS BIGINT)) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
`
	got := runScratch(t, dir, query)
	want := RunScript(t, dir, query)
	if strings.Count(want, "\n") < 10_000 {
		t.Fatalf("too few rows to compare:\n%s", want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the windows in memory print other rows than the store's (-store +memory):\n%s", diff)
	}
}
