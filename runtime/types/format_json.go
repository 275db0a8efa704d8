package types

import (
	"strconv"
	"unicode/utf8"
)

// Values printed as JSON (the json format and ARRAY, MAP and ROW in CSV).

// AppendJSON appends the JSON encoding of a value of type t.
func AppendJSON(b []byte, v any, t Type) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool, int64:
		return appendJava(b, v, t)
	case float64:
		start := len(b)
		b = appendJava(b, v, t)
		if c := b[start]; c == 'N' || c == 'I' || (c == '-' && b[start+1] == 'I') {
			s := string(b[start:])
			return AppendJSONString(b[:start], s)
		}
		return b
	case Decimal:
		return appendBigDecimal(b, x, true)
	case string:
		return AppendJSONString(b, x)
	case Descriptor:
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, s)
		}
		return append(b, ']')
	case []any:
		et := TypeOrZero(t.Elem)
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSON(b, e, et)
		}
		return append(b, ']')
	case *Map:
		if x == nil {
			return append(b, "null"...)
		}
		return appendJSONMap(b, x, t)
	case Row:
		return appendJSONRow(b, x, t)
	}
	start := len(b)
	b = AppendText(b, v, t)
	s := string(b[start:])
	return AppendJSONString(b[:start], s)
}

func appendJSONMap(b []byte, m *Map, t Type) []byte {
	kt, vt := TypeOrZero(t.Key), TypeOrZero(t.Elem)
	object := true
	for _, k := range m.Keys {
		if _, ok := k.(string); !ok {
			object = false
			break
		}
	}
	if object {
		b = append(b, '{')
		for i, k := range m.Keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, k.(string))
			b = append(b, ':')
			b = AppendJSON(b, mapValueAt(m, i), vt)
		}
		return append(b, '}')
	}
	b = append(b, '[')
	for i, k := range m.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = AppendJSON(b, k, kt)
		b = append(b, ',')
		b = AppendJSON(b, mapValueAt(m, i), vt)
		b = append(b, ']')
	}
	return append(b, ']')
}

// AppendJSONString appends s as a JSON string, escaping as encoding/json
// does except for <, > and &.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONRow appends a ROW as an object; fields without a declared name
// are named f0, f1, ... as Flink names them.
func appendJSONRow(b []byte, r Row, t Type) []byte {
	b = append(b, '{')
	for i, f := range r.Fields {
		if i > 0 {
			b = append(b, ',')
		}
		if i < len(t.Fields) && t.Fields[i].Name != "" {
			b = AppendJSONString(b, t.Fields[i].Name)
		} else {
			b = AppendJSONString(b, "f"+strconv.Itoa(i))
		}
		b = append(b, ':')
		b = AppendJSON(b, f, rowFieldType(t, i))
	}
	return append(b, '}')
}
