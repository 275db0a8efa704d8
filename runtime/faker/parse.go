package faker

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// Expr is a parsed expression: its text parts and directives in order.
// An Expr is immutable and may be shared by goroutines; each goroutine
// runs it with a Gen of its own.
type Expr struct {
	src   string
	parts []part
}

// part is literal text or a directive.
type part struct {
	lit string
	d   *directive
}

// A directive is one #{...}: text always, and for numbers and times the
// value itself.
type directive struct {
	name string // as written: Name.firstName
	text func(g *Gen, dst []byte) []byte
	// num gives an integer directive's value, tm a time directive's epoch
	// milliseconds; nil when the directive has none.
	num func(g *Gen) int64
	tm  func(g *Gen) int64
}

// Gen is the state that runs expressions: a random stream and the
// processing-time clock. A Gen is not safe for use by several goroutines.
type Gen struct {
	r *rand.Rand
	f *gofakeit.Faker
	// Now is the processing-time clock in epoch milliseconds, read each
	// time a date directive makes a value.
	Now func() int64
}

// NewGen returns a Gen whose values are fixed by seed and stream: two Gens
// made with the same pair give the same values.
func NewGen(seed, stream uint64, now func() int64) *Gen {
	// A seed of few bits (1, 2, 42) would start PCG's state with few bits
	// set, and its first draws near each other: mix both first.
	src := rand.NewPCG(splitmix(seed), splitmix(stream^0x9e3779b97f4a7c15))
	return &Gen{r: rand.New(src), f: gofakeit.NewFaker(src, false), Now: now}
}

// splitmix is SplitMix64's finalizer: every bit of x moves about half the
// bits of the result.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Float32 draws a number in [0, 1), from the Gen's stream (the connector's
// null-rate draws).
func (g *Gen) Float32() float32 { return g.r.Float32() }

// String returns the expression as it was written.
func (e *Expr) String() string { return e.src }

// Append runs the expression once and appends its text to dst.
func (e *Expr) Append(dst []byte, g *Gen) []byte {
	for _, p := range e.parts {
		if p.d == nil {
			dst = append(dst, p.lit...)
		} else {
			dst = p.d.text(g, dst)
		}
	}
	return dst
}

// single is the expression's one directive when it is nothing else.
func (e *Expr) single() *directive {
	if len(e.parts) == 1 {
		return e.parts[0].d
	}
	return nil
}

// Time reports whether the expression is one directive of a time
// (date.past and the like) and returns its function of epoch milliseconds.
func (e *Expr) Time() (func(g *Gen) int64, bool) {
	if d := e.single(); d != nil && d.tm != nil {
		return d.tm, true
	}
	return nil, false
}

// Int reports whether the expression is one directive of a whole number
// (number.numberBetween and the like) and returns its function.
func (e *Expr) Int() (func(g *Gen) int64, bool) {
	if d := e.single(); d != nil && d.num != nil {
		return d.num, true
	}
	return nil, false
}

// Error is a bad expression: what is wrong and where (a byte offset in the
// expression, 0-based).
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("at offset %d: %s", e.Offset, e.Msg)
}

// maxExprLen bounds an expression, so that a table's options cannot make
// the parser work without end.
const maxExprLen = 1 << 16

// Parse reads an expression and checks each directive's provider, method
// and arguments.
func Parse(src string) (*Expr, error) {
	if len(src) > maxExprLen {
		return nil, &Error{0, fmt.Sprintf("the expression is %d bytes long: at most %d", len(src), maxExprLen)}
	}
	e := &Expr{src: src}
	i := 0
	for i < len(src) {
		j := strings.Index(src[i:], "#{")
		if j < 0 {
			e.parts = append(e.parts, part{lit: src[i:]})
			break
		}
		if j > 0 {
			e.parts = append(e.parts, part{lit: src[i : i+j]})
		}
		start := i + j
		d, end, err := parseDirective(src, start)
		if err != nil {
			return nil, err
		}
		e.parts = append(e.parts, part{d: d})
		i = end
	}
	return e, nil
}

// parseDirective reads the directive that starts at src[start] ("#{") and
// returns it with the offset after its '}'.
func parseDirective(src string, start int) (*directive, int, error) {
	i := start + 2
	for i < len(src) && src[i] == ' ' {
		i++
	}
	nameStart := i
	for i < len(src) && isNameByte(src[i]) {
		i++
	}
	name := src[nameStart:i]
	if name == "" {
		return nil, 0, &Error{nameStart, "a directive #{...} needs a name, such as #{Name.firstName} or #{regexify '[a-z]{3}'}"}
	}
	var args []string
	var argPos []int
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == ',') {
			i++
		}
		if i >= len(src) {
			return nil, 0, &Error{start, fmt.Sprintf("directive %s is not closed: a '}' is missing", name)}
		}
		if src[i] == '}' {
			i++
			break
		}
		if src[i] != '\'' {
			return nil, 0, &Error{i, fmt.Sprintf("directive %s: an argument is written in single quotes ('...'), separated by commas, and the directive ends with '}'; found %q", name, src[i])}
		}
		q := strings.IndexByte(src[i+1:], '\'')
		if q < 0 {
			return nil, 0, &Error{i, fmt.Sprintf("directive %s: an argument's quote is not closed", name)}
		}
		args = append(args, src[i+1:i+1+q])
		argPos = append(argPos, i+1)
		i += q + 2
	}
	b, ok := lookup(name)
	if !ok {
		return nil, 0, &Error{nameStart, unknownMessage(name)}
	}
	d, err := b.build(name, args)
	if err != nil {
		off := nameStart
		if ae, ok := err.(*argError); ok && ae.i < len(argPos) {
			off = argPos[ae.i]
		}
		return nil, 0, &Error{off, name + ": " + err.Error()}
	}
	return d, i, nil
}

func isNameByte(c byte) bool {
	return c == '.' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// argError is an error in argument i of a directive.
type argError struct {
	i   int
	msg string
}

func (e *argError) Error() string { return e.msg }

// canonical is the form names are matched in: lower case, no underscores.
func canonical(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), "_", "")
}

// unknownMessage says which names exist near an unknown one.
func unknownMessage(name string) string {
	c := canonical(name)
	prov, _, hasDot := strings.Cut(c, ".")
	if hasDot {
		var methods []string
		for k, b := range builders {
			if p, m, ok := strings.Cut(k, "."); ok && p == prov && !b.alias {
				_ = m
				methods = append(methods, b.display)
			}
		}
		if len(methods) > 0 {
			sortStrings(methods)
			return fmt.Sprintf("unknown method %q of %s; it has: %s", name[strings.IndexByte(name, '.')+1:], name[:strings.IndexByte(name, '.')], strings.Join(methods, ", "))
		}
		return fmt.Sprintf("unknown provider %q; ptfsh has: %s", name[:strings.IndexByte(name, '.')], strings.Join(Providers(), ", "))
	}
	return fmt.Sprintf("unknown directive %q: a directive is a faker method (regexify, numerify, letterify, bothify) or Provider.method (such as Name.firstName); providers: %s", name, strings.Join(Providers(), ", "))
}
