package textparse

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Timestamp formats of Options.TimestampFormat, Flink's values of
// 'json.timestamp-format.standard'.
const (
	// TimestampFormatSQL reads TIMESTAMP as "yyyy-MM-dd HH:mm:ss[.fraction]"
	// and TIMESTAMP_LTZ as the same followed by "Z".
	TimestampFormatSQL = "SQL"
	// TimestampFormatISO8601 reads TIMESTAMP as "yyyy-MM-ddTHH:mm[:ss[.fraction]]"
	// and TIMESTAMP_LTZ as the same followed by "Z".
	TimestampFormatISO8601 = "ISO-8601"
)

// Options controls how Value and ConvertJSON read text. The zero
// value is ptfsh's lenient default.
type Options struct {
	// TimestampPattern, when not empty, is the only form TIMESTAMP and
	// TIMESTAMP_LTZ text may take (JSON numbers still read as epoch
	// milliseconds). DATE text is read as yyyy-MM-dd first and with the
	// pattern second, its time of day dropped. The pattern language is a
	// small part of Java's DateTimeFormatter:
	//
	//	yyyy, uuuu    year, 4 digits (y, u: 1 to 4 digits; yy: 2 digits, 2000-2099)
	//	MM, M         month, 2 digits / 1 or 2 digits
	//	MMM, MMMM     month name in English, any case: Jan, January
	//	dd, d         day of month, 2 digits / 1 or 2 digits
	//	HH, H         hour of day 0-23, 2 digits / 1 or 2 digits
	//	mm, m         minute, 2 digits / 1 or 2 digits
	//	ss, s         second, 2 digits / 1 or 2 digits
	//	S...S         fraction of a second, exactly as many digits as letters (1-9)
	//	X, XX, XXX    zone offset or Z: Z, +01, +0130, +01:30
	//	Z             zone offset: +0130
	//	'text'        literal text; '' is one single quote
	//
	// Any other character that is not a letter stands for itself; other
	// letters are an error (quote them: 'T'). Year, month and day are
	// required, missing time fields are zero, and text must match the whole
	// pattern. Examples: "yyyy/MM/dd HH:mm", "yyyy-MM-dd", "MMM d yyyy",
	// "dd.MM.yyyy'T'HH:mm:ss.SSSXXX".
	TimestampPattern string
	// TimestampFormat is Flink's 'json.timestamp-format.standard':
	// TimestampFormatSQL or TimestampFormatISO8601 make TIMESTAMP and
	// TIMESTAMP_LTZ text strict as in Flink. Empty accepts both forms, with
	// or without a zone offset, a date alone, and epoch milliseconds. A
	// TimestampPattern takes precedence.
	TimestampFormat string
	// FlinkCSV reads TIMESTAMP and TIMESTAMP_LTZ text as Flink's csv
	// format does (TimestampFormatSQL, unless a TimestampPattern is given),
	// and an error for ISO-8601 text says that Flink fails on it too (SET
	// 'ptfsh.dialect' = 'flink').
	FlinkCSV bool
}

// Validate reports whether the options are usable: a known TimestampFormat
// and a TimestampPattern that compiles.
func (o Options) Validate() error {
	_, err := Compile(o)
	return err
}

// Parser is Options compiled once: readers keep one, and
// Value finds it in a cache.
type Parser struct {
	pattern  *timePattern // nil without TimestampPattern
	format   string
	flinkCSV bool
}

var (
	parserCache   sync.Map // Options -> *Parser
	defaultParser = &Parser{}
)

func Compile(o Options) (*Parser, error) {
	if o == (Options{}) {
		return defaultParser, nil
	}
	if v, ok := parserCache.Load(o); ok {
		return v.(*Parser), nil
	}
	vp := &Parser{format: o.TimestampFormat, flinkCSV: o.FlinkCSV}
	if o.FlinkCSV && o.TimestampFormat == "" {
		vp.format = TimestampFormatSQL
	}
	switch o.TimestampFormat {
	case "", TimestampFormatSQL, TimestampFormatISO8601:
	default:
		return nil, fmt.Errorf("unknown timestamp format %q: want %q or %q", o.TimestampFormat, TimestampFormatSQL, TimestampFormatISO8601)
	}
	if o.TimestampPattern != "" {
		p, err := compileTimestampPattern(o.TimestampPattern)
		if err != nil {
			return nil, err
		}
		vp.pattern = p
	}
	parserCache.Store(o, vp)
	return vp, nil
}

