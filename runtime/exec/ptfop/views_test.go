package ptfop_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
	"github.com/ptfsh/ptfsh/state/statetest"
)

// viewPTF is a Go PTF for the tests of list and map state: eval runs per
// row. It is a StateCodec only because the runtime asks one of every PTF
// that declares state; list and map state never use it.
type viewPTF struct {
	eval    func(ctx *ptf.Context, r types.Row) error
	onTimer func(ctx *ptf.Context) error
}

func (p *viewPTF) Eval(ctx *ptf.Context, r types.Row) error { return p.eval(ctx, r) }
func (p *viewPTF) OnTimer(ctx *ptf.Context) error {
	if p.onTimer == nil {
		return nil
	}
	return p.onTimer(ctx)
}
func (p *viewPTF) NewState(int) (any, error)                          { return nil, nil }
func (p *viewPTF) AppendState(b []byte, _ int, _ any) ([]byte, error) { return b, nil }
func (p *viewPTF) DecodeState(int, []byte) (any, error)               { return nil, nil }

var (
	listOfString   = types.ArrayOf(types.TypeString)
	mapStringToInt = types.MapOf(types.TypeString, types.TypeInt)
	viewInput      = types.Schema{Columns: []types.Column{{Name: "name", Type: types.TypeString}, {Name: "v", Type: types.TypeString}}}
)

// viewFunc declares state l ARRAY<STRING> (a list) and m MAP<STRING, INT>
// (a map) on a set-semantic table r.
func viewFunc(eval func(ctx *ptf.Context, r types.Row) error) *ptf.FuncDef {
	return &ptf.FuncDef{
		Name:     "views",
		Language: "GO",
		Args:     []ptf.ArgDecl{{Name: "r", Traits: ptf.SetSemanticTable}},
		State: []ptf.StateDecl{
			{Name: "l", Kind: ptf.ListState, Type: &listOfString},
			{Name: "m", Kind: ptf.MapState, Type: &mapStringToInt},
		},
		Output: types.TypeString,
		New:    func(ptf.CallSpec) (ptf.PTF, error) { return &viewPTF{eval: eval}, nil },
	}
}

var stores = []struct {
	name string
	open func(t *testing.T) state.Store
}{
	{"mem", statetest.OpenMem},
	{"bolt", statetest.OpenBolt},
}

func rows(kvs ...string) []types.Row {
	var out []types.Row
	for i := 0; i+1 < len(kvs); i += 2 {
		out = append(out, types.Row{Fields: []any{kvs[i], kvs[i+1]}})
	}
	return out
}

