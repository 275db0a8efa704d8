package ptfop

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

func TestValueCodec_roundTrip(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"null", nil},
		{"false", false},
		{"true", true},
		{"int", int64(42)},
		{"int_negative", int64(-7)},
		{"int_min", int64(math.MinInt64)},
		{"int_max", int64(math.MaxInt64)},
		{"double", 1.5},
		{"double_negative_zero", math.Copysign(0, -1)},
		{"double_inf", math.Inf(-1)},
		{"decimal", types.Decimal{Unscaled: big.NewInt(12345), Scale: 2}},
		{"decimal_negative", types.Decimal{Unscaled: big.NewInt(-5), Scale: 3}},
		{"decimal_zero", types.Decimal{Unscaled: big.NewInt(0), Scale: 0}},
		{"decimal_big", types.Decimal{Unscaled: new(big.Int).Lsh(big.NewInt(-3), 100), Scale: 38}},
		{"string", "Bob"},
		{"string_empty", ""},
		{"string_unicode", "gr\u00fc\u00dfe \U0001F600\x00"},
		{"bytes", []byte{0, 1, 255}},
		{"bytes_empty", []byte{}},
		{"date", types.Date(-1)},
		{"time", types.TimeOfDay(86399999999999)},
		{"timestamp", types.LocalDateTime{Millis: 1735693200000, NanoOfMilli: 999999}},
		{"timestamp_ltz", types.Instant{Millis: -1, NanoOfMilli: 1}},
		{"interval_day_time", types.Duration(-1000)},
		{"interval_year_month", types.Period(14)},
		{"array", []any{int64(1), nil, "x"}},
		{"array_empty", []any{}},
		{"map", &types.Map{Keys: []any{"A", "B"}, Values: []any{int64(1), nil}}},
		{"map_empty", &types.Map{Keys: []any{}, Values: []any{}}},
		{"row", types.Row{Kind: types.UpdateAfter, Fields: []any{"Bob", int64(12), types.Row{Fields: []any{nil}}}}},
		{"descriptor", types.Descriptor{"a", "b"}},
		{"nested", []any{&types.Map{Keys: []any{int64(1)}, Values: []any{[]any{types.Instant{Millis: 5}}}}}},
	}
	cmpDecimal := cmp.Comparer(func(a, b types.Decimal) bool { return a.Scale == b.Scale && a.Unscaled.Cmp(b.Unscaled) == 0 })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := exec.AppendValue([]byte{0xAA}, tc.v)
			if err != nil {
				t.Fatal(err)
			}
			got, rest, err := exec.ReadValue(append(b[1:], 0xBB))
			if err != nil {
				t.Fatalf("readValue(%x): %v", b, err)
			}
			if string(rest) != "\xbb" {
				t.Errorf("rest = %x, want bb", rest)
			}
			if f, ok := tc.v.(float64); ok {
				if g, _ := got.(float64); math.Float64bits(g) != math.Float64bits(f) {
					t.Errorf("got %v, want %v", got, f)
				}
				return
			}
			if diff := cmp.Diff(tc.v, got, cmpDecimal); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
			// Every prefix of the encoding is truncated.
			for n := 1; n < len(b)-1; n++ {
				if _, _, err := exec.ReadValue(b[1 : 1+n]); err == nil {
					t.Errorf("readValue of %d of %d bytes did not fail", n, len(b)-1)
				}
			}
		})
	}
}

func TestValueCodec_errors(t *testing.T) {
	if _, err := exec.AppendValue(nil, struct{}{}); err == nil {
		t.Error("appendValue(struct{}{}) did not fail")
	}
	if _, err := exec.AppendValue(nil, []any{1}); err == nil { // a Go int is not a runtime value
		t.Error("appendValue([]any{1}) did not fail")
	}
	if _, _, err := exec.ReadValue([]byte{99}); err == nil || !strings.Contains(err.Error(), "unknown value tag") {
		t.Errorf("readValue(unknown tag) = %v", err)
	}
	if _, _, err := exec.ReadValue(nil); !errors.Is(err, exec.ErrValueTruncated) {
		t.Errorf("readValue(nil) = %v", err)
	}
	deep := []byte{}
	for range exec.MaxValueDepth + 2 {
		deep = append(deep, exec.VtArray, 1)
	}
	if _, _, err := exec.ReadValue(append(deep, exec.VtNull)); err == nil {
		t.Error("a value nested too deeply was read")
	}
}

func TestCheckValueKind(t *testing.T) {
	if err := exec.CheckValueKind("x", types.TypeString); err != nil {
		t.Error(err)
	}
	if err := exec.CheckValueKind(int64(1), types.Type{}); err != nil {
		t.Error(err)
	}
	if err := exec.CheckValueKind("x", types.TypeInt); err == nil || err.Error() != "a string is not a value of type INT" {
		t.Errorf("err = %v", err)
	}
}