// Value converts text to the Go value that holds SQL type t in a Row
// (see value.go). What text means NULL is the caller's decision (an empty
// CSV field, say), so Value returns nil only for the JSON text null
// of an ARRAY, MAP, ROW or DESCRIPTOR. It is safe for concurrent use.
//
// Text is read much as Flink's CAST from STRING reads it:
//
//   - BOOLEAN: true or false, in any case.
//   - TINYINT, SMALLINT, INT, BIGINT: a decimal integer in the type's range.
//   - FLOAT, DOUBLE: a decimal or exponent number, NaN, Infinity.
//   - DECIMAL(p, s): any decimal number, rounded HALF_UP to scale s; more
//     than p digits is an error. A DECIMAL whose Length is 0 is DECIMAL(10, 0).
//   - CHAR, VARCHAR, STRING: the text itself, never truncated or trimmed.
//   - BINARY, VARBINARY, BYTES: base64, padded or not.
//   - DATE: yyyy-MM-dd (a time of day after it is ignored).
//   - TIME(p): HH:mm[:ss[.fraction]], truncated to precision p.
//   - TIMESTAMP(p), TIMESTAMP_LTZ(p): see Options; a zone offset is
//     applied (the session time zone is UTC), a value without one is UTC;
//     the fraction is truncated to precision p.
//   - INTERVAL DAY TO SECOND: milliseconds, Flink's "+1 02:03:04.000" or an
//     ISO-8601 duration (PT1H30M); INTERVAL YEAR TO MONTH: months, "+1-02"
//     or P1Y2M.
//   - ARRAY, MAP, ROW, DESCRIPTOR: JSON text, as ConvertJSON reads it.
//
// Leading and trailing white space is ignored for every type but strings.
// An error says what was expected: cannot parse "abc" as INT.
func Value(text string, t types.Type, opts Options) (any, error) {
	vp, err := Compile(opts)
	if err != nil {
		return nil, err
	}
	return vp.Parse(text, &t)
}

// valueError is a value that does not read as its type. The reader adds the
// position and the column name.
type valueError struct {
	text   string // the offending text, quoted and shortened for display
	typ    string
	detail string
}

func (e *valueError) Error() string {
	s := "cannot parse " + e.text + " as " + e.typ
	if e.detail != "" {
		s += ": " + e.detail
	}
	return s
}

// maxShown is how much of an offending value an error message shows.
const maxShown = 64

// QuoteText renders text for an error message, shortened when long. It
// copies text, so callers may pass strings that alias reused buffers.
func QuoteText(text string) string {
	if len(text) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		return strconv.Quote(text[:cut]) + "..."
	}
	return strconv.Quote(text)
}

func errValue(text string, t *types.Type, detail string) error {
	return &valueError{text: QuoteText(text), typ: t.String(), detail: detail}
}

// HasPattern reports whether the options gave a TimestampPattern.
func (vp *Parser) HasPattern() bool { return vp.pattern != nil }

// Parse is Value with compiled options.
func (vp *Parser) Parse(text string, t *types.Type) (any, error) {
	if t.IsString() {
		return text, nil
	}
	return vp.ParseScalar(text, t)
}

// ParseScalar is parse for every type but strings. It keeps no reference
// to text, so that a reader's string(bytes) conversion for the call can
// stay off the heap.
func (vp *Parser) ParseScalar(text string, t *types.Type) (any, error) {
	s := strings.TrimSpace(text)
	switch t.Kind {
	case types.KindBoolean:
		switch {
		case strings.EqualFold(s, "true"):
			return true, nil
		case strings.EqualFold(s, "false"):
			return false, nil
		}
		return nil, errValue(text, t, "")
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return parseIntegerText(text, s, t)
	case types.KindFloat, types.KindDouble:
		return parseFloatText(text, s, t)
	case types.KindDecimal:
		d, detail, ok := parseDecimal(s, t)
		if !ok {
			return nil, errValue(text, t, detail)
		}
		return d, nil
	case types.KindBinary, types.KindVarBinary:
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return b, nil
		}
		if b, err := base64.RawStdEncoding.DecodeString(s); err == nil {
			return b, nil
		}
		return nil, errValue(text, t, "expected base64")
	case types.KindDate:
		return vp.ParseDate(text, s, t)
	case types.KindTime:
		if tod, ok := parseTimeOfDay(s, t.Length); ok {
			return tod, nil
		}
		return nil, errValue(text, t, "expected HH:mm:ss")
	case types.KindTimestamp, types.KindTimestampLTZ:
		return vp.ParseTimestamp(text, s, t)
	case types.KindIntervalDayTime:
		if d, ok := parseDayTimeInterval(s); ok {
			return d, nil
		}
		return nil, errValue(text, t, "expected milliseconds, +D HH:mm:ss.SSS or an ISO-8601 duration")
	case types.KindIntervalYearMonth:
		if p, ok := parseYearMonthInterval(s); ok {
			return p, nil
		}
		return nil, errValue(text, t, "expected months, +Y-MM or an ISO-8601 period")
	case types.KindArray, types.KindMap, types.KindRow, types.KindDescriptor:
		return vp.parseJSONText(text, t)
	}
	return nil, errValue(text, t, "")
}

