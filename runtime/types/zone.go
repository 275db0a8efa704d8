package types

import (
	"errors"
	"strings"
	"time"
)

// The session time zone ('table.local-time-zone'): a TIMESTAMP_LTZ value
// is an instant; it reads and prints as the wall-clock time of that zone,
// and a TIMESTAMP becomes an instant by being read in it, as in Flink.

// ErrZone is Flink's message for a 'table.local-time-zone' it refuses.
var ErrZone = errors.New("Invalid time zone. The value should be a Time Zone Database (TZDB) ID such as 'America/Los_Angeles' to include daylight saving time. Fixed offsets are supported using 'GMT-03:00' or 'GMT+03:00'. Or use 'UTC' without time zone and daylight saving time.")

// LoadZone reads a 'table.local-time-zone' value as Flink's
// TableConfigUtils.validateTimeZone does: a zone ID of the time zone
// database, UTC, or a fixed offset written GMT+hh:mm or GMT-hh:mm.
func LoadZone(s string) (*time.Location, error) {
	if s == "UTC" {
		return time.UTC, nil
	}
	if rest, ok := strings.CutPrefix(s, "GMT"); ok {
		if len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' {
			h, m := int(rest[1]-'0')*10+int(rest[2]-'0'), int(rest[4]-'0')*10+int(rest[5]-'0')
			if isDigits(rest[1:3]) && isDigits(rest[4:6]) && h <= 18 && m < 60 {
				off := h*3600 + m*60
				if rest[0] == '-' {
					off = -off
				}
				return time.FixedZone(s, off), nil
			}
		}
		return nil, ErrZone
	}
	if !strings.Contains(s, "/") {
		return nil, ErrZone
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, ErrZone
	}
	return loc, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// IsUTC reports whether loc is nil or has no offset ever.
func IsUTC(loc *time.Location) bool { return loc == nil || loc == time.UTC }

// offsetAt is loc's offset from UTC in milliseconds at epoch millisecond ms.
func offsetAt(loc *time.Location, ms int64) int64 {
	_, off := time.UnixMilli(ms).In(loc).Zone()
	return int64(off) * 1000
}

// InstantToLocal is the wall-clock time of instant i in loc.
func InstantToLocal(i Instant, loc *time.Location) LocalDateTime {
	if IsUTC(loc) {
		return LocalDateTime(i)
	}
	return LocalDateTime{Millis: i.Millis + offsetAt(loc, i.Millis), NanoOfMilli: i.NanoOfMilli}
}

// LocalToInstant is the instant at which loc's clocks show l, as Java's
// LocalDateTime.atZone: in a gap (clocks jump forward) the time moves on
// by the gap; in an overlap (clocks go back) the earlier offset wins.
func LocalToInstant(l LocalDateTime, loc *time.Location) Instant {
	if IsUTC(loc) {
		return Instant(l)
	}
	const day = 86400000
	before, after := offsetAt(loc, l.Millis-day), offsetAt(loc, l.Millis+day)
	switch {
	case offsetAt(loc, l.Millis-before) == before:
		return Instant{Millis: l.Millis - before, NanoOfMilli: l.NanoOfMilli}
	case offsetAt(loc, l.Millis-after) == after:
		return Instant{Millis: l.Millis - after, NanoOfMilli: l.NanoOfMilli}
	}
	return Instant{Millis: l.Millis - before, NanoOfMilli: l.NanoOfMilli}
}
