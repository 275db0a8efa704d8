package opstate

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNextMerged: merging cursors (newest first) gives every key once, in
// order, with the newest cursor's value or deletion, with a few cursors
// and with more than 64 (past which heads are compared again).
func TestNextMerged(t *testing.T) {
	for _, n := range []int{1, 3, 64, 65, 70} {
		t.Run(fmt.Sprintf("cursors=%d", n), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			type want struct {
				val     string
				deleted bool
			}
			model := map[string]want{}
			cursors := make([]*cursor, n)
			for i := range cursors {
				c := &cursor{done: true}
				var keys []string
				for k := range 200 {
					if rng.IntN(4) == 0 {
						keys = append(keys, fmt.Sprintf("k%04d", k))
					}
				}
				for _, k := range keys {
					deleted := rng.IntN(5) == 0
					v := []byte{markDeleted}
					if !deleted {
						v = append([]byte{markValue}, fmt.Sprintf("c%d-%s", i, k)...)
					}
					c.keys, c.vals = append(c.keys, []byte(k)), append(c.vals, v)
					if _, ok := model[k]; !ok { // an older cursor's is hidden
						w := want{deleted: deleted}
						if !deleted {
							w.val = string(v[1:])
						}
						model[k] = w
					}
				}
				cursors[i] = c
			}
			var got []string
			for {
				key, val, deleted, ok, err := nextMerged(cursors)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				k := string(key)
				got = append(got, k)
				w := model[k]
				if deleted != w.deleted || !deleted && string(val) != w.val {
					t.Fatalf("key %s: %q deleted=%v, want %q deleted=%v", k, val, deleted, w.val, w.deleted)
				}
			}
			keys := make([]string, 0, len(model))
			for k := range model {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(got, keys) {
				t.Fatalf("merged keys %v, want %v", got, keys)
			}
		})
	}
}
