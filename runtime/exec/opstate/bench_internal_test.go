package opstate

import (
	"fmt"
	"testing"
)

// BenchmarkNextMerged is the merge of eight generations of 60k keys each
// out of 100k (a compaction of a PTF's value state after eight
// checkpoints), read from memory: the merge's own work, not the store's.
func BenchmarkNextMerged(b *testing.B) {
	const gens, of = 8, 100_000
	src := make([][][]byte, gens)
	for g := range src {
		for k := range of {
			if (k+g)%5 < 3 { // three keys in five: 60k
				src[g] = append(src[g], fmt.Appendf(nil, "\x02user%06d", k))
			}
		}
	}
	val := []byte{markValue, 1, 2, 3, 4, 5, 6, 7, 8}
	cursors := make([]*cursor, gens)
	b.ReportAllocs()
	for b.Loop() {
		for g := range cursors {
			c := &cursor{done: true, keys: src[g], vals: make([][]byte, len(src[g]))}
			for i := range c.vals {
				c.vals[i] = val
			}
			cursors[g] = c
		}
		for {
			_, _, _, ok, err := nextMerged(cursors)
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
		}
	}
}
