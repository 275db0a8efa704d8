package format

import (
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestInt96Timestamp checks the legacy INT96 layout: nanoseconds of the
// day in the low 8 bytes, the Julian day in the high 4.
func TestInt96Timestamp(t *testing.T) {
	nanos := uint64(12*3600+34*60+56)*1e9 + 123456789                          // 12:34:56.123456789
	got := int96Timestamp(uint32(nanos), uint32(nanos>>32), 2451545, 6, false) // 2000-01-01
	want := types.LocalDateTime{Millis: 946730096123, NanoOfMilli: 456000}
	if got != want {
		t.Errorf("got %#v, want %#v", got, want)
	}
	got = int96Timestamp(0, 0, 2440587, 3, true) // 1969-12-31
	if want := (types.Instant{Millis: -86400000}); got != want {
		t.Errorf("got %#v, want %#v", got, want)
	}
}
