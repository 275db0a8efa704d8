package expr

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// PRINTF(format, args...) formats as Flink 2.x's PrintfFunction does: Java's
// java.util.Formatter with Locale.US over the arguments' internal values (a
// DATE is its day count, a TIME its milliseconds of the day, a DECIMAL a
// DecimalData that only %s prints, a TIMESTAMP or TIMESTAMP_LTZ prints as
// LocalDateTime.toString in UTC), NULL when the format is NULL or when Java's
// Formatter throws (a missing argument, a conversion the argument's class
// does not take, flags that do not go together).

// errPrintfJava is a format that Java's Formatter refuses: PRINTF gives NULL.
var errPrintfJava = errors.New("refused by java.util.Formatter")

// printfArg is an argument as the Formatter sees it: its internal value and
// the Java class that holds it.
type printfArg struct {
	v    any
	kind printfClass
	bits int // width of an integral class: 8, 16, 32 or 64
}

type printfClass uint8

const (
	pcNull  printfClass = iota
	pcInt               // Byte, Short, Integer, Long
	pcFloat             // Float, Double
	pcBool
	pcString // BinaryStringData and the rest that only %s, %b and %h take
	pcOther
)

// printfArgOf maps a SQL value of type t to the Java object Flink passes.
func printfArgOf(v any, t types.Type) (printfArg, error) {
	if v == nil {
		return printfArg{kind: pcNull}, nil
	}
	switch x := v.(type) {
	case bool:
		return printfArg{v: x, kind: pcBool}, nil
	case int64:
		bits := 64
		switch t.Kind {
		case types.KindTinyInt:
			bits = 8
		case types.KindSmallInt:
			bits = 16
		case types.KindInt:
			bits = 32
		}
		return printfArg{v: x, kind: pcInt, bits: bits}, nil
	case float64:
		if t.Kind == types.KindFloat {
			return printfArg{v: x, kind: pcFloat, bits: 32}, nil
		}
		return printfArg{v: x, kind: pcFloat, bits: 64}, nil
	case string:
		return printfArg{v: x, kind: pcString}, nil
	case types.Decimal:
		return printfArg{v: types.FormatValue(x, t), kind: pcOther}, nil
	case types.Date:
		return printfArg{v: int64(x), kind: pcInt, bits: 32}, nil
	case types.TimeOfDay:
		return printfArg{v: int64(x) / 1e6, kind: pcInt, bits: 32}, nil
	case types.Period:
		return printfArg{v: int64(x), kind: pcInt, bits: 32}, nil
	case types.Duration:
		return printfArg{v: int64(x), kind: pcInt, bits: 64}, nil
	case types.LocalDateTime:
		return printfArg{v: types.FormatValue(x, t), kind: pcOther}, nil
	case types.Instant:
		ldt := types.LocalDateTime(x)
		return printfArg{v: types.FormatValue(ldt, types.Type{Kind: types.KindTimestamp, Length: t.Length}), kind: pcOther}, nil
	}
	return printfArg{}, errors.New("PRINTF takes numbers, strings, booleans, temporal values and intervals: Java prints other values (arrays, maps, rows, bytes) by their object identity")
}

// printfSpec is one %[index$][flags][width][.precision]conversion.
type printfSpec struct {
	index     int // 0: the next ordinary argument; -1: the previous one (%<s)
	flags     string
	width     int // -1: none
	precision int // -1: none
	conv      byte
}

func (s printfSpec) has(f byte) bool { return strings.IndexByte(s.flags, f) >= 0 }

// javaPrintf formats args by format as java.util.Formatter does.
func javaPrintf(format string, args []printfArg) (string, error) {
	var b strings.Builder
	ordinary, last := 0, -1
	for i := 0; i < len(format); {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			i++
			continue
		}
		spec, n, err := parsePrintfSpec(format[i+1:])
		if err != nil {
			return "", err
		}
		i += 1 + n
		switch spec.conv {
		case '%':
			if spec.precision >= 0 || strings.Trim(spec.flags, "-") != "" || spec.has('-') && spec.width < 0 {
				return "", errPrintfJava
			}
			b.WriteString(pad("%", spec))
			continue
		case 'n':
			if spec.flags != "" || spec.width >= 0 || spec.precision >= 0 {
				return "", errPrintfJava
			}
			b.WriteByte('\n')
			continue
		}
		var arg printfArg
		switch {
		case spec.index == -1:
			if last < 0 || last >= len(args) {
				return "", errPrintfJava
			}
			arg = args[last]
		case spec.index > 0:
			if spec.index > len(args) {
				return "", errPrintfJava
			}
			last = spec.index - 1
			arg = args[last]
		default:
			if ordinary >= len(args) {
				return "", errPrintfJava
			}
			last = ordinary
			arg = args[ordinary]
			ordinary++
		}
		out, err := formatPrintfArg(spec, arg)
		if err != nil {
			return "", err
		}
		b.WriteString(out)
	}
	return b.String(), nil
}

