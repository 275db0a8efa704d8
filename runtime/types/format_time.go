package types

import "strconv"

// Dates, times, timestamps and intervals printed as Flink prints them (Java's
// LocalDate, LocalTime, Instant, Duration and Period, and CAST to STRING).

// appendISOTime appends HH:mm:ss and the fraction in groups of three
// digits when non-zero.
func appendISOTime(b []byte, nanoOfDay int64) []byte {
	secs := nanoOfDay / 1e9
	b = appendTwoDigits(b, int(secs/3600))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs/60%60))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs%60))
	return appendNanoGroups(b, nanoOfDay%1e9)
}

const fmtMillisPerDay = 86_400_000

// floorDivMod64 returns the floor quotient and the non-negative remainder.
func floorDivMod64(a, n int64) (q, r int64) {
	q, r = a/n, a%n
	if r < 0 {
		q--
		r += n
	}
	return q, r
}

// splitEpoch splits epoch milliseconds plus nanoseconds into days since
// 1970-01-01 and nanoseconds of the day.
func splitEpoch(millis int64, nanoOfMilli int32) (days, nanoOfDay int64) {
	days, ms := floorDivMod64(millis, fmtMillisPerDay)
	return days, ms*1e6 + int64(nanoOfMilli)
}

// dateFromEpochDay converts days since 1970-01-01 to a proleptic Gregorian
// date (Howard Hinnant's days_from_civil inverse).
func dateFromEpochDay(days int64) (year int64, month, day int) {
	z := days + 719468
	era, doe := floorDivMod64(z, 146097)
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	year = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		month = int(mp + 3)
	} else {
		month = int(mp - 9)
	}
	if month <= 2 {
		year++
	}
	return year, month, day
}

func appendTwoDigits(b []byte, n int) []byte {
	return append(b, byte('0'+n/10%10), byte('0'+n%10))
}

// appendYMD appends yyyy-MM-dd with a four-digit year (DateTimeUtils int4).
func appendYMD(b []byte, y int64, m, d int) []byte {
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	for p := int64(1000); p > 1 && y < p; p /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, y, 10)
	b = append(b, '-')
	b = appendTwoDigits(b, m)
	b = append(b, '-')
	return appendTwoDigits(b, d)
}

// appendLocalDate appends LocalDate.toString: four-digit years, a + before
// years above 9999, a - before negative ones.
func appendLocalDate(b []byte, days int64) []byte {
	y, m, d := dateFromEpochDay(days)
	if y > 9999 {
		b = append(b, '+')
	}
	return appendYMD(b, y, m, d)
}

// appendLocalTime appends LocalTime.toString of a nanosecond of the day:
// HH:mm, then :ss when seconds or nanos are non-zero, then the fraction in
// groups of three digits when non-zero.
func appendLocalTime(b []byte, nanoOfDay int64) []byte {
	secs, nano := nanoOfDay/1e9, nanoOfDay%1e9
	b = appendTwoDigits(b, int(secs/3600))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs/60%60))
	if secs%60 != 0 || nano != 0 {
		b = append(b, ':')
		b = appendTwoDigits(b, int(secs%60))
		b = appendNanoGroups(b, nano)
	}
	return b
}

// appendNanoGroups appends .SSS, .SSSSSS or .SSSSSSSSS, the shortest that
// holds nano, or nothing for zero (java.time's rule).
func appendNanoGroups(b []byte, nano int64) []byte {
	if nano == 0 {
		return b
	}
	switch {
	case nano%1e6 == 0:
		return appendZeroPadded(append(b, '.'), nano/1e6, 3)
	case nano%1e3 == 0:
		return appendZeroPadded(append(b, '.'), nano/1e3, 6)
	}
	return appendZeroPadded(append(b, '.'), nano, 9)
}

// appendZeroPadded appends n >= 0 left-padded with zeros to width digits.
func appendZeroPadded(b []byte, n int64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], n, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// appendInstant appends Instant.toString (DateTimeFormatter.ISO_INSTANT):
// seconds always, fraction in groups of three when non-zero, then Z.
func appendInstant(b []byte, x Instant) []byte {
	days, nanos := splitEpoch(x.Millis, x.NanoOfMilli)
	b = appendLocalDate(b, days)
	b = append(b, 'T')
	secs := nanos / 1e9
	b = appendTwoDigits(b, int(secs/3600))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs/60%60))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs%60))
	b = appendNanoGroups(b, nanos%1e9)
	return append(b, 'Z')
}

