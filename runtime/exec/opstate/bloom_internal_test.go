package opstate

import (
	"fmt"
	"testing"
)

// TestBloom: a key added is always found (a miss would skip the
// generation that holds it); of the keys never added, about 1 % are, as
// the sets double.
func TestBloom(t *testing.T) {
	var f bloom
	if f.has([]byte("x")) {
		t.Fatal("an empty filter has a key")
	}
	const n = 100_000 // five sets: 4k, 8k, ... 64k
	for i := range n {
		f.add(fmt.Appendf(nil, "\\x02user%d", i))
	}
	for i := range n {
		if !f.has(fmt.Appendf(nil, "\\x02user%d", i)) {
			t.Fatalf("user%d was added but is not found", i)
		}
	}
	hits := 0
	for i := range n {
		if f.has(fmt.Appendf(nil, "\\x02other%d", i)) {
			hits++
		}
	}
	// Each set answers for about 1 %: five of them, at most 5 %.
	if rate := float64(hits) / n; rate > 0.04 {
		t.Errorf("%.2f %% of keys never added are found (want under 4 %%)", 100*rate)
	}
	t.Logf("%d sets, %.2f %% false hits", len(f.sets), 100*float64(hits)/n)
}