// parsePrintfSpec reads a specifier after its %; n is its length.
func parsePrintfSpec(s string) (spec printfSpec, n int, err error) {
	spec.width, spec.precision = -1, -1
	i := 0
	digits := func() (int, bool) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, false
		}
		v, err := strconv.Atoi(s[i:j])
		if err != nil {
			v = math.MaxInt32
		}
		i = j
		return v, true
	}
	// An argument index: digits then '$', or '<'.
	if i < len(s) && s[i] == '<' {
		spec.index = -1
		i++
	} else {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > i && j < len(s) && s[j] == '$' && s[i] != '0' {
			v, _ := digits()
			spec.index = v
			i++
		}
	}
	for i < len(s) && strings.IndexByte("-#+ 0,(", s[i]) >= 0 {
		if strings.IndexByte(spec.flags, s[i]) >= 0 {
			return spec, 0, errPrintfJava // DuplicateFormatFlagsException
		}
		spec.flags += s[i : i+1]
		i++
	}
	if w, ok := digits(); ok {
		spec.width = w
	}
	if i < len(s) && s[i] == '.' {
		i++
		p, ok := digits()
		if !ok {
			return spec, 0, errPrintfJava
		}
		spec.precision = p
	}
	if i >= len(s) {
		return spec, 0, errPrintfJava // UnknownFormatConversionException
	}
	spec.conv = s[i]
	if strings.IndexByte("bBhHsScCdoxXeEfgGaAtT%n", spec.conv) < 0 {
		return spec, 0, errPrintfJava
	}
	if (spec.has('-') || spec.has('0')) && spec.width < 0 && spec.conv != 'n' {
		return spec, 0, errPrintfJava // MissingFormatWidthException
	}
	if spec.has('-') && spec.has('0') || spec.has('+') && spec.has(' ') {
		return spec, 0, errPrintfJava // IllegalFormatFlagsException
	}
	return spec, i + 1, nil
}

// pad fits s to the width, on the left (or on the right with '-').
func pad(s string, spec printfSpec) string {
	n := utf8.RuneCountInString(s)
	if spec.width <= n {
		return s
	}
	fill := strings.Repeat(" ", spec.width-n)
	if spec.has('-') {
		return s + fill
	}
	return fill + s
}

