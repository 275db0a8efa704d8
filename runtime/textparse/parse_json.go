package textparse

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// JSON reads JSON text straight into the Go values of SQL types: no
// intermediate tree, and numbers stay exact text until their type is known
// (a BIGINT of 9007199254740993 stays exact). The JSON file reader and
// Value's ARRAY, MAP and ROW text share it.
//
// It is hand-written rather than built on encoding/json for two reasons:
// speed (no reflection, no map per object, no allocation for keys or
// numbers), and positions (every error knows the byte of the offending
// value, which becomes a line and column).
type JSON struct {
	data    []byte
	pos     int
	vp      *Parser
	depth   int
	scratch []byte // unescaped string contents; valid until the next string
}

// JSONError is an error at data[pos]: a syntax error or a value that does
// not read as its type.
type JSONError struct {
	Pos int
	Msg string
}

func (e *JSONError) Error() string { return e.Msg }

// SetParser makes vp read the reader's scalars (the zero JSON reads them
// with the default Options).
func (p *JSON) SetParser(vp *Parser) { p.vp = vp }

// Reset starts reading data at byte pos.
func (p *JSON) Reset(data []byte, pos int) { p.data, p.pos, p.depth = data, pos, 0 }

// Pos is the byte the reader is at.
func (p *JSON) Pos() int { return p.pos }

// Peek returns the byte the reader is at; ok is false at the end.
func (p *JSON) Peek() (c byte, ok bool) {
	if p.pos < len(p.data) {
		return p.data[p.pos], true
	}
	return 0, false
}

// Advance moves the reader past the byte it is at.
func (p *JSON) Advance() { p.pos++ }

// MaxJSONDepth bounds nesting, so that hostile input cannot exhaust the
// stack.
const MaxJSONDepth = 512

func (p *JSON) fail(pos int, msg string) error { return &JSONError{Pos: pos, Msg: msg} }

func (p *JSON) syntax(pos int, what string) error {
	return &JSONError{Pos: pos, Msg: "invalid JSON: " + what}
}

// Unexpected reports the byte at pos as unexpected, or the end of input.
func (p *JSON) Unexpected(pos int, want string) error {
	if pos >= len(p.data) {
		return p.syntax(pos, "unexpected end of input, expected "+want)
	}
	c := p.data[pos]
	if c < 0x20 || c >= 0x7f {
		return p.syntax(pos, fmt.Sprintf("unexpected byte 0x%02x, expected %s", c, want))
	}
	return p.syntax(pos, fmt.Sprintf("unexpected %q, expected %s", rune(c), want))
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

func (p *JSON) SkipWS() {
	for p.pos < len(p.data) && isJSONSpace(p.data[p.pos]) {
		p.pos++
	}
}

func (p *JSON) enter(pos int) error {
	p.depth++
	if p.depth > MaxJSONDepth {
		return p.syntax(pos, fmt.Sprintf("nesting deeper than %d", MaxJSONDepth))
	}
	return nil
}

// literal consumes true, false or null.
func (p *JSON) literal(word string) error {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return p.Unexpected(p.pos, "a JSON value")
	}
	p.pos += len(word)
	return nil
}

