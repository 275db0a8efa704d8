package expr

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// JSON text as Flink's JSON functions read and write it (Jackson under
// Jayway JsonPath): a parsed document is a tree of
//
//	nil          null
//	bool         true, false
//	jsonNumber   a number, kept as written and printed as Java prints it
//	string       a string
//	[]any        an array
//	*jsonObject  an object, its members in document order
//
// jsonRaw marks text that is JSON already (a nested JSON_OBJECT's result),
// written into a JSON_OBJECT or JSON_ARRAY as it is.

// jsonNumber is a JSON number: its text as written.
type jsonNumber string

// jsonObject is a JSON object; a key given twice keeps its first place and
// its last value, as a LinkedHashMap does.
type jsonObject struct {
	keys []string
	vals []any
}

func (o *jsonObject) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

func (o *jsonObject) put(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys, o.vals = append(o.keys, k), append(o.vals, v)
}

// jsonRaw is JSON text to write as it is.
type jsonRaw string

// maxJSONDepth bounds the nesting the parser follows (Jackson's default
// is 1000).
const maxJSONDepth = 1000

// parseJSON parses a JSON document. Text after the first value is left
// unread, as Jackson's ObjectMapper leaves it (' 1 2' IS JSON is TRUE in
// Flink), but for a number, which white space must end.
func parseJSON(s string) (any, error) {
	p := &jsonParser{s: s}
	p.space()
	if p.i >= len(s) {
		return nil, fmt.Errorf("no JSON value: the text is empty")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, ok := v.(jsonNumber); ok && p.i < len(s) && strings.IndexByte(" \t\n\r", s[p.i]) < 0 {
		return nil, p.errorf("expected a space after the number")
	}
	return v, nil
}

type jsonParser struct {
	s string
	i int
}

func (p *jsonParser) errorf(format string, a ...any) error {
	return fmt.Errorf("%s at offset %d of the JSON text", fmt.Sprintf(format, a...), p.i)
}

func (p *jsonParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.errorf("JSON nested deeper than %d levels", maxJSONDepth)
	}
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of the JSON text")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		o := &jsonObject{}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		for {
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, p.errorf("expected a member name in double quotes")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errorf("expected ':' after a member name")
			}
			p.i++
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.put(k, v)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return o, nil
			}
			return nil, p.errorf("expected ',' or '}' in an object")
		}
	case c == '[':
		p.i++
		a := []any{}
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return a, nil
		}
		for {
			p.space()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return a, nil
			}
			return nil, p.errorf("expected ',' or ']' in an array")
		}
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, w := range []struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(p.s[p.i:], w.word) && !wordChar(p.s, p.i+len(w.word)) {
			p.i += len(w.word)
			return w.v, nil
		}
	}
	return nil, p.errorf("unexpected character %q", rune(p.s[p.i]))
}

// wordChar reports whether s[i] continues a word (so that "truex" is no
// true).
func wordChar(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *jsonParser) number() (any, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.s[p.i] == '-' {
		p.i++
	}
	intStart := p.i
	if digits() == 0 {
		return nil, p.errorf("a number needs a digit")
	}
	if p.s[intStart] == '0' && p.i-intStart > 1 {
		return nil, p.errorf("a number does not start with 0 (leading zeroes are not allowed)")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("a number needs a digit after its decimal point")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("a number needs a digit in its exponent")
		}
	}
	if wordChar(p.s, p.i) {
		return nil, p.errorf("unexpected character %q after a number", rune(p.s[p.i]))
	}
	return jsonNumber(p.s[start:p.i]), nil
}

func (p *jsonParser) str() (string, error) {
	p.i++ // the opening quote
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.errorf("a control character (code %d) in a string must be escaped", c)
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errorf("\\u needs four hex digits")
				}
				if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b.WriteRune(d)
							continue
						}
					}
					p.i = save
				}
				b.WriteRune(r)
			default:
				return "", p.errorf("unknown escape \\%c", e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// text is a number as Java prints the value Jackson reads for it: an
// integer as written (without a sign on zero), a number with a fraction
// or an exponent as BigDecimal.toString does (1.50, 1E+3).
func (n jsonNumber) text() string {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		i, _ := new(big.Int).SetString(s, 10)
		return i.String()
	}
	return types.FormatValue(n.decimal(), types.Type{Kind: types.KindDecimal})
}

