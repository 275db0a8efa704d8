package expr

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// JSON paths as Flink's JSON functions take them: an optional mode, lax or
// strict (strict when none is given, as in Calcite's SqlFunctions), then a
// Jayway JsonPath. ptfsh knows Jayway's steps
//
//	$            the document
//	.name        a member ($.a, and $['a'] or $["a"] for any name)
//	[n]          an element (n < 0 counts from the end)
//	[n, m, ...]  several elements; [a:b] a slice
//	.* and [*]   every member or element
//	..name       a member at any depth
//	.length()    the number of elements or members, at the end
//
// and not its filters ([?(...)]) or other functions, which are an error. A path with [*], [n, m], a slice or .. is indefinite: it gives
// the list of what it found (an empty one when nothing), skipping what
// does not fit; a definite path gives one value, and in strict mode a
// member or an element that is not there is an error ("No results for
// path"), in lax mode nothing.

// jsonPath is a compiled path.
type jsonPath struct {
	lax        bool
	steps      []jsonStep
	indefinite bool
	text       string // the path without its mode
}

// jsonStep is one step of a path.
type jsonStep struct {
	kind  byte     // '.' members, '[' indexes, '*' wildcard, ':' slice, 'D' deep scan, 'L' length()
	names []string // '.', 'D'
	idx   []int    // '['
	from  *int     // ':'
	to    *int
}

var jsonPathMode = regexp.MustCompile(`(?is)^\s*(lax|strict)\s+(.+)$`)

// compileJSONPath compiles a path with its mode.
func compileJSONPath(spec string) (*jsonPath, error) {
	p := &jsonPath{}
	text := spec
	if m := jsonPathMode.FindStringSubmatch(spec); m != nil {
		p.lax = strings.EqualFold(m[1], "lax")
		text = m[2]
	}
	p.text = text
	s := strings.TrimSpace(text)
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("the JSON path %q does not start with $", spec)
	}
	i := 1
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], ".."):
			i += 2
			name, n := pathName(s[i:])
			if name == "" {
				return nil, fmt.Errorf("the JSON path %q needs a name after '..' (at %d)", spec, i)
			}
			i += n
			p.steps = append(p.steps, jsonStep{kind: 'D', names: []string{name}})
			p.indefinite = true
		case s[i] == '.':
			i++
			if i < len(s) && s[i] == '*' {
				i++
				p.steps = append(p.steps, jsonStep{kind: '*'})
				p.indefinite = true
				continue
			}
			name, n := pathName(s[i:])
			if name == "" {
				return nil, fmt.Errorf("the JSON path %q needs a name after '.' (at %d)", spec, i)
			}
			i += n
			if i < len(s) && s[i] == '(' {
				if name != "length" || !strings.HasPrefix(s[i:], "()") || i+2 != len(s) {
					return nil, fmt.Errorf("the JSON path %q calls a function (%s(...)): ptfsh's JSON paths take only length() at their end", spec, name)
				}
				i += 2
				p.steps = append(p.steps, jsonStep{kind: 'L'})
				continue
			}
			p.steps = append(p.steps, jsonStep{kind: '.', names: []string{name}})
		case s[i] == '[':
			end := closeBracket(s, i)
			if end < 0 {
				return nil, fmt.Errorf("the JSON path %q has a '[' without its ']'", spec)
			}
			st, err := bracketStep(strings.TrimSpace(s[i+1 : end]))
			if err != nil {
				return nil, fmt.Errorf("the JSON path %q: %v", spec, err)
			}
			i = end + 1
			if st.kind != '.' && (st.kind != '[' || len(st.idx) > 1) {
				p.indefinite = true
			}
			if st.kind == '.' && len(st.names) > 1 {
				p.indefinite = true
			}
			p.steps = append(p.steps, st)
		default:
			return nil, fmt.Errorf("the JSON path %q has %q where a step (.name, [n], [*]) should be (at %d)", spec, s[i:], i)
		}
	}
	return p, nil
}

// closeBracket returns the index of the ']' that closes s[i] == '[',
// past quoted names, or -1.
func closeBracket(s string, i int) int {
	var q byte
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case q != 0 && c == '\\':
			j++
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == ']':
			return j
		}
	}
	return -1
}

// pathName reads a name after '.' and returns it with the bytes read.
func pathName(s string) (string, int) {
	n := 0
	for n < len(s) && s[n] != '.' && s[n] != '[' && s[n] != '(' && s[n] != ' ' {
		n++
	}
	return s[:n], n
}

// bracketStep reads the inside of [...].
func bracketStep(in string) (jsonStep, error) {
	switch {
	case in == "*":
		return jsonStep{kind: '*'}, nil
	case strings.HasPrefix(in, "?"):
		return jsonStep{}, fmt.Errorf("filters ([?(...)]) are not supported by ptfsh's JSON paths")
	case strings.HasPrefix(in, "'") || strings.HasPrefix(in, `"`):
		var names []string
		for _, part := range splitQuoted(in) {
			part = strings.TrimSpace(part)
			if len(part) < 2 || part[0] != part[len(part)-1] || part[0] != '\'' && part[0] != '"' {
				return jsonStep{}, fmt.Errorf("[%s] is not a list of quoted names", in)
			}
			names = append(names, strings.ReplaceAll(part[1:len(part)-1], `\'`, `'`))
		}
		return jsonStep{kind: '.', names: names}, nil
	case strings.Contains(in, ":"):
		a, b, _ := strings.Cut(in, ":")
		st := jsonStep{kind: ':'}
		for _, x := range []struct {
			s string
			p **int
		}{{a, &st.from}, {b, &st.to}} {
			if t := strings.TrimSpace(x.s); t != "" {
				n, err := strconv.Atoi(t)
				if err != nil {
					return jsonStep{}, fmt.Errorf("[%s] is not a slice [from:to]", in)
				}
				*x.p = &n
			}
		}
		return st, nil
	}
	st := jsonStep{kind: '['}
	for _, part := range strings.Split(in, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return jsonStep{}, fmt.Errorf("[%s] is not an index, a list of indexes, a slice, * or a quoted name", in)
		}
		st.idx = append(st.idx, n)
	}
	return st, nil
}

