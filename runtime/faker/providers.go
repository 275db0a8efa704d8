package faker

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// builder makes a directive from its arguments, checking them.
type builder struct {
	// alias is a second spelling (harry_potter.characters beside
	// .character), left out of the lists of methods in messages.
	alias bool
	// display is the method as Java Faker spells it.
	display string
	build   func(name string, args []string) (*directive, error)
}

// builders maps a canonical name (canonical) to its builder.
var builders = map[string]builder{}

func lookup(name string) (builder, bool) {
	b, ok := builders[canonical(name)]
	return b, ok
}

// Providers lists the providers, sorted, as they are spelled in messages.
func Providers() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range providerNames {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// providerNames are the providers as Java Faker spells them.
var providerNames []string

func sortStrings(s []string) { sort.Strings(s) }

// register adds methods of a provider ("" for the faker's own methods).
// The first spelling of a name is shown in messages; the others are
// aliases.
func register(provider string, methods map[string]builder) {
	if provider != "" {
		providerNames = append(providerNames, provider)
	}
	for m, b := range methods {
		for i, spelling := range strings.Split(m, "|") {
			key := canonical(spelling)
			if provider != "" {
				key = canonical(provider) + "." + key
			}
			b := b
			b.alias = b.alias || i > 0
			b.display = spelling
			builders[key] = b
		}
	}
}

// arity checks the number of arguments.
func arity(args []string, lo, hi int) error {
	if len(args) < lo || len(args) > hi {
		want := strconv.Itoa(lo)
		switch {
		case hi > lo && hi < math.MaxInt:
			want = fmt.Sprintf("%d to %d", lo, hi)
		case hi > lo:
			want = fmt.Sprintf("at least %d", lo)
		}
		return fmt.Errorf("takes %s arguments, not %d", want, len(args))
	}
	return nil
}

// intArg reads argument i as a whole number.
func intArg(args []string, i int) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(args[i]), 10, 64)
	if err != nil {
		return 0, &argError{i, fmt.Sprintf("argument %d needs a whole number, not '%s'", i+1, args[i])}
	}
	return n, nil
}

// text is a directive of no arguments that appends a string.
func text(f func(g *Gen) string) builder {
	return builder{build: func(name string, args []string) (*directive, error) {
		if err := arity(args, 0, 0); err != nil {
			return nil, err
		}
		return &directive{name: name, text: func(g *Gen, dst []byte) []byte { return append(dst, f(g)...) }}, nil
	}}
}

// fake is a directive of no arguments answered by gofakeit.
func fake(f func(f *gofakeit.Faker) string) builder {
	return text(func(g *Gen) string { return f(g.f) })
}

// pick is a directive of no arguments that picks one of a list.
func pick(list ...string) builder {
	return text(func(g *Gen) string { return list[g.r.IntN(len(list))] })
}

// intDirective is a directive of a whole number.
func intDirective(name string, f func(g *Gen) int64) *directive {
	return &directive{name: name, num: f, text: func(g *Gen, dst []byte) []byte { return strconv.AppendInt(dst, f(g), 10) }}
}

// timeDirective is a directive of a time, written as java.sql.Timestamp
// writes it (2025-03-27 12:00:00.5, UTC).
func timeDirective(name string, f func(g *Gen) int64) *directive {
	return &directive{name: name, tm: f, text: func(g *Gen, dst []byte) []byte { return AppendTimestamp(dst, f(g)) }}
}

