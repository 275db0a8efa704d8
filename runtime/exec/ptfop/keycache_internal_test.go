package ptfop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// TestStrKeyCache counts per key through lookupRow, with the keys' strings
// shared between rows as a dictionary reader shares them, made anew per
// row, and a live cache small enough that keys are evicted and come back:
// every count must be what a plain map counts, and shared strings must
// hit the cache.
func TestStrKeyCache(t *testing.T) {
	dict := make([]string, 40)
	for i := range dict {
		dict[i] = fmt.Sprintf("k%d", i)
	}
	for _, tc := range []struct {
		name      string
		shared    bool
		cacheSize int
		wantHits  int // 1: some, 0: none, -1: either
	}{
		{"shared strings", true, 0, 1},
		{"shared strings, evicting", true, 8, -1},
		{"strings per row", false, 0, 0},
		{"strings per row, evicting", false, 8, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
			ex.Opts.CacheSize = tc.cacheSize
			node := &Node{Def: &ptf.FuncDef{State: []ptf.StateDecl{{Name: "count"}}}, Fn: "test", UID: "test"}
			s := newKeyedState(node, ex)
			s.codec = counterCodec{}
			want := map[string]int64{}
			var cur *keyState
			for i := range 20_000 {
				k := dict[(i*7+i/3)%len(dict)]
				if !tc.shared {
					k = strings.Clone(k)
				}
				want[k]++
				cur = s.count(types.Row{Fields: []any{k}}, cur)
				if s.evictErr != nil {
					t.Fatal(s.evictErr)
				}
				if got := *cur.ents[0].val.(*int64); got != want[k] {
					t.Fatalf("row %d: key %s counted %d, want %d", i, k, got, want[k])
				}
			}
			if hits := min(s.keyCache.hits, 1); tc.wantHits >= 0 && hits != tc.wantHits {
				t.Errorf("cache hits %d, misses %d, off %v: want hits %d", s.keyCache.hits, s.keyCache.misses, s.keyCache.off, tc.wantHits)
			}
			if !tc.shared && !s.keyCache.off {
				t.Errorf("the cache stayed on over strings made per row")
			}
		})
	}
}
