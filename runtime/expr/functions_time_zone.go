package expr

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // CONVERT_TZ knows the zones on a machine without a zone database

	"github.com/ptfsh/ptfsh/runtime/types"
)

// The session time zone and clock: CURRENT_TIMESTAMP and its relatives,
// CONVERT_TZ, and the reading of a TIMESTAMP_LTZ as wall-clock time.

// zone returns the session time zone (UTC by default).
func (s *Scope) zone() *time.Location {
	if s != nil && s.Zone != nil {
		return s.Zone
	}
	return time.UTC
}

// localize makes argument i, when it is a TIMESTAMP_LTZ, the TIMESTAMP of
// its wall-clock time in the session time zone, for a function that reads
// its fields.
func (c *call) localize(i int) {
	x, loc := c.args[i], c.sc.zone()
	t := x.Type()
	if t.Kind != types.KindTimestampLTZ || types.IsUTC(loc) {
		return
	}
	lt := types.Type{Kind: types.KindTimestamp, Length: t.Length, NotNull: t.NotNull}
	c.args[i] = &funcExpr{t: lt, konst: x.IsConstant(), f: func(row []any) (any, error) {
		v, err := x.Eval(row)
		if in, ok := v.(types.Instant); ok && err == nil {
			return types.InstantToLocal(in, loc), nil
		}
		return v, err
	}}
}

// now returns the scope's clock (epoch milliseconds), the wall clock by
// default.
func (s *Scope) now() func() int64 {
	if s != nil && s.Now != nil {
		return s.Now
	}
	return func() int64 { return time.Now().UnixMilli() }
}

// compileNow is CURRENT_TIMESTAMP and its relatives: the clock is read
// for each row, as Flink's streaming mode evaluates them per record.
func compileNow(c *call) (Expr, error) {
	if err := c.plainArity(0, 0); err != nil {
		return nil, err
	}
	now := c.sc.now()
	var t types.Type
	switch c.name {
	case "LOCALTIMESTAMP":
		t = types.TypeTimestamp3
	case "CURRENT_DATE":
		t = types.Type{Kind: types.KindDate}
	case "CURRENT_TIME", "LOCALTIME":
		t = types.Type{Kind: types.KindTime}
	default:
		t = types.TypeTimestampLTZ
	}
	t.NotNull = true
	k := t.Kind
	loc := c.sc.zone()
	return &funcExpr{t: t, f: func([]any) (any, error) {
		ms := now()
		if k != types.KindTimestampLTZ {
			// The wall clock of the session time zone.
			ms = types.InstantToLocal(types.Instant{Millis: ms}, loc).Millis
		}
		if k == types.KindTime {
			ms -= ms % 1000
		}
		days, msOfDay := floorDiv(ms, millisPerDay)
		return fromCivil(k, days, msOfDay*nanosPerMilli)
	}}, nil
}

// compileConvertTz is CONVERT_TZ(s, from, to): the date-time text s
// ('yyyy-MM-dd HH:mm:ss'; a fraction after it is ignored, as Flink's
// parser ignores what follows the pattern) read in time zone from and
// written in time zone to, as 'yyyy-MM-dd HH:mm:ss'. Zones are IANA names
// (Europe/Rome), UTC, or offsets such as GMT+01:00. NULL when s does not
// read as a date-time.
func compileConvertTz(c *call) (Expr, error) {
	if err := c.plainArity(3, 3); err != nil {
		return nil, err
	}
	for i := range 3 {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	return strict(types.TypeString, true, c.args, func(v []any) (any, error) {
		from, to := loadZone(v[1].(string)), loadZone(v[2].(string))
		s := strings.TrimSpace(v[0].(string))
		if len(s) > 19 {
			s = s[:19]
		}
		t, err := time.ParseInLocation("2006-01-02 15:04:05", s, from)
		if err != nil {
			return nil, nil
		}
		return t.In(to).Format("2006-01-02 15:04:05"), nil
	}), nil
}

// zones caches the time zones CONVERT_TZ has loaded.
var zones sync.Map // string -> *time.Location

// zoneOffset is a zone given as an offset: GMT+01:00, UTC-5, GMT+0530.
var zoneOffset = regexp.MustCompile(`^(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?$`)

// loadZone reads a time zone: an IANA name, UTC or Z, or GMT/UTC followed
// by an offset (+01:00, -0530), as Java's TimeZone.getTimeZone takes them;
// a name it does not know is UTC, as that method makes it GMT (Flink's
// CONVERT_TZ converts from 'Mars/Olympus' as from UTC).
func loadZone(name string) *time.Location {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	var loc *time.Location
	up := strings.ToUpper(name)
	switch {
	case up == "UTC" || up == "GMT" || up == "Z":
		loc = time.UTC
	case zoneOffset.MatchString(up):
		m := zoneOffset.FindStringSubmatch(up)
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi("0" + m[3])
		if h > 23 || mins > 59 {
			loc = time.UTC
			break
		}
		off := h*3600 + mins*60
		if m[1] == "-" {
			off = -off
		}
		loc = time.FixedZone(name, off)
	default:
		l, err := time.LoadLocation(name)
		if err != nil || name == "Local" || name == "" {
			l = time.UTC // Go's Local and "" are none of Java's
		}
		loc = l
	}
	zones.Store(name, loc)
	return loc
}