// AppendTimestamp appends epoch milliseconds ms as java.sql.Timestamp's
// toString writes them, in UTC: yyyy-MM-dd HH:mm:ss.f, the fraction without
// trailing zeros but with at least one digit.
func AppendTimestamp(dst []byte, ms int64) []byte {
	t := time.UnixMilli(ms).UTC()
	dst = t.AppendFormat(dst, "2006-01-02 15:04:05")
	frac := ms % 1000
	if frac < 0 {
		frac += 1000
	}
	dst = append(dst, '.')
	switch {
	case frac == 0:
		return append(dst, '0')
	case frac%100 == 0:
		return append(dst, byte('0'+frac/100))
	case frac%10 == 0:
		return append(dst, byte('0'+frac/100), byte('0'+frac/10%10))
	}
	return append(dst, byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
}

// appendJavaDouble appends f as Java's Double.toString writes it: at least
// one decimal (10.0), and scientific notation below 1e-3 and from 1e7 on.
func appendJavaDouble(dst []byte, f float64) []byte {
	a := math.Abs(f)
	if a != 0 && (a < 1e-3 || a >= 1e7) {
		s := strconv.FormatFloat(f, 'E', -1, 64)
		mant, exp, _ := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		exp = strings.TrimPrefix(exp, "+")
		return append(append(append(dst, mant...), 'E'), exp...)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// timeUnits are java.util.concurrent.TimeUnit's names, in milliseconds
// (the finer units count as whole milliseconds).
var timeUnits = map[string]int64{
	"NANOSECONDS": 0, "MICROSECONDS": 0, "MILLISECONDS": 1, "SECONDS": 1000,
	"MINUTES": 60_000, "HOURS": 3_600_000, "DAYS": 86_400_000,
}

// pastFuture builds date.past and date.future: 'atMost','unit' (a time
// within atMost units) or 'atMost','minimum','unit' (at least minimum
// units away), relative to the processing-time clock.
func pastFuture(sign int64) builder {
	return builder{build: func(name string, args []string) (*directive, error) {
		if err := arity(args, 2, 3); err != nil {
			return nil, err
		}
		unitArg := len(args) - 1
		unit, ok := timeUnits[strings.ToUpper(strings.TrimSpace(args[unitArg]))]
		if !ok {
			return nil, &argError{unitArg, fmt.Sprintf("the unit '%s' is not one of DAYS, HOURS, MINUTES, SECONDS, MILLISECONDS", args[unitArg])}
		}
		atMost, err := intArg(args, 0)
		if err != nil {
			return nil, err
		}
		var least int64
		if len(args) == 3 {
			if least, err = intArg(args, 1); err != nil {
				return nil, err
			}
		}
		if atMost < 0 || least < 0 || least > atMost || atMost > math.MaxInt64/max(unit, 1)/2 {
			return nil, fmt.Errorf("needs 0 <= minimum <= atMost (and a span that fits in 64 bits), not atMost %d and minimum %d", atMost, least)
		}
		hi, lo := atMost*unit, least*unit
		if len(args) == 2 {
			lo = min(1, hi) // Java Faker's past(n, unit) is at least a millisecond away
		}
		return timeDirective(name, func(g *Gen) int64 {
			d := lo
			if hi > lo {
				d += g.r.Int64N(hi - lo)
			}
			return g.Now() + sign*d
		}), nil
	}}
}

// stringArg reads a time argument as a timestamp.
func timeArg(args []string, i int) (int64, error) {
	s := strings.TrimSpace(args[i])
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	return 0, &argError{i, fmt.Sprintf("argument %d needs a time ('2025-03-27 12:00:00' or epoch milliseconds), not '%s'", i+1, args[i])}
}

const msPerYear = 365*86_400_000 + 86_400_000/4

func init() {
	register("", map[string]builder{
		"regexify": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 1, 1); err != nil {
				return nil, err
			}
			re, err := compileRegex(args[0])
			if err != nil {
				return nil, &argError{0, err.Error()}
			}
			return &directive{name: name, text: re.gen}, nil
		}},
		"numerify":  replacer(true, false),
		"letterify": replacer(false, true),
		"bothify":   replacer(true, true),
	})
	register("Options", map[string]builder{
		"option": {build: func(name string, args []string) (*directive, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("takes the options to pick from: #{Options.option 'A','B'}")
			}
			opts := append([]string(nil), args...)
			return &directive{name: name, text: func(g *Gen, dst []byte) []byte { return append(dst, opts[g.r.IntN(len(opts))]...) }}, nil
		}},
	})
	register("Bool", map[string]builder{"bool": pick("true", "false")})
	register("number", numberMethods())
	register("date", map[string]builder{
		"past":   pastFuture(-1),
		"future": pastFuture(1),
		"between": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 2, 2); err != nil {
				return nil, err
			}
			from, err := timeArg(args, 0)
			if err != nil {
				return nil, err
			}
			to, err := timeArg(args, 1)
			if err != nil {
				return nil, err
			}
			if to <= from {
				return nil, fmt.Errorf("needs the first time before the second")
			}
			return timeDirective(name, func(g *Gen) int64 { return from + g.r.Int64N(to-from) }), nil
		}},
		"birthday": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 2); err != nil {
				return nil, err
			}
			lo, hi := int64(18), int64(65)
			if len(args) == 1 {
				return nil, fmt.Errorf("takes no arguments or a minimum and a maximum age")
			}
			if len(args) == 2 {
				var err error
				if lo, err = intArg(args, 0); err != nil {
					return nil, err
				}
				if hi, err = intArg(args, 1); err != nil {
					return nil, err
				}
				if lo < 0 || hi < lo || hi > 1000 {
					return nil, fmt.Errorf("needs 0 <= minimum age <= maximum age <= 1000, not %d and %d", lo, hi)
				}
			}
			return timeDirective(name, func(g *Gen) int64 {
				span := (hi - lo) * msPerYear
				d := lo * msPerYear
				if span > 0 {
					d += g.r.Int64N(span)
				}
				return (g.Now() - d) / 86_400_000 * 86_400_000
			}), nil
		}},
	})
	registerPeople()
	registerFun()
}