// Str reads a string at p.pos (a '"') and returns its contents, which alias
// p.data or p.scratch: copy them to keep them.
func (p *JSON) Str() ([]byte, error) {
	start := p.pos
	i := start + 1
	// Eight bytes at a time while none of them ends the plain run (a
	// quote, a backslash or a control byte), then byte by byte.
	for i+8 <= len(p.data) && !plainEnds(binary.LittleEndian.Uint64(p.data[i:])) {
		i += 8
	}
	for i < len(p.data) {
		c := p.data[i]
		if c == '"' {
			p.pos = i + 1
			return p.data[start+1 : i], nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	buf := append(p.scratch[:0], p.data[start+1:i]...)
	for {
		if i >= len(p.data) {
			return nil, p.syntax(start, "unterminated string")
		}
		c := p.data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			p.scratch = buf
			return buf, nil
		case c < 0x20:
			return nil, p.syntax(i, fmt.Sprintf("control character 0x%02x in string", c))
		case c != '\\':
			buf = append(buf, c)
			i++
			continue
		}
		if i+1 >= len(p.data) {
			return nil, p.syntax(start, "unterminated string")
		}
		switch e := p.data[i+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(p.data[i+2:])
			if !ok {
				return nil, p.syntax(i, "invalid \\u escape")
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+1 < len(p.data) && p.data[i] == '\\' && p.data[i+1] == 'u' {
					r2, ok = hex4(p.data[i+2:])
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			if e < 0x20 || e >= 0x7f {
				// A control byte or a non-ASCII one: shown quoted, so that
				// the message stays on one line.
				return nil, p.syntax(i, fmt.Sprintf("invalid escape: a backslash before %q", []byte{e}))
			}
			return nil, p.syntax(i, fmt.Sprintf("invalid escape \\%c", e))
		}
		i += 2
	}
}

// plainEnds reports whether one of the eight bytes of w is a quote, a
// backslash or below 0x20: (x - 0x01…) &^ x has the high bit of a byte set
// where x's byte is zero (for the first such byte at least, which is all
// an "any" needs), and (w - 0x20…) &^ w where w's byte is below 0x20.
func plainEnds(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q|(b-ones)&^b|(w-ones*0x20)&^w)&highs != 0
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number by JSON's grammar and returns its text.
func (p *JSON) number() ([]byte, error) {
	d := p.data
	start := p.pos
	i := start
	if i < len(d) && d[i] == '-' {
		i++
	}
	digitsFrom := func(j int) int {
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
		return j
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digitsFrom(i)
	default:
		return nil, p.Unexpected(i, "a digit")
	}
	if i < len(d) && d[i] == '.' {
		j := digitsFrom(i + 1)
		if j == i+1 {
			return nil, p.Unexpected(j, "a digit")
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digitsFrom(i)
		if j == i {
			return nil, p.Unexpected(j, "a digit")
		}
		i = j
	}
	p.pos = i
	return d[start:i], nil
}

// SkipValue reads and checks any JSON value.
func (p *JSON) SkipValue() error {
	p.SkipWS()
	if p.pos >= len(p.data) {
		return p.Unexpected(p.pos, "a JSON value")
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		_, err := p.Str()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := p.number()
		return err
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '[' || c == '{':
		if err := p.enter(p.pos); err != nil {
			return err
		}
		defer func() { p.depth-- }()
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		p.pos++
		p.SkipWS()
		if p.pos < len(p.data) && p.data[p.pos] == close {
			p.pos++
			return nil
		}
		for {
			if c == '{' {
				if err := p.key(); err != nil {
					return err
				}
			}
			if err := p.SkipValue(); err != nil {
				return err
			}
			if done, err := p.More(close); done || err != nil {
				return err
			}
		}
	}
	return p.Unexpected(p.pos, "a JSON value")
}

// key reads an object key and its colon, discarding the key.
func (p *JSON) key() error {
	_, err := p.KeyBytes()
	return err
}

// KeyBytes reads an object key and its colon. The key aliases p.data or
// p.scratch.
func (p *JSON) KeyBytes() ([]byte, error) {
	p.SkipWS()
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return nil, p.Unexpected(p.pos, "a string key")
	}
	k, err := p.Str()
	if err != nil {
		return nil, err
	}
	p.SkipWS()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return nil, p.Unexpected(p.pos, "':' after the key")
	}
	p.pos++
	return k, nil
}

// KeyIs reads the object key quoted (a key with its quotes, as
// QuoteKey makes it) and its colon when the key at the reader is written
// exactly so, and reports whether it was; otherwise the reader stays where
// it was. It spares a decoder that expects a key the reading and matching
// of it; a key written otherwise (with escapes) is read by KeyBytes.
func (p *JSON) KeyIs(quoted []byte) bool {
	p.SkipWS()
	if len(quoted) == 0 || !bytes.HasPrefix(p.data[p.pos:], quoted) {
		return false
	}
	i := p.pos + len(quoted)
	for i < len(p.data) && isJSONSpace(p.data[i]) {
		i++
	}
	if i >= len(p.data) || p.data[i] != ':' {
		return false
	}
	p.pos = i + 1
	return true
}

// QuoteKey returns name between quotes when JSON writes it so without
// escapes (KeyIs then matches it), else nil.
func QuoteKey(name string) []byte {
	if !utf8.ValidString(name) {
		return nil
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' || c < 0x20 {
			return nil
		}
	}
	return []byte(`"` + name + `"`)
}

// IntNumber reads the value at the reader as an integer of t's kind (TINYINT
// to BIGINT) when it is a JSON number of at most 18 digits, without a
// fraction or an exponent, within t's range; otherwise ok is false and the
// reader stays where it was, for Value to read the value (or explain why
// it does not read).
func (p *JSON) IntNumber(t *types.Type) (n int64, ok bool) {
	p.SkipWS()
	start := p.pos
	num, err := p.number()
	if err == nil {
		if n, ok = FastInt(num); ok {
			lo, hi := t.Kind.IntegerRange()
			ok = n >= lo && n <= hi
		}
	}
	if !ok {
		p.pos, n = start, 0
	}
	return n, ok
}

// More reads the ',' between members or the closing bracket; done is true
// after the closing bracket.
func (p *JSON) More(close byte) (done bool, err error) {
	p.SkipWS()
	if p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ',':
			p.pos++
			return false, nil
		case close:
			p.pos++
			return true, nil
		}
	}
	return false, p.Unexpected(p.pos, fmt.Sprintf("',' or '%c'", close))
}

