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

// BenchmarkBloom is the filter of a generation of 60k keys: adding them
// (a checkpoint's run), then asking for as many others (reads that miss).
func BenchmarkBloom(b *testing.B) {
	keys := make([][]byte, 60_000)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "\x02user%06d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		var f bloom
		for _, k := range keys {
			f.add(k)
		}
		for _, k := range keys {
			k[1] = 'U'
			f.has(k)
			k[1] = 'u'
		}
	}
}