func errIntRange(text string, t *types.Type) error {
	lo, hi := t.Kind.IntegerRange()
	return errValue(text, t, fmt.Sprintf("out of range [%d, %d]", lo, hi))
}

// parseIntegerText reads s (text trimmed) as an integer of t's kind.
func parseIntegerText(text, s string, t *types.Type) (any, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return nil, errIntRange(text, t)
		}
		return nil, errValue(text, t, "")
	}
	if lo, hi := t.Kind.IntegerRange(); n < lo || n > hi {
		return nil, errIntRange(text, t)
	}
	return n, nil
}

// FastInt is a fast path for decimal integers: ok is false for anything
// that is not an optional sign and 1 to 18 digits, and the caller then
// takes the slow path that handles the rest and explains problems.
func FastInt(b []byte) (int64, bool) {
	i := 0
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		i = 1
	}
	if len(b) == i || len(b)-i > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b[i:] {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c) // 18 scanDigits cannot overflow
	}
	if b[0] == '-' {
		n = -n
	}
	return n, true
}

// parseFloatText reads s (text trimmed) as FLOAT or DOUBLE. Java's spellings
// NaN and [+-]Infinity are accepted, as Go's inf and nan are.
func parseFloatText(text, s string, t *types.Type) (any, error) {
	bits := 64
	if t.Kind == types.KindFloat {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return nil, errValue(text, t, "out of range")
		}
		return nil, errValue(text, t, "")
	}
	return f, nil
}

// DecimalPrecision returns the precision and scale of a DECIMAL type.
func DecimalPrecision(t *types.Type) (p, s int) {
	if t.Length == 0 {
		return 10, 0
	}
	return t.Length, t.Scale
}

// decimalRange renders the largest value of DECIMAL(p, s), e.g. 99.99.
func decimalRange(p, s int) string {
	if s >= p {
		return "0." + strings.Repeat("9", s)
	}
	if s == 0 {
		return strings.Repeat("9", p)
	}
	return strings.Repeat("9", p-s) + "." + strings.Repeat("9", s)
}

// maxDecimalExponent bounds exponents so that 1e999999999 cannot make us
// build a number of a billion digits.
const maxDecimalExponent = 1000

// parseDecimal reads s as DECIMAL(p, s), as Java's new BigDecimal(s)
// followed by setScale(s, HALF_UP) and a precision check. detail explains
// a failure.
func parseDecimal(s string, t *types.Type) (d types.Decimal, detail string, ok bool) {
	prec, scale := DecimalPrecision(t)
	neg := false
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var scanDigits []byte
	var buf [40]byte
	scanDigits = buf[:0]
	frac := 0
	seenDot, seenDigit := false, false
scan:
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			seenDigit = true
			if len(scanDigits) > 0 || c != '0' {
				scanDigits = append(scanDigits, c)
			}
			if seenDot {
				frac++
			}
			continue
		case c == '.' && !seenDot:
			seenDot = true
			continue
		}
		break scan
	}
	if !seenDigit {
		return types.Decimal{}, "", false
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return types.Decimal{}, "", false
		}
		if e > maxDecimalExponent || e < -maxDecimalExponent {
			return types.Decimal{}, fmt.Sprintf("out of range [-%s, %s]", decimalRange(prec, scale), decimalRange(prec, scale)), false
		}
		exp = e
		i = len(s)
	}
	if i != len(s) {
		return types.Decimal{}, "", false
	}
	// The value is digits × 10^(exp-frac); the unscaled value at the
	// target scale is digits × 10^k.
	k := exp - frac + scale
	outOfRange := fmt.Sprintf("out of range [-%s, %s]", decimalRange(prec, scale), decimalRange(prec, scale))
	if k >= 0 {
		if len(scanDigits) > 0 && len(scanDigits)+k > prec {
			return types.Decimal{}, outOfRange, false
		}
		for j := 0; j < k && len(scanDigits) > 0; j++ {
			scanDigits = append(scanDigits, '0')
		}
	} else {
		keep := len(scanDigits) + k // scanDigits kept; the rest is rounded away
		roundUp := false
		switch {
		case keep >= 0 && keep < len(scanDigits):
			roundUp = scanDigits[keep] >= '5'
			scanDigits = scanDigits[:keep]
		case keep < 0:
			scanDigits = scanDigits[:0]
		}
		if roundUp {
			scanDigits = incrementDigits(scanDigits)
		}
		if len(scanDigits) > prec {
			return types.Decimal{}, outOfRange, false
		}
	}
	u := new(big.Int)
	if len(scanDigits) == 0 {
		return types.Decimal{Unscaled: u, Scale: scale}, "", true
	}
	if len(scanDigits) <= 18 {
		n, _ := strconv.ParseInt(string(scanDigits), 10, 64)
		u.SetInt64(n)
	} else {
		u.SetString(string(scanDigits), 10)
	}
	if neg {
		u.Neg(u)
	}
	return types.Decimal{Unscaled: u, Scale: scale}, "", true
}

