package format

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestInterner_get: the cache in front of the map gives back the string
// of the bytes asked for, shared while the column repeats.
func TestInterner_get(t *testing.T) {
	var in interner
	r := rand.New(rand.NewPCG(3, 4))
	values := []string{"", "A", "AB", "ABC", "ABCDEFGH", "ABCDEFGHI", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345", "x\x00y"}
	for i := range 3000 {
		values = append(values, fmt.Sprintf("K%d", i))
	}
	first := map[string]string{}
	for range 100_000 {
		v := values[r.IntN(len(values))]
		got := in.get([]byte(v))
		if got != v {
			t.Fatalf("get(%q) = %q", v, got)
		}
		if f, ok := first[v]; ok && len(v) > 0 && unsafe.StringData(f) != unsafe.StringData(got.(string)) {
			t.Fatalf("get(%q) gave another copy", v)
		}
		first[v] = got.(string)
	}
}

// TestBoxInt: integers come back as themselves, shared or not.
func TestBoxInt(t *testing.T) {
	for _, n := range []int64{smallIntMin - 1, smallIntMin, -1, 0, 255, 256, smallIntMax - 1, smallIntMax, 1 << 40} {
		if got := boxInt(n); got != any(n) {
			t.Errorf("boxInt(%d) = %v", n, got)
		}
	}
}

// BenchmarkInterner looks up airport codes, 300 of them, as the flights
// workload's columns do.
func BenchmarkInterner(b *testing.B) {
	codes := make([][]byte, 300)
	for i := range codes {
		codes[i] = []byte(fmt.Sprintf("A%c%c", 'A'+i/26%26, 'A'+i%26))
	}
	var in interner
	i := 0
	for b.Loop() {
		in.get(codes[i])
		i = (i + 7) % len(codes)
	}
}