// replacer builds numerify (# → digit), letterify (? → letter) and
// bothify (both).
func replacer(digits, letters bool) builder {
	return builder{build: func(name string, args []string) (*directive, error) {
		if err := arity(args, 1, 2); err != nil {
			return nil, err
		}
		upper := false
		if len(args) == 2 {
			b, err := strconv.ParseBool(strings.TrimSpace(args[1]))
			if err != nil {
				return nil, &argError{1, fmt.Sprintf("argument 2 says whether letters are upper case: 'true' or 'false', not '%s'", args[1])}
			}
			upper = b
		}
		pattern := args[0]
		base := byte('a')
		if upper {
			base = 'A'
		}
		return &directive{name: name, text: func(g *Gen, dst []byte) []byte {
			for i := 0; i < len(pattern); i++ {
				c := pattern[i]
				switch {
				case digits && c == '#':
					c = byte('0' + g.r.IntN(10))
				case letters && c == '?':
					c = base + byte(g.r.IntN(26))
				}
				dst = append(dst, c)
			}
			return dst
		}}, nil
	}}
}

func numberMethods() map[string]builder {
	return map[string]builder{
		"numberBetween": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 2, 2); err != nil {
				return nil, err
			}
			lo, err := intArg(args, 0)
			if err != nil {
				return nil, err
			}
			hi, err := intArg(args, 1)
			if err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, fmt.Errorf("needs the minimum (%d) at most the maximum (%d)", lo, hi)
			}
			if hi-lo < 0 { // the span overflows
				return nil, fmt.Errorf("the span from %d to %d does not fit in 64 bits", lo, hi)
			}
			// Java Faker's numberBetween includes the minimum, not the maximum.
			return intDirective(name, func(g *Gen) int64 {
				if hi == lo {
					return lo
				}
				return lo + g.r.Int64N(hi-lo)
			}), nil
		}},
		"randomDouble": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 3, 3); err != nil {
				return nil, err
			}
			dec, err := intArg(args, 0)
			if err != nil {
				return nil, err
			}
			lo, err := intArg(args, 1)
			if err != nil {
				return nil, err
			}
			hi, err := intArg(args, 2)
			if err != nil {
				return nil, err
			}
			if dec < 0 || dec > 15 || hi < lo {
				return nil, fmt.Errorf("needs 0 to 15 decimals and a minimum at most the maximum, not %d, %d, %d", dec, lo, hi)
			}
			scale := math.Pow10(int(dec))
			flo, fhi := float64(lo), float64(hi)
			return &directive{name: name, text: func(g *Gen, dst []byte) []byte {
				v := flo + (fhi-flo)*g.r.Float64()
				v = math.Round(v*scale) / scale
				return appendJavaDouble(dst, v)
			}}, nil
		}},
		"randomNumber": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 2); err != nil {
				return nil, err
			}
			digits, strict := int64(0), false
			if len(args) >= 1 {
				var err error
				if digits, err = intArg(args, 0); err != nil {
					return nil, err
				}
				if digits < 1 || digits > 18 {
					return nil, &argError{0, fmt.Sprintf("needs 1 to 18 digits, not %d", digits)}
				}
			}
			if len(args) == 2 {
				b, err := strconv.ParseBool(strings.TrimSpace(args[1]))
				if err != nil {
					return nil, &argError{1, fmt.Sprintf("argument 2 (strict) needs 'true' or 'false', not '%s'", args[1])}
				}
				strict = b
			}
			return intDirective(name, func(g *Gen) int64 {
				n := digits
				if n == 0 {
					n = 1 + g.r.Int64N(10)
				}
				hi := int64(math.Pow10(int(n)))
				if strict {
					lo := hi / 10
					return lo + g.r.Int64N(hi-lo)
				}
				return g.r.Int64N(hi)
			}), nil
		}},
		"digit|randomDigit": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 0); err != nil {
				return nil, err
			}
			return intDirective(name, func(g *Gen) int64 { return g.r.Int64N(10) }), nil
		}},
		"randomDigitNotZero": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 0); err != nil {
				return nil, err
			}
			return intDirective(name, func(g *Gen) int64 { return 1 + g.r.Int64N(9) }), nil
		}},
		"digits": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 1, 1); err != nil {
				return nil, err
			}
			n, err := intArg(args, 0)
			if err != nil {
				return nil, err
			}
			if n < 1 || n > 1<<12 {
				return nil, &argError{0, fmt.Sprintf("needs 1 to %d digits, not %d", 1<<12, n)}
			}
			return &directive{name: name, text: func(g *Gen, dst []byte) []byte {
				for range n {
					dst = append(dst, byte('0'+g.r.IntN(10)))
				}
				return dst
			}}, nil
		}},
		"positive": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 0); err != nil {
				return nil, err
			}
			return intDirective(name, func(g *Gen) int64 { return 1 + g.r.Int64N(math.MaxInt32) }), nil
		}},
		"negative": {build: func(name string, args []string) (*directive, error) {
			if err := arity(args, 0, 0); err != nil {
				return nil, err
			}
			return intDirective(name, func(g *Gen) int64 { return -1 - g.r.Int64N(math.MaxInt32) }), nil
		}},
	}
}
