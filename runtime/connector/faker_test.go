package connector_test

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// serverLogs is the cookbook's server_logs table with five columns.
func serverLogs(rows int) *catalog.Table {
	ts := types.TypeTimestamp3
	return &catalog.Table{Name: "server_logs", Kind: catalog.TableConnector,
		Schema: types.Schema{Columns: []types.Column{
			{Name: "client_ip", Type: types.TypeString}, {Name: "log_time", Type: ts},
			{Name: "request_line", Type: types.TypeString}, {Name: "status_code", Type: types.TypeString},
			{Name: "size", Type: types.TypeInt}}},
		Options: map[string]string{
			"connector":                      "faker",
			"number-of-rows":                 fmt.Sprint(rows),
			"fields.client_ip.expression":    "#{Internet.publicIpV4Address}",
			"fields.log_time.expression":     "#{date.past '15','5','SECONDS'}",
			"fields.request_line.expression": `#{regexify '(GET|POST|PUT|PATCH){1}'} #{regexify '(/search\.html|/login\.html|/prod\.html|cart\.html|/order\.html){1}'} #{regexify '(HTTP/1\.1|HTTP/2|/HTTP/1\.0){1}'}`,
			"fields.status_code.expression":  "#{regexify '(200|201|204|400|401|403|301){1}'}",
			"fields.size.expression":         "#{number.numberBetween '100','10000000'}",
		}}
}

// fakerRows reads a faker table to its end with a fixed clock.
func fakerRows(tb testing.TB, t *catalog.Table, env connector.Env) []types.Row {
	n, err := connector.NewFakerNode(t, env)
	if err != nil {
		tb.Fatal(err)
	}
	ex := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
	ex.Now = func() int64 { return 1743076800000 } // 2025-03-27 12:00:00
	st, err := n.Open(ex)
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	var rows []types.Row
	for {
		ev, err := st.Next()
		if err != nil {
			tb.Fatal(err)
		}
		if ev.Kind == exec.EvEnd {
			return rows
		}
		if ev.Kind == exec.EvRow {
			rows = append(rows, ev.Row)
		}
	}
}

var fixedEnv = connector.Env{HasProcessingTime: true, ProcessingTime: "2025-03-27 12:00:00", WatermarkEvery: 1}

// The same seed gives the same rows; another seed others; date.past lies
// within its window before the clock.
func TestFakerNode_seeded(t *testing.T) {
	a := fakerRows(t, serverLogs(200), fixedEnv)
	b := fakerRows(t, serverLogs(200), fixedEnv)
	if len(a) != 200 {
		t.Fatalf("%d rows, want 200", len(a))
	}
	for i := range a {
		if fmt.Sprint(a[i]) != fmt.Sprint(b[i]) {
			t.Fatalf("row %d differs between two runs of one seed:\n%s\n%s", i, a[i], b[i])
		}
	}
	other := fixedEnv
	other.HasSeed, other.Seed = true, "7"
	c := fakerRows(t, serverLogs(200), other)
	same := 0
	for i := range a {
		if fmt.Sprint(a[i]) == fmt.Sprint(c[i]) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of 200 rows are equal under seeds 0 and 7", same)
	}
	const now = 1743076800000
	for _, r := range a {
		ms := r.Fields[1].(types.LocalDateTime).Millis
		if ms < now-15000 || ms > now-5000 {
			t.Fatalf("log_time %d is not within [now-15 s, now-5 s] of %d", ms, now)
		}
		size := r.Fields[4].(int64)
		if size < 100 || size >= 10000000 {
			t.Fatalf("size %d is not in [100, 10000000)", size)
		}
		if s := r.Fields[2].(string); len(strings.Fields(s)) != 3 {
			t.Fatalf("request_line %q", s)
		}
	}
}

// An unbounded table is bounded by Env.GeneratedRows; number-of-rows wins.
func TestFakerNode_generatedRows(t *testing.T) {
	tb := serverLogs(0)
	delete(tb.Options, "number-of-rows")
	env := fixedEnv
	env.GeneratedRows = 7
	if got := len(fakerRows(t, tb, env)); got != 7 {
		t.Errorf("%d rows, want 7", got)
	}
	if got := len(fakerRows(t, serverLogs(3), env)); got != 3 {
		t.Errorf("%d rows, want number-of-rows' 3", got)
	}
}

// Collections and null rates, as flink-faker makes them.
func TestFakerNode_collections(t *testing.T) {
	str := types.TypeString
	intT := types.TypeInt
	tb := &catalog.Table{Name: "hp", Kind: catalog.TableConnector,
		Schema: types.Schema{Columns: []types.Column{
			{Name: "ages", Type: types.Type{Kind: types.KindMap, Key: &str, Elem: &intT}},
			{Name: "spells", Type: types.Type{Kind: types.KindArray, Elem: &str}},
			{Name: "hp", Type: types.Type{Kind: types.KindRow, Fields: []types.Field{{Name: "house", Type: str}, {Name: "points", Type: intT}}}},
			{Name: "maybe", Type: intT}}},
		Options: map[string]string{
			"connector": "faker", "number-of-rows": "300",
			"fields.ages.key.expression":   "#{harry_potter.character}",
			"fields.ages.value.expression": "#{number.numberBetween '10','100'}",
			"fields.ages.length":           "2",
			"fields.spells.expression":     "#{harry_potter.spell}",
			"fields.spells.length":         "3",
			"fields.hp.house.expression":   "#{harry_potter.house}",
			"fields.hp.points.expression":  "#{number.numberBetween '10','100'}",
			"fields.maybe.expression":      "#{number.digit}",
			"fields.maybe.null-rate":       "0.5",
		}}
	nulls := 0
	for _, r := range fakerRows(t, tb, fixedEnv) {
		if m := r.Fields[0].(*types.Map); len(m.Keys) < 1 || len(m.Keys) > 2 {
			t.Fatalf("map %v", m)
		}
		if a := r.Fields[1].([]any); len(a) != 3 {
			t.Fatalf("array %v", a)
		}
		row := r.Fields[2].(types.Row)
		if p := row.Fields[1].(int64); p < 10 || p >= 100 {
			t.Fatalf("points %d", p)
		}
		if r.Fields[3] == nil {
			nulls++
		}
	}
	if nulls < 100 || nulls > 200 {
		t.Errorf("%d NULLs of 300 at a null rate of 0.5", nulls)
	}
}

// BenchmarkFakerNode makes the rows of the cookbook's server_logs table
// (five columns: an IP address, a time, three regexify, a number).
func BenchmarkFakerNode(b *testing.B) {
	for _, rows := range []int{100_000} {
		b.Run(fmt.Sprintf("rows=%dk", rows/1000), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				if got := len(fakerRows(b, serverLogs(rows), fixedEnv)); got != rows {
					b.Fatal(got)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			// On a shared machine the wall clock counts the others' work too;
			// the process's CPU time (GC included) counts its own.
			b.ReportMetric(float64(rows)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
