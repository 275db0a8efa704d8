package kafka

import "testing"

// TestMurmur2: Kafka's own cases (UtilsTest.testMurmur2).
func TestMurmur2(t *testing.T) {
	for key, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		if got := int32(murmur2([]byte(key))); got != want {
			t.Errorf("murmur2(%q) = %d, want %d", key, got, want)
		}
	}
}
