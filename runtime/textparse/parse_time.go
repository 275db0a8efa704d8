package textparse

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// civilTime is a date and time read from text, before it becomes a Date,
// LocalDateTime or Instant.
type civilTime struct {
	year, month, day  int
	hour, minute, sec int
	nano              int
	hasZone           bool
	offset            int // seconds east of UTC
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

func isLeapYear(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysInMonth(y, m int) int {
	switch m {
	case 2:
		if isLeapYear(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// valid checks field ranges.
func (c *civilTime) valid() bool {
	return c.month >= 1 && c.month <= 12 && c.day >= 1 && c.day <= daysInMonth(c.year, c.month) &&
		c.hour >= 0 && c.hour <= 23 && c.minute >= 0 && c.minute <= 59 && c.sec >= 0 && c.sec <= 59
}

// TruncNanos truncates nanoseconds to precision p (0 to 9 digits).
func TruncNanos(nano, p int) int {
	if p >= 9 || p < 0 {
		return nano
	}
	m := 1
	for i := p; i < 9; i++ {
		m *= 10
	}
	return nano - nano%m
}

// epoch returns c as epoch milliseconds and nanoseconds within the
// millisecond, the zone offset applied, the fraction truncated to p digits.
func (c *civilTime) epoch(p int) (int64, int32) {
	secs := daysFromCivil(c.year, c.month, c.day)*86400 + int64(c.hour*3600+c.minute*60+c.sec) - int64(c.offset)
	nano := TruncNanos(c.nano, p)
	return secs*1000 + int64(nano/1e6), int32(nano % 1e6)
}

// scanDigits reads between lo and hi decimal digits at s[i:].
func scanDigits(s string, i, lo, hi int) (n, next int, ok bool) {
	j := i
	for j < len(s) && j-i < hi && s[j] >= '0' && s[j] <= '9' {
		n = n*10 + int(s[j]-'0')
		j++
	}
	return n, j, j-i >= lo
}

// scanFraction reads 1 to 9 digits at s[i:] as nanoseconds.
func scanFraction(s string, i int) (nano, next int, ok bool) {
	n, j, ok := scanDigits(s, i, 1, 9)
	if !ok {
		return 0, i, false
	}
	for k := j - i; k < 9; k++ {
		n *= 10
	}
	return n, j, true
}

// isoStyle selects how strictly parseISO reads.
type isoStyle struct {
	sep        byte // 0: 'T', 't' or ' '; else exactly this
	strict     bool // two-digit fields, seconds required
	zone       byte // 0: optional offset, 'Z': a Z required, 'n': none allowed
	dateOnlyOK bool
}

var lenientISOStyle = isoStyle{dateOnlyOK: true}

// parseISO reads yyyy-MM-dd[(T| )HH:mm[:ss[.fraction]]][zone]; zone is Z
// or ±HH[[:]mm].
func parseISO(s string, st isoStyle) (c civilTime, ok bool) {
	if c, ok = fixedDateTime(s, st); ok {
		i := 19
		if i < len(s) && s[i] == '.' {
			if c.nano, i, ok = scanFraction(s, i+1); !ok {
				return c, false
			}
		}
		return isoZone(c, s[i:], st)
	}
	return scanISO(s, st)
}

// scanISO is parseISO's general way, for any text.
func scanISO(s string, st isoStyle) (c civilTime, ok bool) {
	w := 1
	if st.strict {
		w = 2
	}
	var i int
	if c.year, i, ok = scanDigits(s, 0, 4, 4); !ok || i >= len(s) || s[i] != '-' {
		return c, false
	}
	if c.month, i, ok = scanDigits(s, i+1, w, 2); !ok || i >= len(s) || s[i] != '-' {
		return c, false
	}
	if c.day, i, ok = scanDigits(s, i+1, w, 2); !ok {
		return c, false
	}
	if i == len(s) {
		return c, st.dateOnlyOK && c.valid()
	}
	switch {
	case st.sep == 0 && (s[i] == 'T' || s[i] == 't' || s[i] == ' '):
	case st.sep != 0 && s[i] == st.sep:
	default:
		return c, false
	}
	if c.hour, i, ok = scanDigits(s, i+1, w, 2); !ok || i >= len(s) || s[i] != ':' {
		return c, false
	}
	if c.minute, i, ok = scanDigits(s, i+1, 2, 2); !ok {
		return c, false
	}
	if i < len(s) && s[i] == ':' {
		if c.sec, i, ok = scanDigits(s, i+1, 2, 2); !ok {
			return c, false
		}
		if i < len(s) && s[i] == '.' {
			if c.nano, i, ok = scanFraction(s, i+1); !ok {
				return c, false
			}
		}
	} else if st.strict && st.sep == ' ' {
		return c, false // Flink's SQL format requires seconds
	}
	return isoZone(c, s[i:], st)
}

// fixedDateTime reads the common shape yyyy-MM-dd?HH:mm:ss, every field of
// two digits, at fixed places (the separator ? as st allows): what
// parseISO's general way reads from such text, without its scanning.
func fixedDateTime(s string, st isoStyle) (c civilTime, ok bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' {
		return c, false
	}
	switch sep := s[10]; {
	case st.sep == 0 && (sep == 'T' || sep == 't' || sep == ' '):
	case st.sep != 0 && sep == st.sep:
	default:
		return c, false
	}
	var d [14]int // the digits, in order
	k := 0
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		x := int(s[i]) - '0'
		if x < 0 || x > 9 {
			return c, false
		}
		d[k] = x
		k++
	}
	c.year = d[0]*1000 + d[1]*100 + d[2]*10 + d[3]
	c.month, c.day = d[4]*10+d[5], d[6]*10+d[7]
	c.hour, c.minute, c.sec = d[8]*10+d[9], d[10]*10+d[11], d[12]*10+d[13]
	return c, true
}

// isoZone reads what follows the time in parseISO (rest: nothing, or a
// zone as st allows) and checks c's fields.
func isoZone(c civilTime, rest string, st isoStyle) (civilTime, bool) {
	switch {
	case rest == "":
		if st.zone == 'Z' {
			return c, false
		}
	case st.zone == 'n':
		return c, false
	case rest == "Z" || rest == "z":
		c.hasZone = true
	case st.zone == 'Z':
		return c, false
	default:
		off, ok := parseOffset(rest)
		if !ok {
			return c, false
		}
		c.hasZone, c.offset = true, off
	}
	return c, c.valid()
}

// parseOffset reads ±HH, ±HHmm or ±HH:mm as seconds east of UTC.
func parseOffset(s string) (int, bool) {
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	h, i, ok := scanDigits(s, 1, 2, 2)
	if !ok {
		return 0, false
	}
	m := 0
	if i < len(s) && s[i] == ':' {
		i++
	}
	if i < len(s) {
		if m, i, ok = scanDigits(s, i, 2, 2); !ok {
			return 0, false
		}
	}
	if i != len(s) || h > 18 || m > 59 {
		return 0, false
	}
	off := h*3600 + m*60
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// parseTimeOfDay reads HH:mm[:ss[.fraction]] truncated to precision p.
func parseTimeOfDay(s string, p int) (types.TimeOfDay, bool) {
	var c civilTime
	var i int
	var ok bool
	if c.hour, i, ok = scanDigits(s, 0, 1, 2); !ok || i >= len(s) || s[i] != ':' {
		return 0, false
	}
	if c.minute, i, ok = scanDigits(s, i+1, 2, 2); !ok {
		return 0, false
	}
	if i < len(s) && s[i] == ':' {
		if c.sec, i, ok = scanDigits(s, i+1, 2, 2); !ok {
			return 0, false
		}
		if i < len(s) && s[i] == '.' {
			if c.nano, i, ok = scanFraction(s, i+1); !ok {
				return 0, false
			}
		}
	}
	c.year, c.month, c.day = 1970, 1, 1
	if i != len(s) || !c.valid() {
		return 0, false
	}
	ns := int64(c.hour*3600+c.minute*60+c.sec)*1e9 + int64(TruncNanos(c.nano, p))
	return types.TimeOfDay(ns), true
}

// ParseDate reads DATE text (s is text trimmed).
func (vp *Parser) ParseDate(text, s string, t *types.Type) (any, error) {
	st := lenientISOStyle
	if c, ok := parseISO(s, st); ok {
		return types.Date(daysFromCivil(c.year, c.month, c.day)), nil
	}
	if vp.pattern != nil {
		if c, ok := vp.pattern.parse(s); ok {
			return types.Date(daysFromCivil(c.year, c.month, c.day)), nil
		}
		return nil, errValue(text, t, "expected yyyy-MM-dd or pattern "+strconv.Quote(vp.pattern.src))
	}
	return nil, errValue(text, t, "expected yyyy-MM-dd")
}

// ParseTimestamp reads TIMESTAMP or TIMESTAMP_LTZ text (s is text trimmed).
// A TIMESTAMP with a zone offset is converted to UTC, the session time zone.
func (vp *Parser) ParseTimestamp(text, s string, t *types.Type) (any, error) {
	var c civilTime
	var ok bool
	var expect string
	ltz := t.Kind == types.KindTimestampLTZ
	switch {
	case vp.pattern != nil:
		c, ok = vp.pattern.parse(s)
		expect = "expected pattern " + strconv.Quote(vp.pattern.src)
	case vp.format == TimestampFormatSQL:
		st := isoStyle{sep: ' ', strict: true, zone: 'n'}
		expect = "expected yyyy-MM-dd HH:mm:ss[.SSS]"
		if ltz {
			st.zone, expect = 'Z', expect+"Z"
		}
		if c, ok = parseISO(s, st); !ok && vp.flinkCSV && len(s) > 10 && s[10] == 'T' {
			// As Flink's reader fails, with java.time's message.
			expect += fmt.Sprintf("; Flink: java.time.format.DateTimeParseException: Text '%s' could not be parsed at index 10 (ISO-8601 text in a CSV file is a ptfsh extension)", s)
		}
	case vp.format == TimestampFormatISO8601:
		st := isoStyle{sep: 'T', strict: true, zone: 'n'}
		expect = "expected yyyy-MM-ddTHH:mm:ss[.SSS]"
		if ltz {
			st.zone, expect = 'Z', expect+"Z"
		}
		c, ok = parseISO(s, st)
	default:
		if n, isInt := epochMillis(s); isInt {
			if n < MinEpochMillis || n > MaxEpochMillis {
				return nil, errValue(text, t, epochRange)
			}
			return MakeTimestamp(n, 0, ltz), nil
		}
		c, ok = parseISO(s, lenientISOStyle)
		expect = "expected yyyy-MM-dd HH:mm:ss, ISO-8601 or epoch milliseconds"
	}
	if !ok {
		return nil, errValue(text, t, expect)
	}
	ms, nano := c.epoch(t.Length)
	return MakeTimestamp(ms, nano, ltz), nil
}

// quickTimestamp is ParseTimestamp's way for well-formed text read without
// a pattern: ok false sends the caller to ParseTimestamp, which reads the
// rest (epoch milliseconds, white space around) and explains failures. It
// keeps no reference to s, so that a caller's string(bytes) conversion
// stays off the heap.
func (vp *Parser) quickTimestamp(s string, t *types.Type) (v any, ok bool) {
	if vp == nil || vp.pattern != nil {
		return nil, false
	}
	ltz := t.Kind == types.KindTimestampLTZ
	var st isoStyle
	switch vp.format {
	case "":
		st = lenientISOStyle
	case TimestampFormatSQL:
		st = isoStyle{sep: ' ', strict: true, zone: 'n'}
	case TimestampFormatISO8601:
		st = isoStyle{sep: 'T', strict: true, zone: 'n'}
	default:
		return nil, false
	}
	if ltz && vp.format != "" {
		st.zone = 'Z'
	}
	c, ok := parseISO(s, st)
	if !ok {
		return nil, false
	}
	ms, nano := c.epoch(t.Length)
	return MakeTimestamp(ms, nano, ltz), true
}

// MinEpochMillis and MaxEpochMillis bound a time read as epoch
// milliseconds: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, the
// times a timestamp's text can spell (and Flink's TO_TIMESTAMP_LTZ
// takes).
const (
	MinEpochMillis = -62167219200000
	MaxEpochMillis = 253402300799999
)

// epochRange says why epoch milliseconds outside them are refused.
const epochRange = "epoch milliseconds out of the range of a timestamp (years 0000 to 9999)"

func MakeTimestamp(ms int64, nano int32, ltz bool) any {
	if ltz {
		return types.Instant{Millis: ms, NanoOfMilli: nano}
	}
	return types.LocalDateTime{Millis: ms, NanoOfMilli: nano}
}

// epochMillis reads s as epoch milliseconds: an optional minus sign and
// digits only.
func epochMillis(s string) (int64, bool) {
	i := 0
	if s != "" && s[0] == '-' {
		i = 1
	}
	if i == len(s) {
		return 0, false
	}
	for _, c := range []byte(s[i:]) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// A timePattern is a compiled timestamp pattern.
type timePattern struct {
	src   string
	items []patItem
}

type patKind uint8

const (
	patLiteral patKind = iota
	patYear
	patYear2
	patMonth
	patMonthShort
	patMonthLong
	patDay
	patHour
	patMinute
	patSecond
	patFraction
	patOffsetX // X, XX, XXX: Z or an offset
	patOffsetZ // Z: +HHmm
)

type patItem struct {
	kind   patKind
	lo, hi int    // digit counts
	lit    string // patLiteral
}

// QuotedText reads the quoted text that starts at pattern[i], a quote, in
// a java.text.SimpleDateFormat pattern: the text up to the next lone
// quote, ” inside standing for a quote, and ” itself (no text between
// the quotes) for a quote. next is the index after the closing quote;
// closed is false when the pattern ends first (lit is then the rest).
func QuotedText(pattern string, i int) (lit string, next int, closed bool) {
	var b strings.Builder
	j := i + 1
	for ; j < len(pattern); j++ {
		if pattern[j] != '\'' {
			b.WriteByte(pattern[j])
			continue
		}
		if j+1 < len(pattern) && pattern[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		closed = true
		break
	}
	if closed && j == i+1 {
		b.WriteByte('\'') // ''
	}
	return b.String(), j + 1, closed
}

// compileTimestampPattern compiles the pattern language documented at
// Options.TimestampPattern.
func compileTimestampPattern(pattern string) (*timePattern, error) {
	p := &timePattern{src: pattern}
	var seen [patOffsetZ + 1]bool
	for i := 0; i < len(pattern); {
		c := pattern[i]
		if c == '\'' {
			lit, next, closed := QuotedText(pattern, i)
			if !closed {
				return nil, fmt.Errorf("timestamp pattern %q: unterminated quote", pattern)
			}
			p.addLiteral(lit)
			i = next
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			p.addLiteral(pattern[i : i+1])
			i++
			continue
		}
		n := 1
		for i+n < len(pattern) && pattern[i+n] == c {
			n++
		}
		it, ok := patternLetter(c, n)
		if !ok {
			return nil, fmt.Errorf("timestamp pattern %q: unsupported letters %q (quote literal text: 'T')", pattern, pattern[i:i+n])
		}
		if seen[it.kind] {
			return nil, fmt.Errorf("timestamp pattern %q: %q appears twice", pattern, pattern[i:i+n])
		}
		seen[it.kind] = true
		p.items = append(p.items, it)
		i += n
	}
	hasYear := seen[patYear] || seen[patYear2]
	hasMonth := seen[patMonth] || seen[patMonthShort] || seen[patMonthLong]
	if !hasYear || !hasMonth || !seen[patDay] {
		return nil, fmt.Errorf("timestamp pattern %q: needs a year (yyyy), a month (MM) and a day (dd)", pattern)
	}
	return p, nil
}

func (p *timePattern) addLiteral(s string) {
	if n := len(p.items); n > 0 && p.items[n-1].kind == patLiteral {
		p.items[n-1].lit += s
		return
	}
	p.items = append(p.items, patItem{kind: patLiteral, lit: s})
}

func patternLetter(c byte, n int) (patItem, bool) {
	num := func(k patKind) (patItem, bool) {
		switch n {
		case 1:
			return patItem{kind: k, lo: 1, hi: 2}, true
		case 2:
			return patItem{kind: k, lo: 2, hi: 2}, true
		}
		return patItem{}, false
	}
	switch c {
	case 'y', 'u':
		switch n {
		case 2:
			return patItem{kind: patYear2, lo: 2, hi: 2}, true
		case 4:
			return patItem{kind: patYear, lo: 4, hi: 4}, true
		case 1, 3:
			return patItem{kind: patYear, lo: n, hi: 4}, true
		}
	case 'M':
		switch n {
		case 3:
			return patItem{kind: patMonthShort}, true
		case 4:
			return patItem{kind: patMonthLong}, true
		}
		return num(patMonth)
	case 'd':
		return num(patDay)
	case 'H':
		return num(patHour)
	case 'm':
		return num(patMinute)
	case 's':
		return num(patSecond)
	case 'S':
		if n <= 9 {
			return patItem{kind: patFraction, lo: n, hi: n}, true
		}
	case 'X':
		if n <= 3 {
			return patItem{kind: patOffsetX}, true
		}
	case 'Z':
		if n <= 3 {
			return patItem{kind: patOffsetZ}, true
		}
	}
	return patItem{}, false
}

var patMonthNames = [...]string{"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december"}

// parse reads s by the pattern.
func (p *timePattern) parse(s string) (c civilTime, ok bool) {
	i := 0
	for _, it := range p.items {
		var n int
		switch it.kind {
		case patLiteral:
			if !strings.HasPrefix(s[i:], it.lit) {
				return c, false
			}
			i += len(it.lit)
			continue
		case patMonthShort, patMonthLong:
			m := 0
			for k, name := range patMonthNames {
				w := name
				if it.kind == patMonthShort {
					w = name[:3]
				}
				if len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
					m, i = k+1, i+len(w)
					break
				}
			}
			if m == 0 {
				return c, false
			}
			c.month = m
			continue
		case patOffsetX, patOffsetZ:
			if it.kind == patOffsetX && i < len(s) && (s[i] == 'Z' || s[i] == 'z') {
				c.hasZone = true
				i++
				continue
			}
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ':') && j-i < 6 {
				j++
			}
			off, ok := parseOffset(s[i:j])
			if !ok {
				return c, false
			}
			c.hasZone, c.offset, i = true, off, j
			continue
		case patFraction:
			var j int
			if n, j, ok = scanDigits(s, i, it.lo, it.hi); !ok {
				return c, false
			}
			for k := j - i; k < 9; k++ {
				n *= 10
			}
			c.nano, i = n, j
			continue
		}
		if n, i, ok = scanDigits(s, i, it.lo, it.hi); !ok {
			return c, false
		}
		switch it.kind {
		case patYear:
			c.year = n
		case patYear2:
			c.year = 2000 + n
		case patMonth:
			c.month = n
		case patDay:
			c.day = n
		case patHour:
			c.hour = n
		case patMinute:
			c.minute = n
		case patSecond:
			c.sec = n
		}
	}
	return c, i == len(s) && c.valid()
}

// TimeSetting reads a time given in a SET: epoch milliseconds or a
// timestamp as in CSV files (UTC).
func TimeSetting(v string) (int64, error) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ms, nil
	}
	t, err := Value(v, types.TypeTimestampLTZ, Options{})
	if err != nil {
		return 0, fmt.Errorf("want epoch milliseconds or a time such as '2025-03-27 12:00:00', not '%s'", v)
	}
	ms, _ := types.TimeMillis(t)
	return ms, nil
}

// TimePattern parses s by a timestamp pattern of the language of
// Options.TimestampPattern (yyyy-MM-dd HH:mm:ss.SSS and the like),
// as Flink's TO_TIMESTAMP(s, pattern) and UNIX_TIMESTAMP(s, pattern) do,
// in UTC (ptfsh's session time zone). ok is false when s does not match;
// err is for a pattern that does not compile.
func TimePattern(s, pattern string) (millis int64, nanoOfMilli int32, ok bool, err error) {
	p, err := compileTimestampPattern(pattern)
	if err != nil {
		return 0, 0, false, err
	}
	c, ok := p.parse(strings.TrimSpace(s))
	if !ok || !c.valid() {
		return 0, 0, false, nil
	}
	millis, nanoOfMilli = c.epoch(9)
	return millis, nanoOfMilli, true, nil
}
