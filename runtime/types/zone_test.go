package types

import (
	"errors"
	"testing"
	"time"
)

// The instants are those of a Flink 2.3.0 MiniCluster run (CAST of a
// TIMESTAMP to TIMESTAMP_LTZ(3) under SET 'table.local-time-zone').
func TestLocalToInstant(t *testing.T) {
	for _, c := range []struct {
		zone, local, want string
	}{
		{"Asia/Shanghai", "1970-01-01T08:00:00Z", "1970-01-01T00:00:00Z"},
		{"America/Los_Angeles", "2024-03-10T02:30:00Z", "2024-03-10T10:30:00Z"}, // a gap: on by an hour
		{"America/Los_Angeles", "2024-11-03T01:30:00Z", "2024-11-03T08:30:00Z"}, // an overlap: the earlier offset
		{"GMT+08:00", "1970-01-01T08:00:00Z", "1970-01-01T00:00:00Z"},
		{"UTC", "2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"},
	} {
		loc, err := LoadZone(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := time.Parse(time.RFC3339, c.local)
		got := LocalToInstant(LocalDateTime{Millis: l.UnixMilli()}, loc)
		if s := time.UnixMilli(got.Millis).UTC().Format(time.RFC3339); s != c.want {
			t.Errorf("%s in %s: %s, want %s", c.local, c.zone, s, c.want)
		}
		if back := InstantToLocal(got, loc); c.zone != "America/Los_Angeles" && back.Millis != l.UnixMilli() {
			t.Errorf("%s in %s: back to %d", c.local, c.zone, back.Millis)
		}
	}
}

// Both refused by Flink 2.3.0 with its message (MiniCluster).
func TestLoadZone_refused(t *testing.T) {
	for _, z := range []string{"+08:00", "Nowhere/City"} {
		if _, err := LoadZone(z); !errors.Is(err, ErrZone) {
			t.Errorf("%q: %v, want Flink's message", z, err)
		}
	}
}