// RawValue reads any value and returns its text.
func (p *JSON) RawValue() ([]byte, error) {
	p.SkipWS()
	start := p.pos
	err := p.SkipValue()
	return p.data[start:p.pos], err
}

// mismatch reports a JSON value of the wrong kind for t (an object for an
// INT, say), after reading it.
func (p *JSON) mismatch(start int, t *types.Type) error {
	p.pos = start
	raw, err := p.RawValue()
	if err != nil {
		return err
	}
	return p.fail(start, "cannot parse "+shortJSON(compactJSON(raw))+" as "+t.String())
}

func shortJSON(s string) string {
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + "..."
	}
	return s
}

// Value reads a value of type t.
func (p *JSON) Value(t *types.Type) (any, error) {
	p.SkipWS()
	start := p.pos
	if start >= len(p.data) {
		return nil, p.Unexpected(start, "a JSON value")
	}
	c := p.data[start]
	if c == 'n' {
		if err := p.literal("null"); err != nil {
			return nil, err
		}
		if t.NotNull {
			return nil, p.fail(start, "null value for "+t.String())
		}
		return nil, nil
	}
	switch t.Kind {
	case types.KindArray, types.KindDescriptor:
		if c == '[' {
			return p.array(t)
		}
	case types.KindMap:
		if c == '{' {
			return p.mapValue(t)
		}
		if c == '[' {
			return p.mapPairs(t)
		}
	case types.KindRow:
		if c == '{' || c == '[' {
			return p.row(t)
		}
	case types.KindChar, types.KindVarChar:
		if c == '"' {
			b, err := p.Str()
			return string(b), err
		}
		raw, err := p.RawValue() // Flink's JsonNode.asText()/toString()
		if err != nil {
			return nil, err
		}
		return compactJSON(raw), nil
	}
	switch {
	case c == '"':
		b, err := p.Str()
		if err != nil {
			return nil, err
		}
		if t.Kind == types.KindTimestamp || t.Kind == types.KindTimestampLTZ {
			if v, ok := p.vp.quickTimestamp(string(b), t); ok {
				return v, nil
			}
		}
		v, err := p.vp.ParseScalar(string(b), t) // string types were handled above
		if err != nil {
			return nil, p.fail(start, err.Error())
		}
		return v, nil
	case c == '-' || c >= '0' && c <= '9':
		num, err := p.number()
		if err != nil {
			return nil, err
		}
		v, err := p.vp.fromNumber(num, t)
		if err != nil {
			return nil, p.fail(start, err.Error())
		}
		return v, nil
	case (c == 't' || c == 'f') && t.Kind == types.KindBoolean:
		if c == 't' {
			return true, p.literal("true")
		}
		return false, p.literal("false")
	}
	return nil, p.mismatch(start, t)
}