// decimal is the number as a BigDecimal: its digits unscaled, its scale
// the digits after the point less the exponent.
func (n jsonNumber) decimal() types.Decimal {
	s := string(n)
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		s = s[:i]
	}
	scale := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		scale = len(s) - i - 1
		s = s[:i] + s[i+1:]
	}
	u, _ := new(big.Int).SetString(s, 10)
	return types.Decimal{Unscaled: u, Scale: scale - exp}
}

// isInt reports whether the number is written as an integer (Jackson
// reads it as an Integer, a Long or a BigInteger).
func (n jsonNumber) isInt() bool { return !strings.ContainsAny(string(n), ".eE") }

// isScalar reports whether v is no array or object (Calcite's
// isScalarObject).
func isScalar(v any) bool {
	switch v.(type) {
	case []any, *jsonObject:
		return false
	}
	return true
}

// appendJSONText writes a parsed value back as JSON, compactly, as Jackson
// writes it.
func appendJSONText(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case jsonNumber:
		return append(b, x.text()...)
	case string:
		return appendJacksonString(b, x)
	case jsonRaw:
		return append(b, x...)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONText(b, e)
		}
		return append(b, ']')
	case *jsonObject:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJacksonString(b, k)
			b = append(b, ':')
			b = appendJSONText(b, x.vals[i])
		}
		return append(b, '}')
	}
	return append(b, "null"...)
}

// appendJacksonString writes s as a JSON string as Jackson does: ", \ and
// the control characters escaped (\n, \t, ... or \u00XX), the rest as it is.
func appendJacksonString(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// sqlToJSON turns a SQL value of type t into a JSON tree, as Flink's JSON
// construction functions and JSON_STRING serialize their arguments.
func sqlToJSON(v any, t types.Type) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool, string, jsonRaw:
		return x
	case int64:
		return jsonNumber(strconv.FormatInt(x, 10))
	case float64:
		// Flink writes a DOUBLE as BigDecimal.valueOf(d) prints: 1.0E+20.
		s := types.FormatValue(x, types.TypeDouble)
		if strings.ContainsAny(s, "NI") { // NaN, Infinity
			return s
		}
		return jsonNumber(s)
	case types.Decimal:
		return jsonRaw(types.FormatValue(x, t))
	case []any:
		et := types.TypeOrZero(t.Elem)
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sqlToJSON(e, et)
		}
		return out
	case *types.Map:
		kt, vt := types.TypeOrZero(t.Key), types.TypeOrZero(t.Elem)
		o := &jsonObject{}
		for i, k := range x.Keys {
			o.put(strings.Trim(string(appendJSONText(nil, sqlToJSON(k, kt))), `"`), sqlToJSON(x.Values[i], vt))
		}
		return o
	case types.Row:
		o := &jsonObject{}
		for i, f := range x.Fields {
			name := "EXPR$" + strconv.Itoa(i)
			var ft types.Type
			if i < len(t.Fields) {
				if t.Fields[i].Name != "" {
					name = t.Fields[i].Name
				}
				ft = t.Fields[i].Type
			}
			o.put(name, sqlToJSON(f, ft))
		}
		return o
	case types.LocalDateTime:
		// ISO_LOCAL_DATE_TIME: the fraction without its trailing zeroes.
		s := strings.Replace(types.FormatValue(x, types.Type{Kind: types.KindTimestamp, Length: 9}), " ", "T", 1)
		if i := strings.IndexByte(s, '.'); i >= 0 {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	return types.FormatValue(v, t)
}

// sortedObject returns o with its members sorted by key, as Flink's
// JSON_OBJECT and JSON_OBJECTAGG write them.
func sortedObject(o *jsonObject) *jsonObject {
	idx := make([]int, len(o.keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return o.keys[idx[a]] < o.keys[idx[b]] })
	out := &jsonObject{keys: make([]string, len(idx)), vals: make([]any, len(idx))}
	for i, j := range idx {
		out.keys[i], out.vals[i] = o.keys[j], o.vals[j]
	}
	return out
}