func formatPrintfArg(spec printfSpec, a printfArg) (string, error) {
	upper := spec.conv >= 'A' && spec.conv <= 'Z'
	conv := spec.conv | 0x20
	var s string
	switch conv {
	case 'b', 's', 'h':
		if strings.Trim(spec.flags, "-") != "" {
			return "", errPrintfJava // FormatFlagsConversionMismatchException
		}
		switch {
		case conv == 'b' && a.kind == pcNull:
			s = "false"
		case conv == 'b' && a.kind == pcBool:
			s = strconv.FormatBool(a.v.(bool))
		case conv == 'b':
			s = "true"
		case a.kind == pcNull:
			s = "null"
		case conv == 'h':
			return "", errors.New("PRINTF: %h (Java's hashCode) is not supported")
		default:
			s = printfString(a)
		}
		if spec.precision >= 0 && spec.precision < utf8.RuneCountInString(s) {
			s = string([]rune(s)[:spec.precision])
		}
	case 'c':
		if spec.precision >= 0 || strings.Trim(spec.flags, "-") != "" {
			return "", errPrintfJava
		}
		switch a.kind {
		case pcNull:
			s = "null"
		case pcInt:
			if a.bits == 64 {
				return "", errPrintfJava // Long is not a character
			}
			r := a.v.(int64)
			if r < 0 || r > utf8.MaxRune {
				return "", errPrintfJava
			}
			s = string(rune(r))
		default:
			return "", errPrintfJava
		}
	case 'd', 'o', 'x':
		if spec.precision >= 0 {
			return "", errPrintfJava
		}
		switch a.kind {
		case pcNull:
			s = "null"
		case pcInt:
			var err error
			if s, err = formatJavaInteger(spec, conv, a); err != nil {
				return "", err
			}
		default:
			return "", errPrintfJava
		}
	case 'e', 'f', 'g':
		switch a.kind {
		case pcNull:
			s = "null"
		case pcFloat:
			var err error
			if s, err = formatJavaFloat(spec, conv, a.v.(float64), a.bits); err != nil {
				return "", err
			}
		default:
			return "", errPrintfJava
		}
	default: // 'a', 't'
		if a.kind == pcNull {
			s = "null"
			break
		}
		return "", errors.New("PRINTF: %a and %t are not supported")
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return pad(s, spec), nil
}

// printfString is Java's toString of an argument.
func printfString(a printfArg) string {
	switch a.kind {
	case pcInt:
		return strconv.FormatInt(a.v.(int64), 10)
	case pcFloat:
		if a.bits == 32 {
			return types.FormatValue(a.v.(float64), types.Type{Kind: types.KindFloat})
		}
		return types.FormatValue(a.v.(float64), types.Type{Kind: types.KindDouble})
	case pcBool:
		return strconv.FormatBool(a.v.(bool))
	}
	return a.v.(string)
}

// formatJavaInteger is %d, %o and %x of an integral value.
func formatJavaInteger(spec printfSpec, conv byte, a printfArg) (string, error) {
	n := a.v.(int64)
	if conv == 'd' {
		if spec.has('#') {
			return "", errPrintfJava
		}
		return signed(spec, new(big.Int).SetInt64(n).Text(10), n < 0, true), nil
	}
	// %o and %x: negative values print as their two's complement.
	if spec.has('+') || spec.has(' ') || spec.has(',') || spec.has('(') {
		return "", errPrintfJava
	}
	u := uint64(n)
	if a.bits < 64 {
		u &= 1<<uint(a.bits) - 1
	}
	base, prefix := 8, "0"
	if conv == 'x' {
		base, prefix = 16, "0x"
	}
	digits := strconv.FormatUint(u, base)
	if !spec.has('#') {
		prefix = ""
	}
	if spec.has('0') && spec.width > len(prefix)+len(digits) {
		digits = strings.Repeat("0", spec.width-len(prefix)-len(digits)) + digits
	}
	return prefix + digits, nil
}

// signed applies the sign flags (+, space, parentheses), grouping (,) and
// zero padding to the digits of a number's magnitude.
func signed(spec printfSpec, digits string, neg, grouping bool) string {
	digits = strings.TrimPrefix(digits, "-")
	if spec.has(',') && grouping {
		intPart, frac := digits, ""
		if dot := strings.IndexByte(digits, '.'); dot >= 0 {
			intPart, frac = digits[:dot], digits[dot:]
		}
		var g strings.Builder
		for i, ch := range intPart {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				g.WriteByte(',')
			}
			g.WriteRune(ch)
		}
		digits = g.String() + frac
	}
	var pre, post string
	switch {
	case neg && spec.has('('):
		pre, post = "(", ")"
	case neg:
		pre = "-"
	case spec.has('+'):
		pre = "+"
	case spec.has(' '):
		pre = " "
	}
	if spec.has('0') {
		if n := spec.width - len(pre) - len(post) - len(digits); n > 0 {
			digits = strings.Repeat("0", n) + digits
		}
	}
	return pre + digits + post
}

// formatJavaFloat is %e, %f and %g of a double: Java rounds the shortest
// decimal form of the value (Double.toString's digits) HALF_UP.
func formatJavaFloat(spec printfSpec, conv byte, f float64, bits int) (string, error) {
	if conv != 'f' && spec.has(',') || conv == 'g' && spec.has('#') {
		return "", errPrintfJava
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		s := "NaN"
		switch {
		case math.IsInf(f, 1):
			s = "Infinity"
			if spec.has('+') {
				s = "+Infinity"
			}
		case math.IsInf(f, -1):
			s = "-Infinity"
			if spec.has('(') {
				s = "(Infinity)"
			}
		}
		return s, nil
	}
	prec := spec.precision
	if prec < 0 {
		prec = 6
	}
	neg := math.Signbit(f)
	// The shortest digits d1d2...dn with the point after exp digits.
	short := strconv.FormatFloat(math.Abs(f), 'e', -1, bits)
	mant, expPart, _ := strings.Cut(short, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expPart)
	if conv == 'g' {
		if prec == 0 {
			prec = 1
		}
		// Rounded to prec significant digits, the value decides the form.
		rd, re := roundDigits(digits, exp, prec)
		if f != 0 && (re < -4 || re >= prec) {
			return signed(spec, sciString(rd, re, prec-1), neg, false), nil
		}
		return signed(spec, fixedString(digits, exp, prec-(re+1)), neg, true), nil
	}
	if conv == 'e' {
		if f == 0 {
			return signed(spec, sciString(strings.Repeat("0", prec+1), 0, prec), neg, false), nil
		}
		rd, re := roundDigits(digits, exp, prec+1)
		s := sciString(rd, re, prec)
		if prec == 0 && spec.has('#') {
			s = strings.Replace(s, "e", ".e", 1)
		}
		return signed(spec, s, neg, false), nil
	}
	s := fixedString(digits, exp, prec)
	if prec == 0 && spec.has('#') {
		s += "."
	}
	return signed(spec, s, neg, true), nil
}