var descriptorElem = types.Type{Kind: types.KindVarChar, Length: types.MaxLength, NotNull: true}

func (p *JSON) array(t *types.Type) (any, error) {
	if err := p.enter(p.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	elem := t.Elem
	if t.Kind == types.KindDescriptor {
		elem = &descriptorElem
	}
	p.pos++
	out := []any{}
	p.SkipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
	} else {
		for {
			v, err := p.Value(elem)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			if done, err := p.More(']'); err != nil {
				return nil, err
			} else if done {
				break
			}
		}
	}
	if t.Kind == types.KindDescriptor {
		d := make(types.Descriptor, len(out))
		for i, v := range out {
			d[i] = v.(string)
		}
		return d, nil
	}
	return out, nil
}

func (p *JSON) mapValue(t *types.Type) (any, error) {
	if err := p.enter(p.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++
	m := &types.Map{}
	var texts []string // key texts, to let a repeated key replace the first
	p.SkipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		p.SkipWS()
		kpos := p.pos
		kb, err := p.KeyBytes()
		if err != nil {
			return nil, err
		}
		text := string(kb)
		var k any = text
		if !t.Key.IsString() {
			if k, err = p.vp.Parse(text, t.Key); err != nil {
				return nil, p.fail(kpos, "map key: "+err.Error())
			}
		}
		v, err := p.Value(t.Elem)
		if err != nil {
			return nil, err
		}
		if i := indexOfString(texts, text); i >= 0 {
			m.Values[i] = v // last one wins, as in Jackson's ObjectNode
		} else {
			texts = append(texts, text)
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, v)
		}
		if done, err := p.More('}'); err != nil {
			return nil, err
		} else if done {
			return m, nil
		}
	}
}

// mapPairs reads a MAP written as an array of [key, value] pairs, the form
// the JSON printer uses for keys that are not strings.
func (p *JSON) mapPairs(t *types.Type) (any, error) {
	if err := p.enter(p.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.pos++
	m := &types.Map{}
	p.SkipWS()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return m, nil
	}
	for {
		p.SkipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != '[' {
			return nil, p.Unexpected(p.pos, "a [key, value] pair")
		}
		p.pos++
		k, err := p.Value(t.Key)
		if err != nil {
			return nil, err
		}
		if _, err := p.More(']'); err != nil {
			return nil, err
		}
		v, err := p.Value(t.Elem)
		if err != nil {
			return nil, err
		}
		p.SkipWS()
		if p.pos >= len(p.data) || p.data[p.pos] != ']' {
			return nil, p.Unexpected(p.pos, "']' after a [key, value] pair")
		}
		p.pos++
		m.Keys = append(m.Keys, k)
		m.Values = append(m.Values, v)
		if done, err := p.More(']'); err != nil {
			return nil, err
		} else if done {
			return m, nil
		}
	}
}