// ttlHarness runs a Go PTF with list l and map m under a TTL of 10 ms on a
// clock the test moves.
func ttlHarness(t testing.TB, st state.Store, clock *int64, eval func(*ptf.Context, types.Row) error) *Harness {
	t.Helper()
	lt, mt := types.ArrayOf(types.TypeString), types.MapOf(types.TypeString, types.TypeInt)
	def := &ptf.FuncDef{
		Name: "ttl", Language: "GO",
		Args: []ptf.ArgDecl{{Name: "r", Traits: ptf.SetSemanticTable}},
		State: []ptf.StateDecl{
			{Name: "l", Kind: ptf.ListState, Type: &lt, TTL: 10 * time.Millisecond, TTLSet: true},
			{Name: "m", Kind: ptf.MapState, Type: &mt, TTL: 10 * time.Millisecond, TTLSet: true},
		},
		Output: types.TypeString,
		New:    func(ptf.CallSpec) (ptf.PTF, error) { return &goTestPTF{eval}, nil },
	}
	in := types.Schema{Columns: []types.Column{{Name: "name", Type: types.TypeString}, {Name: "v", Type: types.TypeString}}}
	h, err := NewHarness(def, in, HarnessOptions{PartitionBy: []string{"name"}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	h.op.ex.Now = func() int64 { return *clock }
	t.Cleanup(func() { h.Close() })
	return h
}

type goTestPTF struct {
	eval func(*ptf.Context, types.Row) error
}

func (p *goTestPTF) Eval(ctx *ptf.Context, r types.Row) error           { return p.eval(ctx, r) }
func (p *goTestPTF) OnTimer(*ptf.Context) error                         { return nil }
func (p *goTestPTF) NewState(int) (any, error)                          { return nil, nil }
func (p *goTestPTF) AppendState(b []byte, _ int, _ any) ([]byte, error) { return b, nil }
func (p *goTestPTF) DecodeState(int, []byte) (any, error)               { return nil, nil }

// countKeys counts the keys of the list or map table of namespace ns as
// its last checkpoint left it.
func countKeys(t *testing.T, st state.Store, ns string) int {
	t.Helper()
	n := 0
	if err := st.View(func(tx state.Tx) error {
		return opstate.ScanStored(tx, ns, nil, func(_, _ []byte) error { n++; return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// Each element and entry expires on its own, counted from when it was
// written; expired ones are deleted at the next checkpoint.
func TestViews_TTL(t *testing.T) {
	for _, open := range []func(*testing.T) state.Store{statetest.OpenMem, statetest.OpenBolt} {
		st := open(t)
		var clock int64 = 1000
		h := ttlHarness(t, st, &clock, func(ctx *ptf.Context, r types.Row) error {
			l, m := ctx.List(0), ctx.Map(1)
			if v := r.Fields[1].(string); v != "" {
				if err := l.Add(v); err != nil {
					return err
				}
				if err := m.Put(v, int64(len(v))); err != nil {
					return err
				}
			}
			var parts []string
			if err := l.Range(func(i int, v any) bool { parts = append(parts, v.(string)); return true }); err != nil {
				return err
			}
			n, err := l.Size()
			if err != nil {
				return err
			}
			first, _ := l.Get(0)
			var keys []string
			if err := m.Range(func(k, v any) bool { keys = append(keys, k.(string)); return true }); err != nil {
				return err
			}
			_, hasA, err := m.Get("a")
			if err != nil {
				return err
			}
			return ctx.Collect(types.Row{Fields: []any{fmt.Sprintf("%d %v first=%v map=%v a=%v", n, parts, first, keys, hasA)}})
		})
		step := func(at int64, v string) string {
			clock = at
			out, err := h.Process(types.Row{Fields: []any{"Bob", v}})
			if err != nil {
				t.Fatal(err)
			}
			return out[0].Fields[1].(string)
		}
		var got []string
		got = append(got, step(1000, "a"), step(1005, "b"))
		if err := h.Flush(); err != nil {
			t.Fatal(err)
		}
		got = append(got, step(1008, "c"), step(1012, ""))
		if err := h.Flush(); err != nil {
			t.Fatal(err)
		}
		if n := countKeys(t, st, exec.ListNamespace("ttl", "l")); n != 3 { // meta, b, c
			t.Errorf("%d list keys after the checkpoint, want 3", n)
		}
		if n := countKeys(t, st, exec.MapNamespace("ttl", "m")); n != 2 { // b, c
			t.Errorf("%d map keys after the checkpoint, want 2", n)
		}
		got = append(got, step(1016, ""), step(1019, "d"), step(1030, ""))
		if err := h.Flush(); err != nil {
			t.Fatal(err)
		}
		if n := countKeys(t, st, exec.ListNamespace("ttl", "l")); n != 0 {
			t.Errorf("%d list keys after everything expired, want 0", n)
		}
		got = append(got, step(1031, "e"))
		want := []string{
			"1 [a] first=a map=[a] a=true",
			"2 [a b] first=a map=[a b] a=true",
			"3 [a b c] first=a map=[a b c] a=true",
			"2 [b c] first=b map=[b c] a=false",
			"1 [c] first=c map=[c] a=false",
			"1 [d] first=d map=[d] a=false", // c (1008) expired at 1019
			"0 [] first=<nil> map=[] a=false",
			"1 [e] first=e map=[e] a=false",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("output (-want +got):\n%s", diff)
		}
	}
}

// 100k elements of one key: memory holds the table's cache of them, and
// reading the list (size, get, iteration) does not load it.
func TestListView_large(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const n = 100_000
	for _, open := range []func(*testing.T) state.Store{statetest.OpenMem, statetest.OpenBolt} {
		st := open(t)
		var clock int64
		read := false
		var summary string
		h := ttlHarness(t, st, &clock, func(ctx *ptf.Context, r types.Row) error {
			l := ctx.List(0)
			if !read {
				return l.Add(r.Fields[1])
			}
			size, err := l.Size()
			if err != nil {
				return err
			}
			last, err := l.Get(size - 1)
			if err != nil {
				return err
			}
			count := 0
			if err := l.Range(func(i int, v any) bool {
				if v != fmt.Sprint(i) {
					summary = fmt.Sprintf("element %d is %v", i, v)
					return false
				}
				count++
				return true
			}); err != nil {
				return err
			}
			summary += fmt.Sprintf("size %d last %v iterated %d", size, last, count)
			return nil
		})
		h.op.ttl = []int64{0, 0}
		batch := make([]types.Row, 0, 1000)
		for i := 0; i < n; i++ {
			batch = append(batch, types.Row{Fields: []any{"Bob", fmt.Sprint(i)}})
			if len(batch) == cap(batch) {
				if _, err := h.Process(batch...); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		// The list's elements beyond the table's cache wait in the store,
		// before the checkpoint as after it.
		if got := h.op.views.t.tabs[0].Cached(); got > opstate.DefaultCacheEntries {
			t.Errorf("the cache holds %d elements before the checkpoint, more than %d", got, opstate.DefaultCacheEntries)
		}
		if err := h.Flush(); err != nil {
			t.Fatal(err)
		}
		read = true
		if _, err := h.Process(types.Row{Fields: []any{"Bob", ""}}); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("size %d last %d iterated %d", n, n-1, n); summary != want {
			t.Errorf("got %q, want %q", summary, want)
		}
		if got := h.op.views.t.tabs[0].Cached(); got > opstate.DefaultCacheEntries {
			t.Errorf("after reading, the cache holds %d elements, more than %d", got, opstate.DefaultCacheEntries)
		}
	}
}

func TestDescribeView_manyElements(t *testing.T) {
	st := statetest.OpenMem(t)
	var clock int64
	h := ttlHarness(t, st, &clock, func(ctx *ptf.Context, r types.Row) error {
		for i := 0; i < 25; i++ {
			if err := ctx.List(0).Add(fmt.Sprint(i)); err != nil {
				return err
			}
		}
		return ctx.Map(1).Put(r.Fields[1], int64(1))
	})
	h.op.ttl = []int64{0, 0}
	if _, err := h.Process(types.Row{Fields: []any{"Bob", "k"}}); err != nil {
		t.Fatal(err)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	err := st.View(func(tx state.Tx) error {
		var err error
		rows, err = DescribeView(tx, exec.ListNamespace("ttl", "l"), "l", ptf.ListState, nil)
		if err != nil {
			return err
		}
		mrows, err := DescribeView(tx, exec.MapNamespace("ttl", "m"), "m", ptf.MapState, keycodec.Encode([]any{"Bob"}))
		rows = append(rows, mrows...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != MaxShownElements+2 {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	if got := rows[MaxShownElements]; got[0] != "(Bob)" || got[2] != "(5 more)" {
		t.Errorf("summary row = %v", got)
	}
	if got := rows[MaxShownElements+1]; got[1] != "m[k]" || got[2] != "1" {
		t.Errorf("map row = %v", got)
	}
}

// Lists and maps cleared between two checkpoints: the checkpoint deletes
// every element and entry the store held for them, keeps those of keys
// not cleared, and what is read back is what was written, including a
// list cleared twice in one interval.
func TestViews_clearBetweenCheckpoints(t *testing.T) {
	for _, open := range []func(*testing.T) state.Store{statetest.OpenMem, statetest.OpenBolt} {
		st := open(t)
		var clock int64
		h := ttlHarness(t, st, &clock, func(ctx *ptf.Context, r types.Row) error {
			l, m := ctx.List(0), ctx.Map(1)
			switch r.Fields[1].(string) {
			case "fill":
				for _, v := range []string{"a", "b", "c"} {
					if err := l.Add(v); err != nil {
						return err
					}
					if err := m.Put(v, int64(len(v))); err != nil {
						return err
					}
				}
			case "clear":
				if err := l.Clear(); err != nil {
					return err
				}
				if err := m.Clear(); err != nil {
					return err
				}
				if err := l.Add("d"); err != nil {
					return err
				}
				return m.Put("w", int64(9))
			case "clear twice":
				for _, v := range []string{"d", "e"} {
					if err := l.Clear(); err != nil {
						return err
					}
					if err := l.Add(v); err != nil {
						return err
					}
				}
			}
			var parts []string
			if err := l.Range(func(_ int, v any) bool { parts = append(parts, v.(string)); return true }); err != nil {
				return err
			}
			var entries []string
			if err := m.Range(func(k, v any) bool { entries = append(entries, fmt.Sprint(k, "=", v)); return true }); err != nil {
				return err
			}
			return ctx.Collect(types.Row{Fields: []any{fmt.Sprint(parts, entries)}})
		})
		h.op.ttl = []int64{0, 0}
		const keys = 40
		process := func(action func(k int) string) []string {
			var rows []types.Row
			for k := range keys {
				rows = append(rows, types.Row{Fields: []any{fmt.Sprintf("k%02d", k), action(k)}})
			}
			out, err := h.Process(rows...)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out {
				got = append(got, r.Fields[0].(string)+" "+r.Fields[1].(string))
			}
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			return got
		}
		process(func(int) string { return "fill" })
		process(func(k int) string {
			switch {
			case k == 0:
				return "clear twice"
			case k%2 == 1:
				return "clear"
			}
			return ""
		})
		// meta + 1 element for the 21 cleared lists (k00 and the odd
		// keys), meta + 3 for the 19 others
		if n, want := countKeys(t, st, exec.ListNamespace("ttl", "l")), 21*2+19*4; n != want {
			t.Errorf("%d list keys after the checkpoint, want %d", n, want)
		}
		// 1 entry for the 20 cleared maps (the odd keys; k00 cleared only
		// its list), 3 for the 20 others
		if n, want := countKeys(t, st, exec.MapNamespace("ttl", "m")), 20*1+20*3; n != want {
			t.Errorf("%d map keys after the checkpoint, want %d", n, want)
		}
		got := process(func(int) string { return "" })
		for k, g := range got {
			want := fmt.Sprintf("k%02d [a b c] [a=1 b=1 c=1]", k)
			switch {
			case k == 0:
				want = "k00 [e] [a=1 b=1 c=1]"
			case k%2 == 1:
				want = fmt.Sprintf("k%02d [d] [w=9]", k)
			}
			if g != want {
				t.Errorf("read back %q, want %q", g, want)
			}
		}
	}
}

// BenchmarkViewsCheckpoint_cleared times the checkpoint after 20k keys
// cleared their list and map and added three elements and entries: the
// clears delete through the tables as the calls run, and the checkpoint
// writes the changes as a generation of their own.
func BenchmarkViewsCheckpoint_cleared(b *testing.B) {
	st, err := state.OpenBolt(filepath.Join(b.TempDir(), "state.db"), state.BoltOptions{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var clock int64
	h := ttlHarness(b, st, &clock, func(ctx *ptf.Context, r types.Row) error {
		l, m := ctx.List(0), ctx.Map(1)
		if r.Fields[1] == "clear" {
			if err := l.Clear(); err != nil {
				return err
			}
			if err := m.Clear(); err != nil {
				return err
			}
		}
		for _, v := range []string{"a", "b", "c"} {
			if err := l.Add(v); err != nil {
				return err
			}
			if err := m.Put(v, int64(1)); err != nil {
				return err
			}
		}
		return nil
	})
	h.op.ttl = []int64{0, 0}
	const keys = 20_000
	rows := func(action string) []types.Row {
		rs := make([]types.Row, keys)
		for k := range rs {
			rs[k] = types.Row{Fields: []any{fmt.Sprintf("k%05d", k), action}}
		}
		return rs
	}
	if _, err := h.Process(rows("fill")...); err != nil {
		b.Fatal(err)
	}
	if err := h.Flush(); err != nil {
		b.Fatal(err)
	}
	clear := rows("clear")
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		if _, err := h.Process(clear...); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := h.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}
