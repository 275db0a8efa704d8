package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// probe is a Go PTF for the parallel tests: it emits its input row's
// number, sleeping a little first (so that workers finish out of order),
// and fails where told.
type probe struct {
	sleep func(i int) time.Duration
	fail  func(key string, i int) error
}

func (p probe) Eval(ctx *ptf.Context, row types.Row) error {
	key := row.Fields[0].(string)
	i, err := strconv.Atoi(row.Fields[1].(string))
	if err != nil {
		return err
	}
	if d := p.sleep(i); d > 0 {
		time.Sleep(d)
	}
	if err := p.fail(key, i); err != nil {
		return err
	}
	return ctx.Collect(types.NewRow(int64(i)))
}

func (probe) OnTimer(*ptf.Context) error { return nil }

// runProbe runs probe over rows (key, i) for i in 0..n-1 at parallelism par.
func runProbe(t *testing.T, p probe, keyOf func(i int) string, n, par int) string {
	t.Helper()
	var out bytes.Buffer
	sess, err := NewSession(Config{Out: &out, Err: &out, Format: "rows", Parallelism: par})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	def := &ptf.FuncDef{
		Name: "Probe", Language: "GO",
		Args:   []ptf.ArgDecl{{Name: "input", Traits: ptf.SetSemanticTable}},
		Output: types.TypeBigInt,
		New:    func(ptf.CallSpec) (ptf.PTF, error) { return p, nil },
	}
	def.NewIsolated = def.New
	sess.Catalog().RegisterBuiltIn(def)
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("('%s', '%d')", keyOf(i), i)
	}
	err = sess.Exec(context.Background(), "", "CREATE VIEW t(k, i) AS VALUES "+strings.Join(vals, ", ")+";\n"+
		"SELECT * FROM Probe(TABLE t PARTITION BY k);")
	if err != nil {
		out.WriteString("error: " + err.Error() + "\n")
	}
	return out.String()
}

// keysOnWorkers returns two keys that go to different workers of two.
func keysOnWorkers(t *testing.T) (a, b string) {
	w := func(k string) int { return ptfop.WorkerOf(types.Row{Fields: []any{k}}, []int{0}, 2) }
	for i := 0; i < 100; i++ {
		k := "k" + strconv.Itoa(i)
		if w(k) == 0 && a == "" {
			a = k
		}
		if w(k) == 1 && b == "" {
			b = k
		}
	}
	if a == "" || b == "" {
		t.Fatal("no keys for both workers")
	}
	return a, b
}

// TestParallel_merge_inputOrder: workers that take random times per row
// still give the rows in input order.
func TestParallel_merge_inputOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	sleeps := make([]time.Duration, 300)
	for i := range sleeps {
		sleeps[i] = time.Duration(rng.Intn(300)) * time.Microsecond
	}
	p := probe{sleep: func(i int) time.Duration { return sleeps[i] }, fail: func(string, int) error { return nil }}
	keyOf := func(i int) string { return "k" + strconv.Itoa(i*31%7) }
	want := runProbe(t, p, keyOf, len(sleeps), 1)
	got := runProbe(t, p, keyOf, len(sleeps), 2)
	if !strings.HasSuffix(got, "note: Probe ran on 2 workers (parallelism 2)\n") {
		t.Fatalf("no note of 2 workers:\n%s", got)
	}
	got = strings.TrimSuffix(got, "note: Probe ran on 2 workers (parallelism 2)\n")
	if got != want {
		t.Fatalf("parallelism 2:\n%s\nwant (parallelism 1):\n%s", got, want)
	}
	var b strings.Builder
	for i := range sleeps {
		fmt.Fprintf(&b, "+I[%s, %d]\n", keyOf(i), i)
	}
	if want != b.String() {
		t.Fatalf("parallelism 1:\n%s\nwant:\n%s", want, b.String())
	}
}

// TestParallel_error_earliestRow: worker 1 fails at row 21 at once while
// worker 0 is busy until it fails at row 10; the statement reports row
// 10's error, as at parallelism 1, after rows 0-9, and no goroutine stays.
func TestParallel_error_earliestRow(t *testing.T) {
	a, b := keysOnWorkers(t)
	keyOf := func(i int) string {
		if i%2 == 0 {
			return a
		}
		return b
	}
	p := probe{
		sleep: func(i int) time.Duration {
			if i == 10 {
				return 200 * time.Millisecond
			}
			return 0
		},
		fail: func(key string, i int) error {
			switch {
			case key == a && i == 10:
				return errors.New("first failure")
			case key == b && i == 21:
				return errors.New("second failure")
			}
			return nil
		},
	}
	before := goruntime.NumGoroutine()
	want := runProbe(t, p, keyOf, 40, 1)
	if !strings.Contains(want, "first failure") || !strings.Contains(want, "+I["+b+", 9]\n") || strings.Contains(want, ", 11]") {
		t.Fatalf("parallelism 1:\n%s", want)
	}
	got := runProbe(t, p, keyOf, 40, 2)
	if got != want {
		t.Fatalf("parallelism 2:\n%s\nwant (parallelism 1):\n%s", got, want)
	}
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left, %d before", goruntime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
