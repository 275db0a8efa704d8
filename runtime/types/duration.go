package types

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// durationRE is Flink's TimeUtils.parseDuration syntax: a number and an
// optional unit (milliseconds without one).
var durationRE = regexp.MustCompile(`^\s*(\d+)\s*([a-zµ]*)\s*$`)

var durationUnits = map[string]time.Duration{}

func init() { // fills durationUnits
	for unit, names := range map[time.Duration][]string{
		24 * time.Hour:   {"d", "day", "days"},
		time.Hour:        {"h", "hour", "hours"},
		time.Minute:      {"min", "m", "minute", "minutes", "mins"},
		time.Second:      {"s", "sec", "secs", "second", "seconds"},
		time.Millisecond: {"ms", "milli", "millis", "millisecond", "milliseconds"},
		time.Microsecond: {"µs", "micro", "micros", "microsecond", "microseconds"},
		time.Nanosecond:  {"ns", "nano", "nanos", "nanosecond", "nanoseconds"},
	} {
		for _, n := range names {
			durationUnits[n] = unit
		}
	}
}

// ParseDuration parses Flink's duration syntax (TimeUtils.parseDuration):
// a whole number and an optional unit, "1 hour", "5 days", "10 s", "500ms";
// without a unit, milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	m := durationRE.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return 0, fmt.Errorf("invalid duration %q: want a number and a unit, such as \"1 hour\", \"5 days\", \"10 s\", \"500 ms\"", s)
	}
	unit := time.Millisecond
	if m[2] != "" {
		u, ok := durationUnits[m[2]]
		if !ok {
			return 0, fmt.Errorf("invalid duration %q: unknown unit %q (use d, h, min, s, ms, µs or ns, or their long names)", s, m[2])
		}
		unit = u
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n > math.MaxInt64/int64(unit) {
		return 0, fmt.Errorf("invalid duration %q: too large", s)
	}
	return time.Duration(n) * unit, nil
}

// SingularUnit upper-cases an interval unit and accepts the plural forms
// Flink accepts too (SECONDS, MINUTES, HOURS, DAYS, MONTHS, YEARS).
func SingularUnit(u string) string {
	u = strings.ToUpper(u)
	switch u {
	case "SECONDS", "MINUTES", "HOURS", "DAYS", "MONTHS", "YEARS":
		return strings.TrimSuffix(u, "S")
	}
	return u
}