// roundDigits rounds the digits of d.ddd×10^exp HALF_UP to n significant
// digits; a carry may raise the exponent.
func roundDigits(digits string, exp, n int) (string, int) {
	if len(digits) <= n {
		return digits + strings.Repeat("0", n-len(digits)), exp
	}
	b := []byte(digits[:n])
	if digits[n] >= '5' {
		i := n - 1
		for ; i >= 0; i-- {
			if b[i] < '9' {
				b[i]++
				break
			}
			b[i] = '0'
		}
		if i < 0 {
			b = append([]byte{'1'}, b[:n-1]...)
			exp++
		}
	}
	return string(b), exp
}

// sciString is d.ddd (prec digits after the point) then e±XX.
func sciString(digits string, exp, prec int) string {
	var b strings.Builder
	b.WriteByte(digits[0])
	if prec > 0 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('e')
	if exp < 0 {
		b.WriteByte('-')
		exp = -exp
	} else {
		b.WriteByte('+')
	}
	if exp < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// fixedString is the value d.ddd×10^exp with prec digits after the point,
// rounded HALF_UP.
func fixedString(digits string, exp, prec int) string {
	if prec < 0 {
		prec = 0
	}
	// The digits as an integer scaled by 10^prec: the point moves to
	// after exp+1+prec digits.
	keep := exp + 1 + prec
	var intDigits string
	switch {
	case keep <= 0:
		// Every digit lies beyond the precision: 0, or 1 in the last
		// place when the first dropped digit rounds up.
		if keep == 0 && digits[0] >= '5' {
			intDigits = "1"
		} else {
			intDigits = "0"
		}
	case keep >= len(digits):
		intDigits = digits + strings.Repeat("0", keep-len(digits))
	default:
		rd, _ := roundDigits(digits, 0, keep)
		if len(rd) > keep || rd[0] == '1' && digits[0] == '9' && allNines(digits[:keep]) && digits[keep] >= '5' {
			rd = "1" + strings.Repeat("0", keep)
		}
		intDigits = rd
	}
	intDigits = strings.TrimLeft(intDigits, "0")
	if len(intDigits) <= prec {
		intDigits = strings.Repeat("0", prec-len(intDigits)+1) + intDigits
	}
	if prec == 0 {
		return intDigits
	}
	return intDigits[:len(intDigits)-prec] + "." + intDigits[len(intDigits)-prec:]
}

func allNines(s string) bool { return strings.Trim(s, "9") == "" }

func compilePrintf(c *call) (Expr, error) {
	if err := c.plainArity(1, -1); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	args := c.args
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
		if i > 0 {
			if _, err := printfArgOf(zeroOf(ts[i]), ts[i]); err != nil && !isNull(ts[i]) {
				return nil, c.errorf("argument %d is %s: %v", i+1, ts[i], err)
			}
		}
	}
	pos := c.f.Pos
	return &funcExpr{t: types.TypeString, konst: allConstant(args...), f: func(row []any) (any, error) {
		f, err := args[0].Eval(row)
		if f == nil || err != nil {
			return nil, err
		}
		jargs := make([]printfArg, len(args)-1)
		for i, a := range args[1:] {
			v, err := a.Eval(row)
			if err != nil {
				return nil, err
			}
			if jargs[i], err = printfArgOf(v, ts[i+1]); err != nil {
				return nil, sqlmini.Errorf(pos, "PRINTF: %v", err)
			}
		}
		s, err := javaPrintf(f.(string), jargs)
		switch {
		case errors.Is(err, errPrintfJava):
			return nil, nil
		case err != nil:
			return nil, sqlmini.Errorf(pos, "%v (the format is '%s')", err, f)
		}
		return s, nil
	}}, nil
}

// zeroOf is a value of type t's kind, for checking at compile time that
// PRINTF can take it; nil for the kinds it cannot.
func zeroOf(t types.Type) any {
	switch {
	case t.Kind == types.KindBoolean:
		return false
	case t.IsInteger():
		return int64(0)
	case t.Kind == types.KindFloat || t.Kind == types.KindDouble:
		return 0.0
	case t.IsString():
		return ""
	case t.Kind == types.KindDecimal:
		return types.Decimal{Unscaled: new(big.Int)}
	case t.Kind == types.KindDate:
		return types.Date(0)
	case t.Kind == types.KindTime:
		return types.TimeOfDay(0)
	case t.Kind == types.KindTimestamp:
		return types.LocalDateTime{}
	case t.Kind == types.KindTimestampLTZ:
		return types.Instant{}
	case t.Kind == types.KindIntervalYearMonth:
		return types.Period(0)
	case t.Kind == types.KindIntervalDayTime:
		return types.Duration(0)
	}
	return struct{}{}
}
