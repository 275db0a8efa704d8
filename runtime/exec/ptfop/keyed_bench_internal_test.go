package ptfop

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// counterCodec is a state codec without JavaScript: a count per key.
type counterCodec struct{}

func (counterCodec) NewState(int) (any, error) { return new(int64), nil }
func (counterCodec) AppendState(b []byte, _ int, v any) ([]byte, error) {
	return binary.AppendVarint(b, *v.(*int64)), nil
}
func (counterCodec) DecodeState(_ int, b []byte) (any, error) {
	n, w := binary.Varint(b)
	if w <= 0 {
		return nil, fmt.Errorf("bad count")
	}
	return &n, nil
}

// BenchmarkKeyedState is the per-row work of keyed value state: the row's
// key to its live state (from the warm tier when evicted), and a count
// kept there, over keys drawn as the benchmark's clicks are (Zipf).
func BenchmarkKeyedState(b *testing.B) {
	for _, keys := range []int{1_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			ex := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
			node := &Node{Def: &ptf.FuncDef{State: []ptf.StateDecl{{Name: "count"}}}, Fn: "bench", UID: "bench"}
			s := newKeyedState(node, ex)
			s.codec = counterCodec{}
			rows := zipfRows(1<<16, keys)
			var cur *keyState
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cur = s.count(rows[i&(len(rows)-1)], cur)
				if s.evictErr != nil {
					b.Fatal(s.evictErr)
				}
			}
		})
	}
}

// zipfRows makes n rows of one column, user0 .. user<keys-1> drawn by zipf.
func zipfRows(n, keys int) []types.Row {
	rows := make([]types.Row, n)
	z := newZipf(keys)
	for i := range rows {
		rows[i] = types.Row{Fields: []any{fmt.Sprintf("user%d", z.next())}}
	}
	return rows
}

// count is the benchmarks' function: it adds one to the count of row r's
// key (its first column) and returns the key's state, the next cur.
func (s *keyedState) count(r types.Row, cur *keyState) *keyState {
	cur = s.lookupRow(r, benchKeyCols, cur)
	e := &cur.ents[0]
	if !e.loaded || e.val == nil {
		e.val, e.loaded = new(int64), true
	}
	*e.val.(*int64)++
	cur.dirty = true
	return cur
}

var benchKeyCols = []int{0}

// zipf draws 0..n-1 with P(k) ∝ 1/(k+1), as bench/gen's users.
type zipf struct {
	cdf []float64
	x   uint64
}

func newZipf(n int) *zipf {
	z := &zipf{cdf: make([]float64, n), x: 1}
	sum := 0.0
	for k := range n {
		sum += 1 / float64(k+1)
		z.cdf[k] = sum
	}
	for k := range z.cdf {
		z.cdf[k] /= sum
	}
	return z
}

func (z *zipf) next() int {
	z.x ^= z.x << 13
	z.x ^= z.x >> 7
	z.x ^= z.x << 17
	u := float64(z.x>>11) / (1 << 53)
	lo, hi := 0, len(z.cdf)-1
	for lo < hi {
		m := (lo + hi) / 2
		if z.cdf[m] < u {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// BenchmarkPeriodicFlush is a periodic checkpoint's work on the
// statement's goroutine: 100k rows over 100k Zipf keys (a live cache of
// 20k, the rest warm), then the flush of what changed into a bbolt
// transaction that is not committed (the commit runs in the background).
// Only the flush is timed.
func BenchmarkPeriodicFlush(b *testing.B) {
	store, err := state.OpenBolt(b.TempDir()+"/s.db", state.BoltOptions{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ex := exec.NewExecution(context.Background(), store, exec.DefaultOptions())
	ex.Opts.CacheSize = 20_000
	node := &Node{Def: &ptf.FuncDef{State: []ptf.StateDecl{{Name: "count"}}}, Fn: "bench", UID: "bench"}
	s := newKeyedState(node, ex)
	s.codec = counterCodec{}
	if _, err := s.openValues(); err != nil {
		b.Fatal(err)
	}
	rows := zipfRows(100_000, 100_000)
	var cur *keyState
	errRollback := fmt.Errorf("rolled back")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for _, r := range rows {
			cur = s.count(r, cur)
		}
		if s.evictErr != nil {
			b.Fatal(s.evictErr)
		}
		b.StartTimer()
		err := store.Update(func(tx state.Tx) error {
			if err := s.flushValues(tx, false); err != nil {
				return err
			}
			return errRollback // time the flush, not bbolt's commit
		})
		if err != errRollback {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpoints is the checkpoints of B over a run: 100k rows
// over 100k Zipf keys (a live cache of 20k, the rest warm) between
// checkpoints, twenty of them, each a flush of what changed committed in
// the background as the checkpointer commits it, and the merges of the
// generations between them (as the operator's steps run them).
// ckpt-ns/op is the time they take on the statement's goroutine: the
// flushes until they hand on their commits, waiting for the commit
// before, and the merges.
func BenchmarkCheckpoints(b *testing.B) {
	store, err := state.OpenBolt(b.TempDir()+"/s.db", state.BoltOptions{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rows := zipfRows(100_000, 100_000)
	var spent time.Duration
	b.ReportAllocs()
	for b.Loop() {
		ex := exec.NewExecution(context.Background(), store, exec.DefaultOptions())
		ex.Opts.CacheSize = 20_000
		ex.Checkpoints = everyRows{}
		node := &Node{Def: &ptf.FuncDef{State: []ptf.StateDecl{{Name: "count"}}}, Fn: "bench", UID: fmt.Sprintf("bench%d", b.N)}
		s := newKeyedState(node, ex)
		s.codec = counterCodec{}
		if _, err := s.openValues(); err != nil {
			b.Fatal(err)
		}
		var cur *keyState
		commit := committedAlready
		for range 20 {
			for i, r := range rows {
				cur = s.count(r, cur)
				if i%1000 == 0 {
					start := time.Now()
					if err := s.compactValues(); err != nil {
						b.Fatal(err)
					}
					spent += time.Since(start)
				}
			}
			if s.evictErr != nil {
				b.Fatal(s.evictErr)
			}
			start := time.Now()
			if err := commit.Wait(); err != nil {
				b.Fatal(err)
			}
			commit, err = state.UpdateAsync(store, func(tx state.Tx) error { return s.flushValues(tx, false) })
			if err != nil {
				b.Fatal(err)
			}
			spent += time.Since(start)
		}
		if err := commit.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N), "ckpt-ns/op")
}

// committedAlready is a commit over, for the first wait.
var committedAlready = func() *state.Commit {
	c, end := state.NewCommit()
	end(nil)
	return c
}()
