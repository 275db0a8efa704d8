package sqlop

import (
	"context"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// cached is what an operator's tables hold in their caches, table by
// table.
func cached(t *testing.T, s exec.Stream) []int {
	switch s := s.(type) {
	case *joinStream:
		return []int{s.sides[0].Cached(), s.sides[1].Cached()}
	case *semiJoinStream:
		return []int{s.sides[0].Cached(), s.sides[1].Cached()}
	case *intervalStream:
		return []int{s.keys.Cached(), s.expiry.t.Cached()}
	case *overStream:
		return []int{s.parts.Cached(), s.waiting.Cached(), s.timers.t.Cached()}
	case *rankStream:
		return []int{s.parts.Cached()}
	case *dedupLastStream:
		return []int{s.last.Cached()}
	}
	t.Fatalf("no tables known for %T", s)
	return nil
}

// TestCacheBoundsMemory runs operators over many more keys than their
// cache holds: no table's cache ever holds more than its size, and the
// output is the same as with a cache that holds everything.
func TestCacheBoundsMemory(t *testing.T) {
	const size = 64
	rows := func(name string, seed uint64) *resumeNode {
		return &resumeNode{name: name, sch: kvt, mode: types.InsertOnly, events: resumeEvents(seed, 6000, 3000, false)}
	}
	for _, c := range []struct {
		name  string
		build func() exec.Node
	}{
		{"join", func() exec.Node {
			return &JoinNode{Left: rows("l", 1), Right: rows("r", 2), Kind: FullJoin, LeftKeys: key0, RightKeys: key0, Sch: kvtJoinSchema()}
		}},
		{"anti join", func() exec.Node {
			return &SemiJoinNode{Left: rows("l", 8), Right: rows("r", 9), Anti: true, LeftKeys: key0, RightKeys: key0}
		}},
		{"interval join", func() exec.Node {
			return &IntervalJoinNode{Left: rows("l", 3), Right: rows("r", 4), Kind: LeftJoin, LeftKeys: key0, RightKeys: key0, LeftTime: 2, RightTime: 2,
				Lower: -400, Upper: 200, Sch: kvtJoinSchema()}
		}},
		{"over", func() exec.Node {
			return &OverNode{In: rows("in", 5), Partition: key0, Time: 2, Frame: OverFrame{Rows: true, Preceding: 2},
				Calls: []*OverCall{{Fn: "SUM", Agg: sumV, Typ: bigT}}, Sch: kvtPlus("s")}
		}},
		{"rank", func() exec.Node {
			return &RankNode{In: rows("in", 6), Partition: key0, Keys: vDesc, Start: 1, End: 2, Number: true, Sch: kvtPlus("rn")}
		}},
		{"dedup", func() exec.Node {
			return &DedupLastNode{In: rows("in", 7), Partition: key0, Time: 2, Sch: kvtPlus("rn")}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := func(cache int, check bool) []string {
				opts := exec.DefaultOptions()
				opts.CacheSize = cache
				ex := exec.NewExecution(context.Background(), state.NewMem(), opts)
				st, err := c.build().Open(ex)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				var out []string
				most := 0
				for {
					ev, err := st.Next()
					if err != nil {
						t.Fatal(err)
					}
					if ev.Kind == exec.EvEnd {
						break
					}
					out = append(out, eventText(ev))
					for _, n := range cached(t, st) {
						most = max(most, n)
						if check && n > cache {
							t.Fatalf("a cache of %d holds %d entries", cache, n)
						}
					}
				}
				if check && most < cache/2 {
					t.Fatalf("the caches held at most %d entries: the test does not fill a cache of %d", most, cache)
				}
				return out
			}
			want := run(1<<20, false)
			got := run(size, true)
			if len(got) != len(want) {
				t.Fatalf("with a cache of %d: %d events, want %d", size, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("with a cache of %d, event %d is %s, want %s", size, i, got[i], want[i])
				}
			}
		})
	}
}