// incrementDigits adds one to a decimal digit string.
func incrementDigits(d []byte) []byte {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] < '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	return append([]byte{'1'}, d...)
}

// parseDayTimeInterval reads milliseconds, Flink's "+D HH:mm:ss.SSS" or an
// ISO-8601 duration such as P1DT2H or PT0.5S.
func parseDayTimeInterval(s string) (types.Duration, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return types.Duration(n), true
	}
	if ms, ok := parseISODuration(s, false); ok {
		return types.Duration(ms), true
	}
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	days, rest, ok := strings.Cut(s, " ")
	if !ok {
		return 0, false
	}
	d, err := strconv.ParseInt(days, 10, 64)
	if err != nil || d < 0 || d > 1e8 {
		return 0, false
	}
	tod, ok := parseTimeOfDay(rest, 3)
	if !ok {
		return 0, false
	}
	ms := d*86400000 + int64(tod)/1e6
	if neg {
		ms = -ms
	}
	return types.Duration(ms), true
}

// parseYearMonthInterval reads months, Flink's "+Y-MM" or an ISO-8601
// period such as P1Y2M.
func parseYearMonthInterval(s string) (types.Period, bool) {
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return types.Period(n), true
	}
	if m, ok := parseISODuration(s, true); ok && m >= math.MinInt32 && m <= math.MaxInt32 {
		return types.Period(m), true
	}
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	ys, ms, ok := strings.Cut(s, "-")
	if !ok {
		return 0, false
	}
	y, err1 := strconv.ParseUint(ys, 10, 31)
	m, err2 := strconv.ParseUint(ms, 10, 31)
	if err1 != nil || err2 != nil || m > 11 || y > 1e8 {
		return 0, false
	}
	n := int64(y*12 + m)
	if neg {
		n = -n
	}
	return types.Period(n), true
}

// parseISODuration reads an ISO-8601 duration: with months set, P[nY][nM]
// in months; otherwise P[nD][T[nH][nM][n[.f]S]] in milliseconds.
func parseISODuration(s string, months bool) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if len(s) < 3 || (s[0] != 'P' && s[0] != 'p') {
		return 0, false
	}
	s = s[1:]
	var total int64
	inTime := false
	for s != "" {
		if !months && (s[0] == 'T' || s[0] == 't') && !inTime {
			inTime = true
			s = s[1:]
			continue
		}
		j := 0
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		if j == 0 || j == len(s) {
			return 0, false
		}
		num, unit := s[:j], s[j]|0x20
		s = s[j+1:]
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || f > 1e12 {
			return 0, false
		}
		var mult float64
		switch {
		case months && unit == 'y':
			mult = 12
		case months && unit == 'm':
			mult = 1
		case !months && !inTime && unit == 'd':
			mult = 86400000
		case !months && inTime && unit == 'h':
			mult = 3600000
		case !months && inTime && unit == 'm':
			mult = 60000
		case !months && inTime && unit == 's':
			mult = 1000
		default:
			return 0, false
		}
		if months && strings.Contains(num, ".") {
			return 0, false
		}
		total += int64(math.Round(f * mult))
	}
	if neg {
		total = -total
	}
	return total, true
}
