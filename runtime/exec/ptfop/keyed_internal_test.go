package ptfop

import (
	"fmt"
	"testing"
)

// TestKeyFilter: a key added is always found (a miss would skip a store
// read and lose its state); other keys rarely are.
func TestKeyFilter(t *testing.T) {
	f := newKeyFilter()
	if (*keyFilter)(nil).has([]byte("x")) {
		t.Fatal("an empty filter has a key")
	}
	const n = 200_000
	for i := range n {
		f.add([]byte(fmt.Sprintf("user%d", i)))
	}
	for i := range n {
		if !f.has([]byte(fmt.Sprintf("user%d", i))) {
			t.Fatalf("user%d was added but is not found", i)
		}
	}
	hits := 0
	for i := range n {
		if f.has([]byte(fmt.Sprintf("other%d", i))) {
			hits++
		}
	}
	if rate := float64(hits) / n; rate > 0.01 {
		t.Errorf("%.2f %% of keys never added are found (want under 1 %%)", 100*rate)
	}
}
