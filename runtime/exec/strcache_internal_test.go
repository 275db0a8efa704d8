package exec

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

// TestStrCache_Get: a string is found by its bytes' address, not its
// text; a set keeps the two strings put last; Reset empties the cache.
func TestStrCache_Get(t *testing.T) {
	var c StrCache
	get := func(s string) int { // 0: none
		if p := c.Get(s); p != nil {
			return *(*int)(p)
		}
		return 0
	}
	put := func(s string, v int) { c.Put(s, unsafe.Pointer(&v)) }
	if got := get("a"); got != 0 {
		t.Fatalf("empty cache: Get = %d, want 0", got)
	}
	// Strings whose addresses fall in the same set, found by trying.
	var probe StrCache
	probe.Put("", nil)
	bySet := map[*[2]strCacheEnt][]string{}
	var same []string
	for i := 0; len(same) < 3; i++ {
		s := strings.Clone(fmt.Sprintf("key%d", i))
		set := probe.set(s)
		bySet[set] = append(bySet[set], s)
		if len(bySet[set]) == 3 {
			same = bySet[set]
		}
	}
	a, b, d := same[0], same[1], same[2]

	put(a, 1)
	put(b, 2)
	if got := get(a); got != 1 {
		t.Errorf("Get(a) = %d, want 1", got)
	}
	if got := get(b); got != 2 {
		t.Errorf("Get(b) = %d, want 2", got)
	}
	if got := get(strings.Clone(a)); got != 0 {
		t.Errorf("Get(a copy of a) = %d, want 0: the same text at another address is another string", got)
	}
	put(a, 3) // a's own entry, not the older one
	if got, got2 := get(a), get(b); got != 3 || got2 != 2 {
		t.Errorf("after Put(a, 3): Get(a), Get(b) = %d, %d, want 3, 2", got, got2)
	}
	put(d, 4) // evicts the older: b
	if got, got2, got3 := get(a), get(b), get(d); got != 3 || got2 != 0 || got3 != 4 {
		t.Errorf("after Put(d, 4): Get(a), Get(b), Get(d) = %d, %d, %d, want 3, 0, 4", got, got2, got3)
	}
	put(b, 5) // evicts the older: a
	if got, got2, got3 := get(a), get(b), get(d); got != 0 || got2 != 5 || got3 != 4 {
		t.Errorf("after Put(b, 5): Get(a), Get(b), Get(d) = %d, %d, %d, want 0, 5, 4", got, got2, got3)
	}
	c.Reset()
	if got := get(b); got != 0 {
		t.Errorf("after Reset: Get(b) = %d, want 0", got)
	}
}
