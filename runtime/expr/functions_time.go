package expr

import (
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Time functions. A TIMESTAMP_LTZ value is an instant: the functions that
// read its fields (EXTRACT, DATE_FORMAT, FLOOR, CEIL) read them in the
// session time zone (Scope.Zone, 'table.local-time-zone'), as Flink does;
// so do FROM_UNIXTIME, UNIX_TIMESTAMP of a string, LOCALTIMESTAMP,
// CURRENT_DATE and CURRENT_TIME.

var timeFunctions = []Function{
	{Name: "CURRENT_WATERMARK", Signature: "CURRENT_WATERMARK(rowtime)", Doc: "the watermark of the rows so far, of the rowtime attribute's type; NULL before the first watermark", compile: compileCurrentWatermark},
	{Name: "CONVERT_TZ", Signature: "CONVERT_TZ(s, fromZone, toZone)", Doc: "the date-time text s ('yyyy-MM-dd HH:mm:ss') read in time zone fromZone and written in toZone, as a STRING; NULL when s is not a date-time", compile: compileConvertTz},
	{Name: "EXTRACT", Signature: "EXTRACT(unit FROM t)", Doc: "a field of a date, time or timestamp as a BIGINT: YEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, HOUR, MINUTE, SECOND, MILLISECOND, EPOCH", unit: true, compile: compileExtract},
	{Name: "YEAR", Signature: "YEAR(d)", Doc: "EXTRACT(YEAR FROM d)", compile: compileExtract},
	{Name: "QUARTER", Signature: "QUARTER(d)", Doc: "EXTRACT(QUARTER FROM d): 1 to 4", compile: compileExtract},
	{Name: "MONTH", Signature: "MONTH(d)", Doc: "EXTRACT(MONTH FROM d): 1 to 12", compile: compileExtract},
	{Name: "WEEK", Signature: "WEEK(d)", Doc: "EXTRACT(WEEK FROM d): the ISO-8601 week, 1 to 53", compile: compileExtract},
	{Name: "DAYOFYEAR", Signature: "DAYOFYEAR(d)", Doc: "EXTRACT(DOY FROM d): 1 to 366", compile: compileExtract},
	{Name: "DAYOFMONTH", Signature: "DAYOFMONTH(d)", Doc: "EXTRACT(DAY FROM d): 1 to 31", compile: compileExtract},
	{Name: "DAYOFWEEK", Signature: "DAYOFWEEK(d)", Doc: "EXTRACT(DOW FROM d): 1 (Sunday) to 7 (Saturday)", compile: compileExtract},
	{Name: "HOUR", Signature: "HOUR(t)", Doc: "EXTRACT(HOUR FROM t): 0 to 23", compile: compileExtract},
	{Name: "MINUTE", Signature: "MINUTE(t)", Doc: "EXTRACT(MINUTE FROM t): 0 to 59", compile: compileExtract},
	{Name: "SECOND", Signature: "SECOND(t)", Doc: "EXTRACT(SECOND FROM t): 0 to 59", compile: compileExtract},
	{Name: "DATE_FORMAT", Signature: "DATE_FORMAT(t, pattern)", Doc: "a timestamp (or a string in yyyy-MM-dd HH:mm:ss) formatted by a Java SimpleDateFormat pattern", compile: compileDateFormat},
	{Name: "FROM_UNIXTIME", Signature: "FROM_UNIXTIME(seconds [, pattern])", Doc: "epoch seconds formatted (default yyyy-MM-dd HH:mm:ss)", compile: compileDateFormat},
	{Name: "TO_TIMESTAMP", Signature: "TO_TIMESTAMP(s [, pattern])", Doc: "a string parsed as a TIMESTAMP(3) (default pattern yyyy-MM-dd HH:mm:ss); NULL when it does not parse", compile: compileParseTime},
	{Name: "TO_DATE", Signature: "TO_DATE(s [, pattern])", Doc: "a string parsed as a DATE (default pattern yyyy-MM-dd); NULL when it does not parse", compile: compileParseTime},
	{Name: "TO_TIMESTAMP_LTZ", Signature: "TO_TIMESTAMP_LTZ(epoch [, precision]) | TO_TIMESTAMP_LTZ(s [, pattern])", Doc: "epoch seconds (precision 0) or milliseconds (3, the default), or a string parsed (by default as yyyy-MM-dd HH:mm:ss[.fff], in UTC), as a TIMESTAMP_LTZ(3)", compile: compileToTimestampLTZ},
	{Name: "UNIX_TIMESTAMP", Signature: "UNIX_TIMESTAMP([s [, pattern]])", Doc: "the current time, or a string parsed (default yyyy-MM-dd HH:mm:ss), in epoch seconds", compile: compileUnixTimestamp},
	{Name: "TIMESTAMPADD", Signature: "TIMESTAMPADD(unit, n, t)", Doc: "t plus n units (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND); months clamp to the month's last day", unit: true, compile: compileTimestampAdd},
	{Name: "TIMESTAMPDIFF", Signature: "TIMESTAMPDIFF(unit, t1, t2)", Doc: "the number of whole units from t1 to t2, an INT", unit: true, compile: compileTimestampDiff},
	{Name: "CURRENT_TIMESTAMP", Signature: "CURRENT_TIMESTAMP", Doc: "the session's clock (SET 'ptfsh.processing-time', else the wall clock) as a TIMESTAMP_LTZ(3)", compile: compileNow},
	{Name: "NOW", Signature: "NOW()", Doc: "CURRENT_TIMESTAMP", compile: compileNow},
	{Name: "CURRENT_ROW_TIMESTAMP", Signature: "CURRENT_ROW_TIMESTAMP()", Doc: "CURRENT_TIMESTAMP", compile: compileNow},
	{Name: "LOCALTIMESTAMP", Signature: "LOCALTIMESTAMP", Doc: "the session's clock as a TIMESTAMP(3)", compile: compileNow},
	{Name: "CURRENT_DATE", Signature: "CURRENT_DATE", Doc: "the session's clock's date", compile: compileNow},
	{Name: "CURRENT_TIME", Signature: "CURRENT_TIME", Doc: "the session's clock's time of day, a TIME(0)", compile: compileNow},
	{Name: "LOCALTIME", Signature: "LOCALTIME", Doc: "CURRENT_TIME", compile: compileNow},
}

// Niladic reports whether name (any case) is a function written without
// parentheses (CURRENT_TIMESTAMP), which a column of that name hides.
func niladic(name string) bool {
	switch strings.ToUpper(name) {
	case "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "CURRENT_DATE", "CURRENT_TIME", "LOCALTIME":
		return true
	}
	return false
}

const (
	nanosPerDay   = int64(86400) * 1e9
	millisPerDay  = int64(86400000)
	nanosPerMilli = int64(1e6)
)

func floorDiv(a, n int64) (int64, int64) {
	q, r := a/n, a%n
	if r < 0 {
		q, r = q-1, r+n
	}
	return q, r
}

// civil splits a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ value into a day
// count and the nanoseconds of the day; hasDate is false for a TIME.
func civil(v any) (days, nanoOfDay int64, hasDate bool) {
	switch x := v.(type) {
	case types.Date:
		return int64(x), 0, true
	case types.TimeOfDay:
		return 0, int64(x), false
	case types.LocalDateTime:
		d, ms := floorDiv(x.Millis, millisPerDay)
		return d, ms*nanosPerMilli + int64(x.NanoOfMilli), true
	case types.Instant:
		d, ms := floorDiv(x.Millis, millisPerDay)
		return d, ms*nanosPerMilli + int64(x.NanoOfMilli), true
	}
	return 0, 0, false
}

// goTime is a date value as a time.Time in UTC.
func goTime(days, nanoOfDay int64) time.Time {
	return time.Unix(days*86400, nanoOfDay).UTC()
}

// fromCivil makes a value of kind k from a day count and the nanoseconds
// of the day, or a timeRangeError when it does not fit its type (a DATE
// is a 32-bit day count, a timestamp 64-bit milliseconds): never a value
// that wrapped around.
func fromCivil(k types.Kind, days, nanoOfDay int64) (any, error) {
	days2, nanoOfDay := floorDiv(nanoOfDay, nanosPerDay)
	days += days2
	switch k {
	case types.KindDate:
		if days < math.MinInt32 || days > math.MaxInt32 {
			return nil, timeRangeError{k}
		}
		return types.Date(days), nil
	case types.KindTime:
		return types.TimeOfDay(nanoOfDay), nil
	}
	if days < minCivilDays || days > maxCivilDays {
		return nil, timeRangeError{k}
	}
	ms, nano := days*millisPerDay+nanoOfDay/nanosPerMilli, int32(nanoOfDay%nanosPerMilli)
	if k == types.KindTimestampLTZ {
		return types.Instant{Millis: ms, NanoOfMilli: nano}, nil
	}
	return types.LocalDateTime{Millis: ms, NanoOfMilli: nano}, nil
}

// The day counts whose milliseconds fit an int64 (292 million years each
// side of 1970), and as many months.
const (
	minCivilDays   = math.MinInt64/millisPerDay + 1
	maxCivilDays   = math.MaxInt64/millisPerDay - 1
	maxCivilMonths = 12 * 292_000_000
)

// timeRangeError is the error of a time computed outside the range of its
// type.
type timeRangeError struct{ k types.Kind }

func (e timeRangeError) Error() string {
	switch e.k {
	case types.KindDate:
		return "the result is out of the range of DATE (5.8 million years each side of 1970)"
	case types.KindTimestampLTZ:
		return "the result is out of the range of TIMESTAMP_LTZ (292 million years each side of 1970)"
	}
	return "the result is out of the range of TIMESTAMP (292 million years each side of 1970)"
}

// timeType is the type of a time value, to print it.
func timeType(v any) types.Type {
	switch v.(type) {
	case types.Date:
		return types.Type{Kind: types.KindDate}
	case types.Instant:
		return types.Type{Kind: types.KindTimestampLTZ, Length: 9}
	}
	return types.Type{Kind: types.KindTimestamp, Length: 9}
}

// addDuration adds ms milliseconds to a day count and nanoseconds of the
// day without overflowing: whole days go to the day count.
func addDuration(days, nanoOfDay, ms int64) (int64, int64) {
	d, r := floorDiv(ms, millisPerDay)
	return days + d, nanoOfDay + r*nanosPerMilli
}

func isDateTime(t types.Type) bool {
	return t.Kind == types.KindDate || t.Kind == types.KindTime || t.IsTime()
}

func (c *call) wantDateTime(i int) error {
	return c.want(i, "a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ", isDateTime)
}

// timeUnits are the units of EXTRACT, TIMESTAMPADD, TIMESTAMPDIFF and
// FLOOR/CEIL TO, with their synonyms.
var timeUnits = map[string]string{
	"YEAR": "YEAR", "YEARS": "YEAR", "QUARTER": "QUARTER", "MONTH": "MONTH", "MONTHS": "MONTH",
	"WEEK": "WEEK", "DAY": "DAY", "DAYS": "DAY", "DOY": "DOY", "DOW": "DOW", "ISODOW": "ISODOW",
	"HOUR": "HOUR", "HOURS": "HOUR", "MINUTE": "MINUTE", "MINUTES": "MINUTE",
	"SECOND": "SECOND", "SECONDS": "SECOND", "MILLISECOND": "MILLISECOND", "EPOCH": "EPOCH",
	"SQL_TSI_YEAR": "YEAR", "SQL_TSI_QUARTER": "QUARTER", "SQL_TSI_MONTH": "MONTH", "SQL_TSI_WEEK": "WEEK",
	"SQL_TSI_DAY": "DAY", "SQL_TSI_HOUR": "HOUR", "SQL_TSI_MINUTE": "MINUTE", "SQL_TSI_SECOND": "SECOND",
}

// unitOf reads the unit word of EXTRACT(unit FROM ...) or TIMESTAMPADD(unit, ...).
func (c *call) unitOf(e *sqlmini.Expr, allowed ...string) (string, error) {
	word := e.String()
	u, ok := timeUnits[strings.ToUpper(word)]
	if ok {
		for _, a := range allowed {
			if a == u {
				return u, nil
			}
		}
	}
	return "", sqlmini.Errorf(e.Pos, "%s: unknown time unit %s (use %s)", c.name, word, strings.Join(allowed, ", "))
}

var extractUnits = []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DOY", "DOW", "ISODOW", "HOUR", "MINUTE", "SECOND", "MILLISECOND", "EPOCH"}

func compileExtract(c *call) (Expr, error) {
	unit := map[string]string{"YEAR": "YEAR", "QUARTER": "QUARTER", "MONTH": "MONTH", "WEEK": "WEEK",
		"DAYOFYEAR": "DOY", "DAYOFMONTH": "DAY", "DAYOFWEEK": "DOW", "HOUR": "HOUR", "MINUTE": "MINUTE", "SECOND": "SECOND"}[c.name]
	if c.name == "EXTRACT" {
		f := c.f
		if f.From == nil || len(f.Args) != 1 || f.For != nil || f.Star || f.Distinct || f.Trim != "" {
			return nil, c.errorf("the syntax is EXTRACT(unit FROM t)")
		}
		var err error
		if unit, err = c.unitOf(f.Args[0], extractUnits...); err != nil {
			return nil, err
		}
		x, err := Compile(f.From, c.sc)
		if err != nil {
			return nil, err
		}
		c.args = []Expr{x}
	} else {
		if err := c.plainArity(1, 1); err != nil {
			return nil, err
		}
	}
	if err := c.wantDateTime(0); err != nil {
		return nil, err
	}
	c.localize(0)
	t := c.args[0].Type()
	switch unit {
	case "HOUR", "MINUTE", "SECOND", "MILLISECOND":
	default:
		if t.Kind == types.KindTime {
			return nil, c.errorf("a TIME has no %s", unit)
		}
	}
	if t.Kind == types.KindDate && (unit == "HOUR" || unit == "MINUTE" || unit == "SECOND" || unit == "MILLISECOND") {
		return nil, c.errorf("a DATE has no %s", unit)
	}
	return strict(types.TypeBigInt, false, c.args, func(v []any) (any, error) {
		days, nano, _ := civil(v[0])
		g := goTime(days, nano)
		switch unit {
		case "YEAR":
			return int64(g.Year()), nil
		case "QUARTER":
			return int64(g.Month()+2) / 3, nil
		case "MONTH":
			return int64(g.Month()), nil
		case "WEEK":
			_, w := g.ISOWeek()
			return int64(w), nil
		case "DAY":
			return int64(g.Day()), nil
		case "DOY":
			return int64(g.YearDay()), nil
		case "DOW":
			return int64(g.Weekday()) + 1, nil
		case "ISODOW":
			return (int64(g.Weekday())+6)%7 + 1, nil
		case "HOUR":
			return nano / 3600e9, nil
		case "MINUTE":
			return nano / 60e9 % 60, nil
		case "SECOND":
			return nano / 1e9 % 60, nil
		case "MILLISECOND":
			return nano / 1e6 % 1000, nil
		case "EPOCH":
			s, _ := floorDiv(days*nanosPerDay+nano, 1e9)
			return s, nil
		}
		return nil, nil
	}), nil
}

// addMonths adds n months to a day count, clamping the day to the
// month's last (Calcite's DateTimeUtils.addMonths).
func addMonths(days int64, n int64) int64 {
	g := goTime(days, 0)
	y, m, d := g.Year(), int64(g.Month())-1+n, g.Day()
	y += int(floorDivQ(m, 12))
	_, mm := floorDiv(m, 12)
	last := time.Date(y, time.Month(mm+2), 0, 0, 0, 0, 0, time.UTC).Day()
	d = min(d, last)
	return time.Date(y, time.Month(mm+1), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

func floorDivQ(a, n int64) int64 { q, _ := floorDiv(a, n); return q }

var addUnits = []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND"}

func compileTimestampAdd(c *call) (Expr, error) {
	if err := c.plainArity(3, 3); err != nil {
		return nil, err
	}
	unit, err := c.unitOf(c.f.Args[0], addUnits...)
	if err != nil {
		return nil, err
	}
	if err := c.wantInteger(1); err != nil {
		return nil, err
	}
	if err := c.wantDateTime(2); err != nil {
		return nil, err
	}
	t := c.args[2].Type()
	sub := unit == "HOUR" || unit == "MINUTE" || unit == "SECOND"
	switch {
	case t.Kind == types.KindDate && sub:
		t = types.Type{Kind: types.KindTimestamp, Length: 6}
	case t.Kind == types.KindTime && !sub:
		return nil, c.errorf("cannot add %s to a TIME", unit)
	}
	k := t.Kind
	return strict(t, false, c.args[1:], func(v []any) (any, error) {
		n := v[0].(int64)
		days, nano, _ := civil(v[1])
		// Past these, the result is out of every type's range, and the
		// products below would overflow.
		// (Hours, minutes and seconds count whole days first, which an
		// int64 of them cannot overflow.)
		per := map[string]int64{"YEAR": 12, "QUARTER": 3, "MONTH": 1, "WEEK": 7, "DAY": 1, "HOUR": 24, "MINUTE": 1440, "SECOND": 86400}[unit]
		limit := int64(math.MaxInt64)
		switch unit {
		case "YEAR", "QUARTER", "MONTH":
			limit = maxCivilMonths / per
		case "WEEK", "DAY":
			limit = 2 * maxCivilDays / per
		}
		var err error
		switch {
		case n > limit || n < -limit:
			err = timeRangeError{k}
		case unit == "YEAR" || unit == "QUARTER" || unit == "MONTH":
			days = addMonths(days, per*n)
		case unit == "WEEK":
			days += 7 * n
		case unit == "DAY":
			days += n
		default: // HOUR, MINUTE, SECOND: whole days, then the rest
			q, r := n/per, n%per
			days, nano = addDuration(days+q, nano, r*(millisPerDay/per))
		}
		var r any
		if err == nil {
			r, err = fromCivil(k, days, nano)
		}
		if err != nil {
			return nil, c.errorf("%d %s from %s: %v", n, unit, types.FormatValue(v[1], c.args[2].Type()), err)
		}
		return r, nil
	}), nil
}

// compileTimestampDiff counts whole units from the second argument to the
// third, toward zero; months compare as Calcite's subtractMonths does (a
// later day of month or time of day is not yet a whole month).
func compileTimestampDiff(c *call) (Expr, error) {
	if err := c.plainArity(3, 3); err != nil {
		return nil, err
	}
	unit, err := c.unitOf(c.f.Args[0], addUnits...)
	if err != nil {
		return nil, err
	}
	for _, i := range []int{1, 2} {
		if err := c.wantDateTime(i); err != nil {
			return nil, err
		}
	}
	return strict(types.TypeInt, false, c.args[1:], func(v []any) (any, error) {
		d1, n1, _ := civil(v[0])
		d2, n2, _ := civil(v[1])
		// The result is an INT, which wraps around as Flink's does (an
		// int of a long); the count itself is exact.
		switch unit {
		case "YEAR", "QUARTER", "MONTH":
			m := monthsBetween(d1, n1, d2, n2)
			return int64(int32(m / map[string]int64{"YEAR": 12, "QUARTER": 3, "MONTH": 1}[unit])), nil
		}
		per := map[string]int64{"WEEK": 7 * nanosPerDay, "DAY": nanosPerDay, "HOUR": 3600e9, "MINUTE": 60e9, "SECOND": 1e9}[unit]
		dd, dn := d2-d1, n2-n1
		if dd > -100_000 && dd < 100_000 { // the nanoseconds fit an int64
			return int64(int32((dd*nanosPerDay + dn) / per)), nil
		}
		diff := new(big.Int).Mul(big.NewInt(dd), big.NewInt(nanosPerDay))
		diff.Add(diff, big.NewInt(dn))
		diff.Quo(diff, big.NewInt(per))
		return int64(int32(diff.Int64())), nil
	}), nil
}

// monthsBetween is the number of whole months from (d1, n1) to (d2, n2),
// as Calcite's DateTimeUtils.subtractMonths counts them: by days, then
// one fewer when the days meet and the time of day of the later is
// earlier.
func monthsBetween(d1, n1, d2, n2 int64) int64 {
	x := monthsBetweenDays(d2, d1)
	if addMonths(d1, x) == d2 && n2 < n1 {
		x--
	}
	return x
}

// monthsBetweenDays is subtractMonths(date0, date1) of two day counts.
func monthsBetweenDays(date0, date1 int64) int64 {
	if date0 < date1 {
		return -monthsBetweenDays(date1, date0)
	}
	m := (date0 - date1) / 31 // no month has more than 31 days: at most the true value
	for {
		if addMonths(date1, m) >= date0 {
			return m
		}
		if addMonths(date1, m+1) > date0 {
			return m
		}
		m++
	}
}

var floorUnits = []string{"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MILLISECOND"}

// compileFloorCeilTime is FLOOR(t TO unit) and CEIL(t TO unit). Weeks
// start on Sunday, as in Flink.
func compileFloorCeilTime(c *call) (Expr, error) {
	f := c.f
	if f.Star || f.Distinct || f.Trim != "" || len(c.args) != 1 {
		return nil, c.errorf("the syntax is %s(t TO unit)", c.name)
	}
	word := string(f.To.Value)
	unit, ok := timeUnits[strings.ToUpper(word)]
	if !ok || !contains(floorUnits, unit) {
		return nil, sqlmini.Errorf(f.To.Pos, "%s: unknown time unit %s (use %s)", c.name, word, strings.Join(floorUnits, ", "))
	}
	if err := c.wantDateTime(0); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	loc := c.sc.zone()
	ltz := t.Kind == types.KindTimestampLTZ && !types.IsUTC(loc)
	if t.Kind == types.KindTime && !contains([]string{"HOUR", "MINUTE", "SECOND", "MILLISECOND"}, unit) {
		return nil, c.errorf("a TIME cannot be rounded to a %s", unit)
	}
	ceil := c.name != "FLOOR"
	k := t.Kind
	return strict(t, false, c.args, func(v []any) (any, error) {
		if in, ok := v[0].(types.Instant); ok && ltz {
			v[0] = types.InstantToLocal(in, loc)
		}
		days, nano, _ := civil(v[0])
		fd, fn := days, nano
		var next func() (int64, int64)
		switch unit {
		case "YEAR", "QUARTER", "MONTH":
			g := goTime(days, 0)
			months := map[string]int{"YEAR": 12, "QUARTER": 3, "MONTH": 1}[unit]
			m0 := (int(g.Month()) - 1) / months * months
			fd, fn = time.Date(g.Year(), time.Month(m0+1), 1, 0, 0, 0, 0, time.UTC).Unix()/86400, 0
			next = func() (int64, int64) { return addMonths(fd, int64(months)), 0 }
		case "WEEK":
			fd, fn = days-int64(goTime(days, 0).Weekday()), 0
			next = func() (int64, int64) { return fd + 7, 0 }
		default:
			per := map[string]int64{"DAY": nanosPerDay, "HOUR": 3600e9, "MINUTE": 60e9, "SECOND": 1e9, "MILLISECOND": 1e6}[unit]
			fn = nano - nano%per
			next = func() (int64, int64) { return fd, fn + per }
		}
		if ceil && (fd != days || fn != nano) {
			fd, fn = next()
		}
		if ltz {
			// The wall-clock time rounded, back to an instant.
			l, err := fromCivil(types.KindTimestamp, fd, fn)
			if err != nil {
				return nil, c.errorf("%v", err)
			}
			return types.LocalToInstant(l.(types.LocalDateTime), loc), nil
		}
		r, err := fromCivil(k, fd, fn)
		if err != nil {
			return nil, c.errorf("%v", err)
		}
		return r, nil
	}), nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// compileCurrentWatermark is CURRENT_WATERMARK(rowtime): the watermark
// that has passed the query's input before the row, as Flink's operator
// sees it; NULL before the first. Its argument is a rowtime attribute,
// whose type it has.
func compileCurrentWatermark(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	col, ok := c.args[0].(*Column)
	if !ok || c.sc == nil || col.Index >= c.sc.Schema.Len() || !c.sc.Schema.Columns[col.Index].TimeAttr {
		return nil, c.errorf("the argument of CURRENT_WATERMARK must be a rowtime attribute (a column with a WATERMARK declaration)")
	}
	cell := c.sc.Watermark
	if cell == nil {
		return nil, c.errorf("CURRENT_WATERMARK reads the watermark of a query's input in its SELECT list or WHERE clause, not here")
	}
	t := c.args[0].Type()
	t.NotNull = false
	ltz := t.Kind == types.KindTimestampLTZ
	return &funcExpr{t: t, f: func([]any) (any, error) {
		if !cell.Has {
			return nil, nil
		}
		if ltz {
			return types.Instant{Millis: cell.Wm}, nil
		}
		return types.LocalDateTime{Millis: cell.Wm}, nil
	}}, nil
}
