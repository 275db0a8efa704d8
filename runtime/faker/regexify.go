package faker

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// maxRepeat is how many times an unbounded repetition (*, +, {n,}) repeats
// at most past its minimum, as a generator of strings must stop somewhere.
const maxRepeat = 10

// maxRegexNodes bounds a compiled pattern, so that {1000}{1000} and the
// like cannot make a directive that builds without end.
const maxRegexNodes = 10000

// regexGen makes strings that match a regular expression.
type regexGen struct {
	op    syntax.Op
	runes []rune // Literal: the text; CharClass: pairs of ranges
	subs  []*regexGen
	min   int
	max   int
	total int // CharClass: the number of runes in the class
	// choices counts the strings of distinct alternatives the expression
	// was written with; cum holds an Alternate's running sums of its
	// branches' choices, so that each alternative as written is equally
	// likely although RE2's parser factors common prefixes out
	// (Europe/Rome|Europe/London is Europe/(?:Rome|London)).
	choices float64
	cum     []float64
}

// compileRegex reads a Java regular expression (as regexify takes it) and
// returns its generator. Java allows a backslash before any character that
// is not a letter or digit (\ , \&); those become the character itself.
func compileRegex(pattern string) (*regexGen, error) {
	re, err := syntax.Parse(javaEscapes(pattern), syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("the regular expression %q does not compile: %v", pattern, err)
	}
	n := 0
	g, err := buildRegexGen(re, &n)
	if err != nil {
		return nil, fmt.Errorf("the regular expression %q: %v", pattern, err)
	}
	if l := g.maxLen(); l > maxRegexLen {
		return nil, fmt.Errorf("the regular expression %q can match %.0f characters: at most %d for a generated value", pattern, l, maxRegexLen)
	}
	return g, nil
}

// javaEscapes rewrites escapes Java accepts and RE2 does not: a backslash
// before a character that is neither a letter, a digit nor ASCII
// punctuation stands for that character.
func javaEscapes(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '\\' || i+1 >= len(p) {
			b.WriteByte(c)
			continue
		}
		next := p[i+1]
		switch {
		case next >= 'a' && next <= 'z', next >= 'A' && next <= 'Z', next >= '0' && next <= '9', next >= '!' && next <= '/', next >= ':' && next <= '@', next >= '[' && next <= '`', next >= '{' && next <= '~':
			b.WriteByte(c)
			b.WriteByte(next)
		default:
			r, size := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(quoteRune(r))
			i += size - 1
		}
		i++
	}
	return b.String()
}

// quoteRune writes r so that RE2 reads it as itself.
func quoteRune(r rune) string {
	if r == ' ' {
		return " "
	}
	return fmt.Sprintf(`\x{%x}`, r)
}

func buildRegexGen(re *syntax.Regexp, n *int) (*regexGen, error) {
	if *n++; *n > maxRegexNodes {
		return nil, fmt.Errorf("it is too large to generate from (at most %d parts after repetitions are counted)", maxRegexNodes)
	}
	g := &regexGen{op: re.Op, min: re.Min, max: re.Max, choices: 1}
	switch re.Op {
	case syntax.OpLiteral:
		g.runes = re.Rune
		if re.Flags&syntax.FoldCase != 0 {
			g.runes = append([]rune(nil), re.Rune...)
		}
	case syntax.OpCharClass:
		g.runes = re.Rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			g.total += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if g.total == 0 {
			return nil, fmt.Errorf("a character class matches no character")
		}
		g.choices = float64(g.total)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		g.op = syntax.OpCharClass
		g.runes = []rune{'0', '9', 'A', 'Z', 'a', 'z'}
		g.total = 62
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		g.op = syntax.OpEmptyMatch
	case syntax.OpCapture, syntax.OpConcat, syntax.OpAlternate:
		for _, s := range re.Sub {
			sg, err := buildRegexGen(s, n)
			if err != nil {
				return nil, err
			}
			g.subs = append(g.subs, sg)
		}
		if re.Op == syntax.OpCapture {
			g.op = syntax.OpConcat
		}
		if re.Op == syntax.OpAlternate {
			g.choices = 0
			for _, sg := range g.subs {
				g.choices += sg.choices
				g.cum = append(g.cum, g.choices)
			}
		} else {
			for _, sg := range g.subs {
				g.choices = min(g.choices*sg.choices, 1e12)
			}
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		switch re.Op {
		case syntax.OpStar:
			g.min, g.max = 0, -1
		case syntax.OpPlus:
			g.min, g.max = 1, -1
		case syntax.OpQuest:
			g.min, g.max = 0, 1
		}
		if g.max < 0 {
			g.max = g.min + maxRepeat
		}
		*n += g.max // a repetition costs its count
		sg, err := buildRegexGen(re.Sub[0], n)
		if err != nil {
			return nil, err
		}
		g.op, g.subs = syntax.OpRepeat, []*regexGen{sg}
		if g.min == 1 && g.max == 1 {
			g.choices = sg.choices
		}
	case syntax.OpNoMatch:
		return nil, fmt.Errorf("it matches nothing")
	default:
		return nil, fmt.Errorf("ptfsh cannot generate from %s", re.Op)
	}
	return g, nil
}

// maxRegexLen bounds the longest string a regexify may make.
const maxRegexLen = 1 << 16

// maxLen is the length of the longest string gen can make, in runes.
func (x *regexGen) maxLen() float64 {
	switch x.op {
	case syntax.OpLiteral:
		return float64(len(x.runes))
	case syntax.OpCharClass:
		return 1
	case syntax.OpConcat:
		sum := 0.0
		for _, s := range x.subs {
			sum += s.maxLen()
		}
		return sum
	case syntax.OpAlternate:
		m := 0.0
		for _, s := range x.subs {
			m = max(m, s.maxLen())
		}
		return m
	case syntax.OpRepeat:
		return float64(x.max) * x.subs[0].maxLen()
	}
	return 0
}

// gen appends a random string that the expression matches.
func (x *regexGen) gen(g *Gen, dst []byte) []byte {
	switch x.op {
	case syntax.OpLiteral:
		for _, r := range x.runes {
			dst = utf8.AppendRune(dst, r)
		}
	case syntax.OpCharClass:
		k := g.r.IntN(x.total)
		for i := 0; i+1 < len(x.runes); i += 2 {
			size := int(x.runes[i+1]-x.runes[i]) + 1
			if k < size {
				return utf8.AppendRune(dst, x.runes[i]+rune(k))
			}
			k -= size
		}
	case syntax.OpConcat:
		for _, s := range x.subs {
			dst = s.gen(g, dst)
		}
	case syntax.OpAlternate:
		u := g.r.Float64() * x.choices
		i := 0
		for i < len(x.cum)-1 && u >= x.cum[i] {
			i++
		}
		dst = x.subs[i].gen(g, dst)
	case syntax.OpRepeat:
		n := x.min
		if x.max > x.min {
			n += g.r.IntN(x.max - x.min + 1)
		}
		for range n {
			dst = x.subs[0].gen(g, dst)
		}
	}
	return dst
}