func indexOfString(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// row reads a ROW from an object (fields by name; unknown names ignored,
// missing ones NULL) or an array (fields by position).
func (p *JSON) row(t *types.Type) (any, error) {
	if err := p.enter(p.pos); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	start := p.pos
	fields := make([]any, len(t.Fields))
	if p.data[p.pos] == '[' {
		p.pos++
		p.SkipWS()
		n := 0
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
		} else {
			for {
				if n >= len(fields) {
					return nil, p.fail(start, fmt.Sprintf("expected %d fields for %s", len(fields), t))
				}
				v, err := p.Value(&t.Fields[n].Type)
				if err != nil {
					return nil, err
				}
				fields[n] = v
				n++
				if done, err := p.More(']'); err != nil {
					return nil, err
				} else if done {
					break
				}
			}
		}
		if n != len(fields) {
			return nil, p.fail(start, fmt.Sprintf("expected %d fields for %s, found %d", len(fields), t, n))
		}
		return types.Row{Kind: types.Insert, Fields: fields}, nil
	}
	p.pos++
	p.SkipWS()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
	} else {
		for {
			kb, err := p.KeyBytes()
			if err != nil {
				return nil, err
			}
			i := -1
			for j := range t.Fields {
				if t.Fields[j].Name == string(kb) {
					i = j
					break
				}
			}
			if i < 0 {
				err = p.SkipValue()
			} else {
				fields[i], err = p.Value(&t.Fields[i].Type)
			}
			if err != nil {
				return nil, err
			}
			if done, err := p.More('}'); err != nil {
				return nil, err
			} else if done {
				break
			}
		}
	}
	for i, f := range t.Fields {
		if fields[i] == nil && f.Type.NotNull {
			return nil, p.fail(start, fmt.Sprintf("field %q: null value for %s", f.Name, f.Type))
		}
	}
	return types.Row{Kind: types.Insert, Fields: fields}, nil
}

// compactJSON returns valid JSON text without insignificant white space,
// as Jackson's JsonNode.toString() writes it.
func compactJSON(raw []byte) string {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			if c == '\\' && i+1 < len(raw) {
				out = append(out, c)
				i++
				c = raw[i]
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case isJSONSpace(c):
			continue
		}
		out = append(out, c)
	}
	return string(out)
}

// fromNumber converts the text of a JSON number to type t (not a string
// type: the caller keeps the text for those).
func (vp *Parser) fromNumber(num []byte, t *types.Type) (any, error) {
	switch t.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		if n, ok := FastInt(num); ok {
			if lo, hi := t.Kind.IntegerRange(); n < lo || n > hi {
				return nil, errIntRange(string(num), t)
			}
			return n, nil
		}
		s := string(num)
		return parseIntegerText(s, s, t)
	case types.KindFloat, types.KindDouble:
		s := string(num)
		return parseFloatText(s, s, t)
	case types.KindDecimal:
		d, detail, ok := parseDecimal(string(num), t)
		if !ok {
			return nil, errValue(string(num), t, detail)
		}
		return d, nil
	case types.KindTimestamp, types.KindTimestampLTZ:
		if vp.format == "" {
			if n, ok := FastInt(num); ok {
				if n < MinEpochMillis || n > MaxEpochMillis {
					return nil, errValue(string(num), t, epochRange)
				}
				return MakeTimestamp(n, 0, t.Kind == types.KindTimestampLTZ), nil
			}
			return nil, errValue(string(num), t, "expected epoch milliseconds")
		}
	case types.KindIntervalDayTime:
		if n, ok := FastInt(num); ok {
			return types.Duration(n), nil
		}
	case types.KindIntervalYearMonth:
		if n, ok := FastInt(num); ok && n >= math.MinInt32 && n <= math.MaxInt32 {
			return types.Period(n), nil
		}
	}
	return nil, errValue(string(num), t, "")
}

// parseJSONText is Value for ARRAY, MAP, ROW and DESCRIPTOR: the JSON
// text null gives nil.
func (vp *Parser) parseJSONText(text string, t *types.Type) (any, error) {
	if !utf8.ValidString(text) {
		return nil, errValue(text, t, "invalid UTF-8")
	}
	p := JSON{data: []byte(text), vp: vp}
	v, err := p.Value(t)
	if err == nil {
		p.SkipWS()
		if p.pos < len(p.data) {
			err = p.Unexpected(p.pos, "the end of the value")
		}
	}
	if err != nil {
		je := err.(*JSONError)
		return nil, errValue(text, t, fmt.Sprintf("%s (at byte %d)", je.Msg, je.Pos+1))
	}
	return v, nil
}