// splitQuoted splits 'a', 'b' at the commas outside quotes.
func splitQuoted(s string) []string {
	var out []string
	var q byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case q != 0 && c == '\\':
			i++
		case q != 0 && c == q:
			q = 0
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case q == 0 && c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// errNoResult is a definite path that found nothing, in strict mode.
type errNoResult struct{ path string }

func (e *errNoResult) Error() string { return "No results for path: " + e.path }

// eval applies the path to a document: the value found (nil when a
// definite path finds JSON null), or the list of values an indefinite
// path found. found is false when a lax definite path found nothing.
func (p *jsonPath) eval(doc any) (v any, err error) {
	cur := []any{doc}
	for si, st := range p.steps {
		// upstream: whether every step so far was definite, so that a
		// missing member is an error (strict) rather than skipped.
		definite := !p.indefinite || !anyIndefinite(p.steps[:si+1])
		var next []any
		for _, node := range cur {
			switch st.kind {
			case '.':
				o, ok := node.(*jsonObject)
				if !ok {
					if definite {
						return nil, p.missing()
					}
					continue
				}
				for _, name := range st.names {
					if v, ok := o.get(name); ok {
						next = append(next, v)
					} else if definite {
						return nil, p.missing()
					}
				}
			case '[':
				a, ok := node.([]any)
				if !ok {
					if definite {
						return nil, p.missing()
					}
					continue
				}
				for _, i := range st.idx {
					if i < 0 {
						i += len(a)
					}
					if i >= 0 && i < len(a) {
						next = append(next, a[i])
					} else if definite {
						return nil, p.missing()
					}
				}
			case ':':
				a, ok := node.([]any)
				if !ok {
					continue
				}
				from, to := 0, len(a)
				if st.from != nil {
					from = *st.from
					if from < 0 {
						from = max(0, len(a)+from)
					}
				}
				if st.to != nil {
					to = *st.to
					if to < 0 {
						to += len(a)
					}
				}
				for i := from; i < min(to, len(a)); i++ {
					next = append(next, a[i])
				}
			case '*':
				switch x := node.(type) {
				case []any:
					next = append(next, x...)
				case *jsonObject:
					next = append(next, x.vals...)
				}
			case 'D':
				next = deepScan(node, st.names[0], next)
			case 'L':
				switch x := node.(type) {
				case []any:
					next = append(next, jsonNumber(strconv.Itoa(len(x))))
				case *jsonObject:
					next = append(next, jsonNumber(strconv.Itoa(len(x.keys))))
				default:
					return nil, fmt.Errorf("length() of a value that is no array or object")
				}
			}
		}
		cur = next
	}
	if p.indefinite {
		if cur == nil {
			cur = []any{}
		}
		return cur, nil
	}
	return cur[0], nil
}

// anyIndefinite reports whether a step of steps makes a path indefinite.
func anyIndefinite(steps []jsonStep) bool {
	for _, st := range steps[:len(steps)-1] {
		if st.kind == '*' || st.kind == ':' || st.kind == 'D' || st.kind == '[' && len(st.idx) > 1 || st.kind == '.' && len(st.names) > 1 {
			return true
		}
	}
	return false
}

// deepScan appends the values of the members named name at any depth
// below node, parents first.
func deepScan(node any, name string, out []any) []any {
	switch x := node.(type) {
	case *jsonObject:
		if v, ok := x.get(name); ok {
			out = append(out, v)
		}
		for _, v := range x.vals {
			out = deepScan(v, name, out)
		}
	case []any:
		for _, v := range x {
			out = deepScan(v, name, out)
		}
	}
	return out
}

// missing is a definite path's step that found nothing.
func (p *jsonPath) missing() error {
	if p.lax {
		return errLaxMissing
	}
	return &errNoResult{path: p.canonical()}
}

// errLaxMissing is a lax path that found nothing: not an error, no value.
var errLaxMissing = fmt.Errorf("lax: nothing found")

// canonical prints the path as Jayway prints it in its messages: $['a'][0].
func (p *jsonPath) canonical() string {
	var b strings.Builder
	b.WriteString("$")
	for _, st := range p.steps {
		switch st.kind {
		case '.':
			b.WriteString("[")
			for i, n := range st.names {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString("'" + n + "'")
			}
			b.WriteString("]")
		case '[':
			b.WriteString("[")
			for i, n := range st.idx {
				if i > 0 {
					b.WriteString(",")
				}
				b.WriteString(strconv.Itoa(n))
			}
			b.WriteString("]")
		case '*':
			b.WriteString("[*]")
		case ':':
			b.WriteString("[")
			if st.from != nil {
				b.WriteString(strconv.Itoa(*st.from))
			}
			b.WriteString(":")
			if st.to != nil {
				b.WriteString(strconv.Itoa(*st.to))
			}
			b.WriteString("]")
		case 'D':
			b.WriteString("..['" + st.names[0] + "']")
		}
	}
	return b.String()
}