// appendJavaDuration appends Duration.ofMillis(ms).toString(): PT0S, PT1S,
// PT1M30S, PT48H, PT-0.001S, PT-1M-1S (hours are not split into days).
func appendJavaDuration(b []byte, ms int64) []byte {
	if ms == 0 {
		return append(b, "PT0S"...)
	}
	seconds, msRest := floorDivMod64(ms, 1000)
	nanos := msRest * 1e6
	eff := seconds
	if seconds < 0 && nanos > 0 {
		eff++
	}
	hours, minutes, secs := eff/3600, eff%3600/60, eff%60
	b = append(b, "PT"...)
	if hours != 0 {
		b = strconv.AppendInt(b, hours, 10)
		b = append(b, 'H')
	}
	if minutes != 0 {
		b = strconv.AppendInt(b, minutes, 10)
		b = append(b, 'M')
	}
	if secs == 0 && nanos == 0 && (hours != 0 || minutes != 0) {
		return b
	}
	if seconds < 0 && nanos > 0 && secs == 0 {
		b = append(b, "-0"...)
	} else {
		b = strconv.AppendInt(b, secs, 10)
	}
	if nanos > 0 {
		frac := nanos
		if seconds < 0 {
			frac = 1e9 - nanos
		}
		var buf [12]byte
		s := strconv.AppendInt(buf[:0], frac+1e9, 10)[1:] // nine digits
		for len(s) > 0 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		b = append(b, '.')
		b = append(b, s...)
	}
	return append(b, 'S')
}

// appendJavaPeriod appends the toString of the Period that Flink's
// YearMonthIntervalPeriodConverter makes for YEAR TO MONTH resolution,
// Period.of(months / 12, months % 12, 0): P0D, P1Y, P2M, P1Y2M, P-1Y-2M.
func appendJavaPeriod(b []byte, months int32) []byte {
	if months == 0 {
		return append(b, "P0D"...)
	}
	b = append(b, 'P')
	if y := months / 12; y != 0 {
		b = strconv.AppendInt(b, int64(y), 10)
		b = append(b, 'Y')
	}
	if m := months % 12; m != 0 {
		b = strconv.AppendInt(b, int64(m), 10)
		b = append(b, 'M')
	}
	return b
}

// appendCastTime appends DateTimeUtils.formatTimestampMillis(ms, p):
// HH:mm:ss, and for p > 0 a point and at least one digit, stopping when the
// remaining digits are zero (12:00:00.0, 12:00:00.5, 12:00:00.123).
func appendCastTime(b []byte, msOfDay int64, p int) []byte {
	_, msOfDay = floorDivMod64(msOfDay, fmtMillisPerDay)
	b = appendTwoDigits(b, int(msOfDay/3_600_000))
	b = append(b, ':')
	b = appendTwoDigits(b, int(msOfDay/60_000%60))
	b = append(b, ':')
	b = appendTwoDigits(b, int(msOfDay/1000%60))
	if p > 0 {
		b = append(b, '.')
		ms := msOfDay % 1000
		for ; p > 0; p-- {
			b = append(b, byte('0'+ms/100))
			ms = ms % 100 * 10
			if ms == 0 {
				break
			}
		}
	}
	return b
}

// appendCastTimestamp appends DateTimeUtils.formatTimestamp(ts, p):
// yyyy-MM-dd HH:mm:ss and the nine-digit fraction with trailing zeros
// removed while it is longer than p.
func appendCastTimestamp(b []byte, millis int64, nanoOfMilli int32, p int) []byte {
	days, nanos := splitEpoch(millis, nanoOfMilli)
	y, m, d := dateFromEpochDay(days)
	b = appendYMD(b, y, m, d)
	b = append(b, ' ')
	secs := nanos / 1e9
	b = appendTwoDigits(b, int(secs/3600))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs/60%60))
	b = append(b, ':')
	b = appendTwoDigits(b, int(secs%60))
	var buf [16]byte
	frac := appendZeroPadded(buf[:0], nanos%1e9, 9)
	for len(frac) > p && len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	if len(frac) > 0 {
		b = append(b, '.')
		b = append(b, frac...)
	}
	return b
}

// appendCastDayTime appends DateTimeUtils.formatIntervalDayTime(ms):
// sign, days, HH:mm:ss.SSS (+0 00:00:01.000).
func appendCastDayTime(b []byte, ms int64) []byte {
	u := uint64(ms)
	if ms >= 0 {
		b = append(b, '+')
	} else {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/fmtMillisPerDay, 10)
	b = append(b, ' ')
	rest := int64(u % fmtMillisPerDay)
	b = appendTwoDigits(b, int(rest/3_600_000))
	b = append(b, ':')
	b = appendTwoDigits(b, int(rest/60_000%60))
	b = append(b, ':')
	b = appendTwoDigits(b, int(rest/1000%60))
	b = append(b, '.')
	return appendZeroPadded(b, rest%1000, 3)
}

// appendCastYearMonth appends DateTimeUtils.formatIntervalYearMonth(m):
// sign, years, two-digit months (+1-02, -0-03).
func appendCastYearMonth(b []byte, months int64) []byte {
	if months >= 0 {
		b = append(b, '+')
	} else {
		b = append(b, '-')
		months = -months
	}
	b = strconv.AppendInt(b, months/12, 10)
	b = append(b, '-')
	return appendZeroPadded(b, months%12, 2)
}
