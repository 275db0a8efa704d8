package expr

import (
	"encoding/hex"
	"net/url"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// String functions that Flink 2 added (StringFunctionsITCase's specs):
// STARTSWITH, ENDSWITH, BTRIM, ELT, TRANSLATE, PRINTF, and BIN, HEX, URL_ENCODE,
// URL_DECODE, each on character strings.

var flink2Functions = []Function{
	{Name: "STARTSWITH", Signature: "STARTSWITH(s, prefix)", Doc: "whether s starts with prefix (TRUE for an empty prefix)", compile: stringTest(strings.HasPrefix)},
	{Name: "ENDSWITH", Signature: "ENDSWITH(s, suffix)", Doc: "whether s ends with suffix (TRUE for an empty suffix)", compile: stringTest(strings.HasSuffix)},
	{Name: "BTRIM", Signature: "BTRIM(s [, chars])", Doc: "s without the characters of chars (default: the space) at both ends", compile: stringFunc(1, 2, func(v []string) (any, bool) {
		cut := " "
		if len(v) == 2 {
			cut = v[1]
		}
		return strings.Trim(v[0], cut), true
	})},
	{Name: "ELT", Signature: "ELT(index, s1, s2, ...)", Doc: "the index-th (1-based) of the strings; NULL when index is NULL or out of range", compile: compileElt},
	{Name: "TRANSLATE", Signature: "TRANSLATE(s, from, to)", Doc: "s with each character of from replaced by the one at its place in to, or removed when to is shorter", compile: stringFunc(3, 3, func(v []string) (any, bool) {
		return translate(v[0], v[1], v[2]), true
	})},
	{Name: "PRINTF", Signature: "PRINTF(format, arg, ...)", Doc: "the arguments formatted by format as Java's String.format does (Locale.US); NULL when format is NULL or Java refuses it", compile: compilePrintf},
	{Name: "BIN", Signature: "BIN(n)", Doc: "the integer n in binary (a negative n as its 64-bit two's complement)", compile: compileBin},
	{Name: "HEX", Signature: "HEX(n | s)", Doc: "the integer n in hexadecimal, or the UTF-8 bytes of string s, in upper case", compile: compileHex},
	{Name: "URL_ENCODE", Signature: "URL_ENCODE(s)", Doc: "s encoded as application/x-www-form-urlencoded text (Java's URLEncoder, UTF-8)", compile: stringFunc(1, 1, func(v []string) (any, bool) {
		return urlEncode(v[0]), true
	})},
	{Name: "URL_DECODE", Signature: "URL_DECODE(s)", Doc: "s decoded from application/x-www-form-urlencoded text; NULL when it is not", compile: stringFunc(1, 1, func(v []string) (any, bool) {
		s, err := url.QueryUnescape(v[0])
		return s, err == nil
	})},
}

// stringTest is a BOOLEAN function of two strings.
func stringTest(fn func(s, x string) bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.plainArity(2, 2); err != nil {
			return nil, err
		}
		for i := range c.args {
			if err := c.wantString(i); err != nil {
				return nil, err
			}
		}
		return strict(types.TypeBoolean, false, c.args, func(v []any) (any, error) {
			return fn(v[0].(string), v[1].(string)), nil
		}), nil
	}
}

func compileElt(c *call) (Expr, error) {
	if err := c.plainArity(2, -1); err != nil {
		return nil, err
	}
	if err := c.wantInteger(0); err != nil {
		return nil, err
	}
	for i := 1; i < len(c.args); i++ {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	if x := c.args[0]; x.IsConstant() {
		if v, err := x.Eval(nil); err == nil && v != nil && v.(int64) < 0 {
			return nil, c.errorf("Index must be an integer starting from '0', but was '%d'.", v.(int64))
		}
	}
	args := c.args
	return &funcExpr{t: types.TypeString, konst: allConstant(args...), f: func(row []any) (any, error) {
		v, err := args[0].Eval(row)
		if v == nil || err != nil {
			return nil, err
		}
		i := v.(int64)
		if i < 1 || i >= int64(len(args)) {
			return nil, nil
		}
		return args[i].Eval(row)
	}}, nil
}

// translate maps each character of s found in from to the one at the same
// place in to, dropping it when to has none there.
func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	var b strings.Builder
	for _, r := range s {
		i := -1
		for j, x := range f {
			if x == r {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			b.WriteRune(r)
		case i < len(t):
			b.WriteRune(t[i])
		}
	}
	return b.String()
}

func compileBin(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantInteger(0); err != nil {
		return nil, err
	}
	return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
		return strconv.FormatUint(uint64(v[0].(int64)), 2), nil
	}), nil
}

func compileHex(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if t := c.args[0].Type(); t.IsString() {
		return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
			return strings.ToUpper(hex.EncodeToString([]byte(v[0].(string)))), nil
		}), nil
	}
	if err := c.wantInteger(0); err != nil {
		return nil, err
	}
	return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
		return strings.ToUpper(strconv.FormatUint(uint64(v[0].(int64)), 16)), nil
	}), nil
}

// urlEncode is Java's URLEncoder.encode(s, UTF-8): letters, digits and
// .-*_ stay, a space is +, any other byte is %XX.
func urlEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9', ch == '.', ch == '-', ch == '*', ch == '_':
			b.WriteByte(ch)
		case ch == ' ':
			b.WriteByte('+')
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{ch})))
		}
	}
	return b.String()
}
