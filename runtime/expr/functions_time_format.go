package expr

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Date-time text: DATE_FORMAT and FROM_UNIXTIME write it by a
// SimpleDateFormat pattern, TO_TIMESTAMP and TO_DATE read it.

// javaFormat formats a time by a java.text.SimpleDateFormat pattern: the
// letters y M d H h m s S E a D and quoted text; other letters are kept.
func javaFormat(g time.Time, pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		ch := pattern[i]
		if ch == '\'' {
			lit, next, _ := textparse.QuotedText(pattern, i) // unclosed: the rest is text
			b.WriteString(lit)
			i = next
			continue
		}
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z') {
			b.WriteByte(ch)
			i++
			continue
		}
		n := 1
		for i+n < len(pattern) && pattern[i+n] == ch {
			n++
		}
		i += n
		num := func(v int) {
			s := strconv.Itoa(v)
			for k := len(s); k < n; k++ {
				b.WriteByte('0')
			}
			b.WriteString(s)
		}
		switch ch {
		case 'y':
			if n == 2 {
				num(g.Year() % 100)
			} else {
				num(g.Year())
			}
		case 'M':
			switch {
			case n >= 4:
				b.WriteString(g.Month().String())
			case n == 3:
				b.WriteString(g.Month().String()[:3])
			default:
				num(int(g.Month()))
			}
		case 'd':
			num(g.Day())
		case 'D':
			num(g.YearDay())
		case 'H':
			num(g.Hour())
		case 'h':
			num((g.Hour()+11)%12 + 1)
		case 'm':
			num(g.Minute())
		case 's':
			num(g.Second())
		case 'S':
			ms := g.Nanosecond() / 1e6
			s := strconv.Itoa(ms)
			for k := len(s); k < n; k++ {
				b.WriteByte('0')
			}
			b.WriteString(s)
		case 'E':
			if n >= 4 {
				b.WriteString(g.Weekday().String())
			} else {
				b.WriteString(g.Weekday().String()[:3])
			}
		case 'a':
			if g.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		default:
			b.WriteString(strings.Repeat(string(ch), n))
		}
	}
	return b.String()
}

// lenientTimestamp is yyyy-M-d[ H:m[:s[.fraction]]], digits 1 or 2 wide.
var lenientTimestamp = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?)?$`)

// parseTimestampText reads yyyy-MM-dd[ HH:mm:ss[.fff]] (or a pattern) as
// a TIMESTAMP; ok is false when it does not parse.
func parseTimestampText(s, pattern string) (types.LocalDateTime, bool) {
	if pattern == "" || pattern == "yyyy-MM-dd HH:mm:ss" || pattern == "yyyy-MM-dd" {
		// Flink's default parse is lenient: 2024-3-5 1:2:3 is read too.
		if m := lenientTimestamp.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
			y, _ := strconv.Atoi(m[1])
			mo, _ := strconv.Atoi(m[2])
			d, _ := strconv.Atoi(m[3])
			h, _ := strconv.Atoi(m[4])
			mi, _ := strconv.Atoi(m[5])
			sec, _ := strconv.Atoi(m[6])
			frac := (m[7] + "000000000")[:9]
			nano, _ := strconv.Atoi(frac)
			g := time.Date(y, time.Month(mo), d, h, mi, sec, nano, time.UTC)
			if g.Year() != y || int(g.Month()) != mo || g.Day() != d || h > 23 || mi > 59 || sec > 59 {
				return types.LocalDateTime{}, false // 2024-02-30 is not a date
			}
			ms := g.UnixMilli()
			return types.LocalDateTime{Millis: ms, NanoOfMilli: int32(nano % 1e6)}, true
		}
	}
	if pattern == "" {
		v, err := textparse.Value(strings.TrimSpace(s), types.Type{Kind: types.KindTimestamp, Length: 9}, textparse.Options{})
		if err != nil {
			d, err := textparse.Value(strings.TrimSpace(s), types.Type{Kind: types.KindDate}, textparse.Options{})
			if err != nil {
				return types.LocalDateTime{}, false
			}
			return types.LocalDateTime{Millis: int64(d.(types.Date)) * millisPerDay}, true
		}
		return v.(types.LocalDateTime), true
	}
	ms, nano, ok, err := textparse.TimePattern(s, pattern)
	if err != nil || !ok {
		return types.LocalDateTime{}, false
	}
	return types.LocalDateTime{Millis: ms, NanoOfMilli: nano}, true
}

func compileDateFormat(c *call) (Expr, error) {
	if err := c.plain(); err != nil {
		return nil, err
	}
	from := c.name == "FROM_UNIXTIME"
	if from {
		if err := c.arity(1, 2); err != nil {
			return nil, err
		}
		if err := c.wantNumeric(0); err != nil {
			return nil, err
		}
	} else {
		if err := c.arity(2, 2); err != nil {
			return nil, err
		}
		if err := c.want(0, "a timestamp or a string", func(t types.Type) bool { return isDateTime(t) || t.IsString() }); err != nil {
			return nil, err
		}
	}
	if len(c.args) == 2 {
		if err := c.wantString(1); err != nil {
			return nil, err
		}
	}
	if !from {
		c.localize(0)
	}
	loc := c.sc.zone()
	return strict(types.TypeString, true, c.args, func(v []any) (any, error) {
		pattern := "yyyy-MM-dd HH:mm:ss"
		if len(v) == 2 {
			pattern = v[1].(string)
		}
		var g time.Time
		switch x := v[0].(type) {
		case string:
			ts, ok := parseTimestampText(x, "")
			if !ok {
				return nil, nil
			}
			days, nano, _ := civil(ts)
			g = goTime(days, nano)
		case int64:
			// Flink counts x * 1000 milliseconds in a long, which wraps
			// around past 292 million years: NULL there instead.
			if x > math.MaxInt64/1000 || x < math.MinInt64/1000 {
				return nil, nil
			}
			g = time.Unix(x, 0).In(loc)
		case float64, types.Decimal:
			f := toFloat(x)
			if !(f >= math.MinInt64/1000 && f <= math.MaxInt64/1000) { // NaN too
				return nil, nil
			}
			g = time.Unix(int64(f), 0).In(loc)
		default:
			days, nano, _ := civil(x)
			g = goTime(days, nano)
		}
		return javaFormat(g, pattern), nil
	}), nil
}

func compileParseTime(c *call) (Expr, error) {
	if err := c.plainArity(1, 2); err != nil {
		return nil, err
	}
	for i := range c.args {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	date := c.name == "TO_DATE"
	t := types.TypeTimestamp3
	if date {
		t = types.Type{Kind: types.KindDate}
	}
	return strict(t, true, c.args, func(v []any) (any, error) {
		pattern := ""
		if len(v) == 2 {
			pattern = v[1].(string)
		}
		ts, ok := parseTimestampText(v[0].(string), pattern)
		if !ok {
			return nil, nil
		}
		if date {
			d, _ := floorDiv(ts.Millis, millisPerDay)
			return types.Date(d), nil
		}
		ts.NanoOfMilli = 0 // TIMESTAMP(3)
		return ts, nil
	}), nil
}