func newViewHarness(t *testing.T, st state.Store, eval func(*ptf.Context, types.Row) error) *ptfop.Harness {
	t.Helper()
	h, err := ptfop.NewHarness(viewFunc(eval), viewInput, ptfop.HarnessOptions{PartitionBy: []string{"name"}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// process runs rows and renders what was collected, one line per row.
func process(t *testing.T, h *ptfop.Harness, rs ...types.Row) string {
	t.Helper()
	out, err := h.Process(rs...)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range out {
		b.WriteString(types.FormatValue(r.Fields[0], types.Type{}) + ": " + types.FormatValue(r.Fields[1], types.Type{}) + "\n")
	}
	return b.String()
}

func collectf(ctx *ptf.Context, format string, args ...any) error {
	return ctx.Collect(types.Row{Fields: []any{fmt.Sprintf(format, args...)}})
}

// listString renders a list with Range.
func listString(l ptf.ListView) (string, error) {
	var parts []string
	err := l.Range(func(i int, v any) bool {
		parts = append(parts, fmt.Sprint(v))
		return true
	})
	return "[" + strings.Join(parts, ", ") + "]", err
}

// appendEval shows the list and its size, then adds the row's v.
func appendEval(ctx *ptf.Context, r types.Row) error {
	l := ctx.List(0)
	s, err := listString(l)
	if err != nil {
		return err
	}
	n, err := l.Size()
	if err != nil {
		return err
	}
	if err := collectf(ctx, "%d %s", n, s); err != nil {
		return err
	}
	return l.Add(r.Fields[1])
}

func TestListView_Add_acrossCheckpoints(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			store := st.open(t)
			h := newViewHarness(t, store, appendEval)
			got := process(t, h, rows("Bob", "a", "Alice", "x", "Bob", "b")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "c", "Alice", "y")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			h.Close()
			// A new call site over the same store continues (a restore).
			h2 := newViewHarness(t, store, appendEval)
			got += process(t, h2, rows("Bob", "d", "Alice", "z")...)
			want := `Bob: 0 []
Alice: 0 []
Bob: 1 [a]
Bob: 2 [a, b]
Alice: 1 [x]
Bob: 3 [a, b, c]
Alice: 2 [x, y]
`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListView_Get(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := newViewHarness(t, st.open(t), func(ctx *ptf.Context, r types.Row) error {
				l := ctx.List(0)
				if err := l.Add(r.Fields[1]); err != nil {
					return err
				}
				n, _ := l.Size()
				first, err := l.Get(0)
				if err != nil {
					return err
				}
				last, err := l.Get(n - 1)
				if err != nil {
					return err
				}
				_, errOut := l.Get(n)
				var ie *ptf.IndexError
				if !errors.As(errOut, &ie) {
					return fmt.Errorf("Get(%d) = %v, want an IndexError", n, errOut)
				}
				part, err := l.Slice(1, 2)
				if err != nil {
					return err
				}
				return collectf(ctx, "%v %v %v %v", first, last, part, errOut)
			})
			got := process(t, h, rows("Bob", "a", "Bob", "b")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "c", "Bob", "d")...)
			want := `Bob: a a [] list index 1 out of range (size 1)
Bob: a b [b] list index 2 out of range (size 2)
Bob: a c [b c] list index 3 out of range (size 3)
Bob: a d [b c] list index 4 out of range (size 4)
`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// F-ListStateFunction's rules: ClearState empties the list when the call
// returns (what the call adds after it is discarded too); NULL elements
// are refused and AddAll with one adds nothing.
func TestListView_ClearState(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := newViewHarness(t, st.open(t), func(ctx *ptf.Context, r types.Row) error {
				l := ctx.List(0)
				s, err := listString(l)
				if err != nil {
					return err
				}
				n, _ := l.Size()
				if err := collectf(ctx, "%s", s); err != nil {
					return err
				}
				if err := l.Add(fmt.Sprint(n)); err != nil {
					return err
				}
				if err := l.Add(nil); !errors.Is(err, ptf.ErrNullElement) {
					return fmt.Errorf("Add(nil) = %v", err)
				}
				if err := l.AddAll([]any{"item0", nil}); !errors.Is(err, ptf.ErrNullElement) {
					return fmt.Errorf("AddAll with a NULL = %v", err)
				}
				if n == 2 {
					ctx.ClearState(0)
					return l.Add("after the clear")
				}
				return nil
			})
			got := process(t, h, rows("Bob", "12", "Alice", "42", "Bob", "99")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "100", "Alice", "400", "Bob", "101")...)
			want := `Bob: []
Alice: []
Bob: [0]
Bob: [0, 1]
Alice: [0]
Bob: []
`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListView_Clear(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := newViewHarness(t, st.open(t), func(ctx *ptf.Context, r types.Row) error {
				l := ctx.List(0)
				if r.Fields[1] == "clear" {
					if err := l.Clear(); err != nil {
						return err
					}
					if err := l.AddAll([]any{"p", "q"}); err != nil {
						return err
					}
				} else if err := l.Add(r.Fields[1]); err != nil {
					return err
				}
				s, err := listString(l)
				if err != nil {
					return err
				}
				return collectf(ctx, "%s", s)
			})
			got := process(t, h, rows("Bob", "a", "Bob", "b")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "c", "Bob", "clear", "Bob", "d")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "e")...)
			want := `Bob: [a]
Bob: [a, b]
Bob: [a, b, c]
Bob: [p, q]
Bob: [p, q, d]
Bob: [p, q, d, e]
`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

// mapString renders a map with Range, its size and IsEmpty.
func mapString(m ptf.MapView) (string, error) {
	var parts []string
	err := m.Range(func(k, v any) bool {
		parts = append(parts, fmt.Sprintf("%v=%v", k, types.FormatValue(v, types.Type{})))
		return true
	})
	if err != nil {
		return "", err
	}
	n, err := m.Size()
	if err != nil {
		return "", err
	}
	empty, err := m.IsEmpty()
	return fmt.Sprintf("{%s} size %d empty %v", strings.Join(parts, ", "), n, empty), err
}

// mapEval runs the command in v: "put k n", "putnull k", "del k",
// "clear", "get k", then shows the map.
func mapEval(ctx *ptf.Context, r types.Row) error {
	m := ctx.Map(1)
	cmd := strings.Fields(r.Fields[1].(string))
	var note string
	switch cmd[0] {
	case "put":
		var n int64
		fmt.Sscan(cmd[2], &n)
		if err := m.Put(cmd[1], n); err != nil {
			return err
		}
	case "putall":
		if err := m.PutAll(&types.Map{Keys: []any{cmd[1], cmd[2]}, Values: []any{int64(1), int64(2)}}); err != nil {
			return err
		}
	case "putnull":
		if err := m.Put(cmd[1], nil); err != nil {
			return err
		}
	case "del":
		if err := m.Remove(cmd[1]); err != nil {
			return err
		}
	case "clear":
		if err := m.Clear(); err != nil {
			return err
		}
	case "clearstate":
		ctx.ClearState(1)
	case "get":
		v, ok, err := m.Get(cmd[1])
		if err != nil {
			return err
		}
		has, err := m.Contains(cmd[1])
		if err != nil {
			return err
		}
		note = fmt.Sprintf(" get %s = %v %v %v", cmd[1], v, ok, has)
	}
	s, err := mapString(m)
	if err != nil {
		return err
	}
	return collectf(ctx, "%s%s", s, note)
}

func TestMapView_operations(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := newViewHarness(t, st.open(t), mapEval)
			got := process(t, h, rows("Bob", "put b 2", "Bob", "put d 4", "Alice", "put z 26")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			// The store holds b, d; the overlay gets a, c, e and removes d.
			got += process(t, h, rows("Bob", "put a 1", "Bob", "put e 5", "Bob", "put c 3", "Bob", "del d",
				"Bob", "get d", "Bob", "get b", "Bob", "put b 20", "Bob", "putnull n", "Bob", "get n", "Bob", "get x",
				"Alice", "putall y x")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "get b", "Bob", "clear", "Bob", "put q 1", "Alice", "clearstate", "Alice", "get z")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got += process(t, h, rows("Bob", "get q")...)
			want := `Bob: {b=2} size 1 empty false
Bob: {b=2, d=4} size 2 empty false
Alice: {z=26} size 1 empty false
Bob: {a=1, b=2, d=4} size 3 empty false
Bob: {a=1, b=2, d=4, e=5} size 4 empty false
Bob: {a=1, b=2, c=3, d=4, e=5} size 5 empty false
Bob: {a=1, b=2, c=3, e=5} size 4 empty false
Bob: {a=1, b=2, c=3, e=5} size 4 empty false get d = <nil> false false
Bob: {a=1, b=2, c=3, e=5} size 4 empty false get b = 2 true true
Bob: {a=1, b=20, c=3, e=5} size 4 empty false
Bob: {a=1, b=20, c=3, e=5, n=null} size 5 empty false
Bob: {a=1, b=20, c=3, e=5, n=null} size 5 empty false get n = <nil> true true
Bob: {a=1, b=20, c=3, e=5, n=null} size 5 empty false get x = <nil> false false
Alice: {x=2, y=1, z=26} size 3 empty false
Bob: {a=1, b=20, c=3, e=5, n=null} size 5 empty false get b = 20 true true
Bob: {} size 0 empty true
Bob: {q=1} size 1 empty false
Alice: {x=2, y=1, z=26} size 3 empty false
Alice: {} size 0 empty true get z = <nil> false false
Bob: {q=1} size 1 empty false get q = 1 true true
`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMapView_nullKeys(t *testing.T) {
	h := newViewHarness(t, statetest.OpenMem(t), func(ctx *ptf.Context, r types.Row) error {
		m := ctx.Map(1)
		checks := []error{
			m.Put(nil, int64(42)),
			m.PutAll(&types.Map{Keys: []any{"key", nil}, Values: []any{int64(42), int64(42)}}),
			m.Remove(nil),
		}
		_, _, err := m.Get(nil)
		checks = append(checks, err)
		_, err = m.Contains(nil)
		checks = append(checks, err)
		for i, err := range checks {
			if !errors.Is(err, ptf.ErrNullKey) {
				return fmt.Errorf("check %d: %v, want ErrNullKey", i, err)
			}
		}
		if err := m.Put("wrong type", "x"); err == nil {
			return errors.New("a STRING value in a MAP<STRING, INT> was accepted")
		}
		s, err := mapString(m)
		if err != nil {
			return err
		}
		return collectf(ctx, "%s", s)
	})
	if got, want := process(t, h, rows("Bob", "")...), "Bob: {} size 0 empty true\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A map changed while it is iterated: entries put after the current key
// are visited, entries removed before they are reached are not.
func TestMapView_Range_changing(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			h := newViewHarness(t, st.open(t), func(ctx *ptf.Context, r types.Row) error {
				m := ctx.Map(1)
				if r.Fields[1] == "fill" {
					for _, k := range []string{"b", "d", "f"} {
						if err := m.Put(k, int64(1)); err != nil {
							return err
						}
					}
					return nil
				}
				var seen []string
				err := m.Range(func(k, v any) bool {
					seen = append(seen, k.(string))
					if k == "b" {
						_ = m.Put("c", int64(2))
						_ = m.Put("a", int64(2)) // before the current key: not visited
						_ = m.Remove("d")
					}
					return true
				})
				if err != nil {
					return err
				}
				return collectf(ctx, "%v", seen)
			})
			process(t, h, rows("Bob", "fill")...)
			if err := h.Flush(); err != nil {
				t.Fatal(err)
			}
			got := process(t, h, rows("Bob", "iterate", "Bob", "iterate")...)
			want := "Bob: [b c f]\nBob: [a b c f]\n"
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func TestContext_List_wrongKind(t *testing.T) {
	h := newViewHarness(t, statetest.OpenMem(t), func(ctx *ptf.Context, r types.Row) error {
		_, err1 := ctx.List(1).Size()
		_, _, err2 := ctx.Map(0).Get("x")
		return collectf(ctx, "%v; %v", err1, err2)
	})
	got := process(t, h, rows("Bob", "")...)
	want := "Bob: state entry \"m\" is map state, not list state; state entry \"l\" is list state, not map state\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Through SQL: a statement stopped without end of input leaves the list
// and map state to the next one; SHOW STATE prints it; a finished
// statement's state is forgotten by the next; DROP STATE removes it.
func TestSession_views(t *testing.T) {
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			var out bytes.Buffer
			sess, err := session.NewSession(session.Config{Out: &out, Err: &out, Store: st.open(t), Format: "rows"})
			if err != nil {
				t.Fatal(err)
			}
			sess.Catalog().RegisterBuiltIn(viewFunc(func(ctx *ptf.Context, r types.Row) error {
				if err := appendEval(ctx, r); err != nil {
					return err
				}
				m := ctx.Map(1)
				v, _, err := m.Get(r.Fields[1])
				if err != nil {
					return err
				}
				n, _ := v.(int64)
				return m.Put(r.Fields[1], n+1)
			}))
			exec := func(sql string) {
				t.Helper()
				if err := sess.Exec(context.Background(), "", sql); err != nil {
					t.Fatalf("%s: %v\n%s", sql, err, out.String())
				}
			}
			exec(`CREATE VIEW t AS SELECT * FROM (VALUES ('Bob', 'a'), ('Alice', 'x'), ('Bob', 'b')) AS T(name, v);
SET 'ptfsh.end-of-input' = 'false';
SELECT * FROM views(r => TABLE t PARTITION BY name);
SHOW STATE FOR 'views';
SET 'ptfsh.end-of-input' = 'true';
SELECT * FROM views(r => TABLE t PARTITION BY name);
SHOW STATE FOR 'views' KEY ('Alice');`)
			got := regexp.MustCompile(`\d{4}-\d\d-\d\dT[\d:.]+Z`).ReplaceAllString(out.String(), "<written>")
			want := `+I[Bob, 0 []]
+I[Alice, 0 []]
+I[Bob, 1 [a]]
+---------+-------+-------+--------------------------+
|     key | state | value |               written at |
+---------+-------+-------+--------------------------+
| (Alice) |  l[0] |     x | <written> |
|   (Bob) |  l[0] |     a | <written> |
|   (Bob) |  l[1] |     b | <written> |
| (Alice) |  m[x] |     1 | <written> |
|   (Bob) |  m[a] |     1 | <written> |
|   (Bob) |  m[b] |     1 | <written> |
+---------+-------+-------+--------------------------+
6 rows in set
+I[Bob, 2 [a, b]]
+I[Alice, 1 [x]]
+I[Bob, 3 [a, b, a]]
+---------+-------+-------+--------------------------+
|     key | state | value |               written at |
+---------+-------+-------+--------------------------+
| (Alice) |  l[0] |     x | <written> |
| (Alice) |  l[1] |     x | <written> |
| (Alice) |  m[x] |     2 | <written> |
+---------+-------+-------+--------------------------+
3 rows in set
`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			out.Reset()
			// The last statement finished: the next one starts afresh.
			exec(`SELECT * FROM views(r => TABLE t PARTITION BY name);`)
			if want := "+I[Bob, 0 []]\n+I[Alice, 0 []]\n+I[Bob, 1 [a]]\n"; out.String() != want {
				t.Errorf("after a finished statement:\n%s\nwant\n%s", out.String(), want)
			}
			out.Reset()
			exec(`DROP STATE FOR 'views'; SHOW STATE FOR 'views';`)
			if !strings.Contains(out.String(), "no state stored for uid 'views'") {
				t.Errorf("after DROP STATE:\n%s", out.String())
			}
		})
	}
}

// onTimer sees the list and map of the timer's key.
func TestSession_views_onTimer(t *testing.T) {
	var out bytes.Buffer
	sess, err := session.NewSession(session.Config{Out: &out, Err: &out, Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	def := viewFunc(nil)
	def.Args[0].Traits |= ptf.RequireOnTime
	def.HasOnTimer = true
	def.New = func(ptf.CallSpec) (ptf.PTF, error) {
		return &viewPTF{
			eval: func(ctx *ptf.Context, r types.Row) error {
				if err := ctx.List(0).Add(r.Fields[1]); err != nil {
					return err
				}
				ts, _ := ctx.Time()
				return ctx.RegisterOnTime("flush", ts+10)
			},
			onTimer: func(ctx *ptf.Context) error {
				s, err := listString(ctx.List(0))
				if err != nil {
					return err
				}
				if err := ctx.List(0).Clear(); err != nil {
					return err
				}
				return collectf(ctx, "%s", s)
			},
		}, nil
	}
	sess.Catalog().RegisterBuiltIn(def)
	err = sess.Exec(context.Background(), "", `CREATE TABLE t (name STRING, v STRING, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)
AS VALUES ('Bob', 'a', 0), ('Alice', 'x', 1), ('Bob', 'b', 5), ('Bob', 'c', 20), ('Alice', 'y', 30);
SELECT * FROM views(r => TABLE t PARTITION BY name, on_time => DESCRIPTOR(ts));`)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// Bob's named timer moves from 10 to 15 to 30 before a watermark passes it.
	want := `+I[Alice, [x], 1970-01-01T00:00:00.011Z]
+I[Bob, [a, b, c], 1970-01-01T00:00:00.030Z]
+I[Alice, [y], 1970-01-01T00:00:00.040Z]
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
