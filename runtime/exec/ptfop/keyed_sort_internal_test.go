package ptfop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDirtySorter_sort: the changed keys of a checkpoint come out in key
// order, each once with its own record, whatever their lengths and
// common prefixes, and again with the buffers kept.
func TestDirtySorter_sort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var ds dirtySorter
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		for _, prefix := range []string{"", "user", "\x00\x01\x02\x03\x04\x05\x06\x07\x08"} {
			seen := map[string]bool{}
			var want []string
			for len(want) < n {
				// Numbers of 1 to 5 digits: some keys are prefixes of
				// others, and many share their first 8 bytes.
				k := prefix + fmt.Sprint(r.IntN(100000))
				if seen[k] {
					continue
				}
				seen[k] = true
				want = append(want, k)
				ds.keys = append(ds.keys, dirtyKey{k: k, rec: []byte(k)})
			}
			got := ds.sort()
			slices.Sort(want)
			if len(got) != len(want) {
				t.Fatalf("n=%d prefix %q: %d keys out, want %d", n, prefix, len(got), len(want))
			}
			for i, d := range got {
				if d.k != want[i] || string(d.rec) != d.k {
					t.Fatalf("n=%d prefix %q: key %d is %q (record %q), want %q", n, prefix, i, d.k, d.rec, want[i])
				}
			}
			ds.release()
		}
	}
}
