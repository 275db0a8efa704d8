package expr

import (
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// String functions of the catalogue (functions.go).

// stringMap is a function of one string to a string; keep keeps the
// argument's type (UPPER('abc') is CHAR(3)), else the result is STRING.
func stringMap(fn func(string) string, keep bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.plainArity(1, 1); err != nil {
			return nil, err
		}
		if err := c.wantString(0); err != nil {
			return nil, err
		}
		t := types.TypeString
		if keep && !isNull(c.args[0].Type()) {
			t = c.args[0].Type()
		}
		return strict(t, false, c.args, func(v []any) (any, error) {
			out := fn(v[0].(string))
			if keep && t.Length < types.MaxLength && utf8.RuneCountInString(out) > t.Length {
				// Flink's result has the argument's type: UPPER('straße')
				// is CHAR(6), STRASS.
				out = string([]rune(out)[:t.Length])
			}
			return out, nil
		}), nil
	}
}

// stringFunc is a function of lo to hi strings; fn's false result is NULL.
func stringFunc(lo, hi int, fn func(v []string) (any, bool)) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.plainArity(lo, hi); err != nil {
			return nil, err
		}
		for i := range c.args {
			if err := c.wantString(i); err != nil {
				return nil, err
			}
		}
		return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
			s := make([]string, len(v))
			for i, x := range v {
				s[i] = x.(string)
			}
			r, ok := fn(s)
			if !ok {
				return nil, nil
			}
			return r, nil
		}), nil
	}
}

func initCap(s string) string {
	var b strings.Builder
	start := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start {
				b.WriteRune(unicode.ToUpper(r))
			} else {
				b.WriteRune(unicode.ToLower(r))
			}
			start = false
		} else {
			b.WriteRune(r)
			start = true
		}
	}
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// varcharOf is VARCHAR of the length of a string type (STRING otherwise).
func varcharOf(t types.Type) types.Type {
	if t.IsString() {
		return types.Type{Kind: types.KindVarChar, Length: t.Length}
	}
	return types.TypeString
}

func compileTrim(c *call) (Expr, error) {
	f := c.f
	if f.Star || f.Distinct || f.In != nil || f.To != nil || f.For != nil {
		return nil, c.errorf("the syntax is %s", functionIndex[c.name].Signature)
	}
	side := strings.ToUpper(f.Trim)
	var s, chars Expr
	switch {
	case c.name != "TRIM":
		if err := c.plainArity(1, 1); err != nil {
			return nil, err
		}
		s, side = c.args[0], map[string]string{"LTRIM": "LEADING", "RTRIM": "TRAILING"}[c.name]
	case f.From != nil:
		if err := c.arity(0, 1); err != nil {
			return nil, err
		}
		x, err := Compile(f.From, c.sc)
		if err != nil {
			return nil, err
		}
		s = x
		if len(c.args) == 1 {
			chars = c.args[0]
		}
	default:
		// TRIM(s) and TRIM(BOTH s): Calcite reads a lone argument as the
		// string, cut of spaces.
		if err := c.arity(1, 1); err != nil {
			return nil, err
		}
		s = c.args[0]
	}
	if side == "" {
		side = "BOTH"
	}
	args := []Expr{s}
	if chars == nil {
		chars = &Constant{v: " ", t: types.Type{Kind: types.KindChar, Length: 1, NotNull: true}}
	}
	args = append(args, chars)
	for i, a := range args {
		if t := a.Type(); !t.IsString() && !isNull(t) {
			return nil, c.errorf("argument %d must be a string, not %s", i+1, t)
		}
	}
	return strict(varcharOf(s.Type()), false, args, func(v []any) (any, error) {
		str, cut := v[0].(string), v[1].(string)
		if side != "TRAILING" {
			str = strings.TrimLeft(str, cut)
		}
		if side != "LEADING" {
			str = strings.TrimRight(str, cut)
		}
		return str, nil
	}), nil
}

func compileCharLength(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	return strict(types.TypeInt, false, c.args, func(v []any) (any, error) {
		return int64(utf8.RuneCountInString(v[0].(string))), nil
	}), nil
}

// compileSubstring is Flink's SUBSTRING: start is 1-based, 0 counts as 1,
// a negative start counts from the end; a negative length is NULL.
func compileSubstring(c *call) (Expr, error) {
	f := c.f
	args := c.args
	if f.From != nil {
		if f.Star || f.Distinct || f.Trim != "" || len(args) != 1 {
			return nil, c.errorf("the syntax is %s", functionIndex["SUBSTRING"].Signature)
		}
		for _, e := range []*sqlmini.Expr{f.From, f.For} {
			if e == nil {
				continue
			}
			x, err := Compile(e, c.sc)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		c.args = args
	} else {
		if err := c.plainArity(2, 3); err != nil {
			return nil, err
		}
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	for i := 1; i < len(args); i++ {
		if err := c.wantInteger(i); err != nil {
			return nil, err
		}
	}
	return strict(varcharOf(args[0].Type()), true, args, func(v []any) (any, error) {
		r := []rune(v[0].(string))
		n := int64(len(r))
		pos := v[1].(int64)
		var start int64
		switch {
		case pos > 0:
			start = pos - 1
		case pos < 0:
			start = n + pos
		}
		end := n
		if len(v) == 3 {
			l := v[2].(int64)
			if l < 0 {
				return nil, nil
			}
			if l < n+max(-start, 0)+1 { // start+l without overflow
				end = min(start+l, n)
			}
		}
		start = max(start, 0)
		if start >= end {
			return "", nil
		}
		return string(r[start:end]), nil
	}), nil
}

func compileLeftRight(c *call) (Expr, error) {
	if err := c.plainArity(2, 2); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	if err := c.wantInteger(1); err != nil {
		return nil, err
	}
	left := c.name == "LEFT"
	return strict(varcharOf(c.args[0].Type()), true, c.args, func(v []any) (any, error) {
		r := []rune(v[0].(string))
		n := v[1].(int64)
		if n <= 0 {
			return "", nil
		}
		if n >= int64(len(r)) {
			return string(r), nil
		}
		if left {
			return string(r[:n]), nil
		}
		return string(r[int64(len(r))-n:]), nil
	}), nil
}

func compileConcat(c *call) (Expr, error) {
	if err := c.plain(); err != nil {
		return nil, err
	}
	ws := c.name == "CONCAT_WS"
	if ws {
		if err := c.arity(2, -1); err != nil {
			return nil, err
		}
	} else if err := c.arity(1, -1); err != nil {
		return nil, err
	}
	for i := range c.args {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	if !ws {
		return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
			var b strings.Builder
			for _, s := range v {
				b.WriteString(s.(string))
			}
			return b.String(), nil
		}), nil
	}
	args := c.args
	t := types.TypeString
	t.NotNull = true // NULL arguments are skipped, but Flink types it nullable when one may be NULL
	for _, a := range args {
		t.NotNull = t.NotNull && a.Type().NotNull
	}
	return &funcExpr{t: t, konst: allConstant(args...), f: func(row []any) (any, error) {
		sep, err := args[0].Eval(row)
		if sep == nil || err != nil {
			return nil, err
		}
		var parts []string
		for _, a := range args[1:] {
			v, err := a.Eval(row)
			if err != nil {
				return nil, err
			}
			if v != nil {
				parts = append(parts, v.(string))
			}
		}
		return strings.Join(parts, sep.(string)), nil
	}}, nil
}

// maxStringBytes bounds what REPEAT, LPAD and RPAD build, so that a
// query cannot ask for gigabytes.
const maxStringBytes = 64 << 20

func compileRepeat(c *call) (Expr, error) {
	if err := c.plainArity(2, 2); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	if err := c.wantInteger(1); err != nil {
		return nil, err
	}
	pos := c.f.Pos
	return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
		s, n := v[0].(string), v[1].(int64)
		if n <= 0 || s == "" {
			return "", nil
		}
		if n > maxStringBytes/int64(len(s)) {
			return nil, sqlmini.Errorf(pos, "REPEAT: the result would be longer than %d bytes", maxStringBytes)
		}
		return strings.Repeat(s, int(n)), nil
	}), nil
}

func compilePad(c *call) (Expr, error) {
	if err := c.plainArity(3, 3); err != nil {
		return nil, err
	}
	for _, i := range []int{0, 2} {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	if err := c.wantInteger(1); err != nil {
		return nil, err
	}
	left := c.name == "LPAD"
	pos := c.f.Pos
	// A negative length gives NULL: the type is nullable unless the
	// length is a constant that is not.
	nullable := true
	if n := c.args[1]; n.IsConstant() {
		if v, err := n.Eval(nil); err == nil && v != nil && v.(int64) >= 0 {
			nullable = false
		}
	}
	return strict(types.TypeString, nullable, c.args, func(v []any) (any, error) {
		r, n, pad := []rune(v[0].(string)), v[1].(int64), []rune(v[2].(string))
		if n < 0 {
			return nil, nil
		}
		if n > maxStringBytes {
			return nil, sqlmini.Errorf(pos, "%s: the result would be longer than %d characters", map[bool]string{true: "LPAD", false: "RPAD"}[left], maxStringBytes)
		}
		if n <= int64(len(r)) {
			return string(r[:n]), nil
		}
		if len(pad) == 0 {
			return nil, nil
		}
		fill := make([]rune, 0, n-int64(len(r)))
		for i := 0; int64(len(fill)) < n-int64(len(r)); i++ {
			fill = append(fill, pad[i%len(pad)])
		}
		if left {
			return string(fill) + string(r), nil
		}
		return string(r) + string(fill), nil
	}), nil
}

func compileLocate(c *call) (Expr, error) {
	args := c.args
	if c.name == "POSITION" {
		if c.f.In == nil || len(args) != 1 || c.f.Star || c.f.Distinct || c.f.Trim != "" {
			return nil, c.errorf("the syntax is POSITION(needle IN s)")
		}
		x, err := Compile(c.f.In, c.sc)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
		c.args = args
	} else {
		if err := c.plainArity(2, 3); err != nil {
			return nil, err
		}
	}
	for i := range 2 {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	if len(args) == 3 {
		if err := c.wantInteger(2); err != nil {
			return nil, err
		}
	}
	return strict(types.TypeInt, false, args, func(v []any) (any, error) {
		needle, s := []rune(v[0].(string)), []rune(v[1].(string))
		from := int64(1)
		if len(v) == 3 {
			from = v[2].(int64)
		}
		if from < 1 || from > int64(len(s))+1 {
			return int64(0), nil
		}
		i := strings.Index(string(s[from-1:]), string(needle))
		if i < 0 {
			return int64(0), nil
		}
		return from + int64(utf8.RuneCountInString(string(s[from-1:])[:i])), nil
	}), nil
}

// compileRegexp is REGEXP, REGEXP_EXTRACT and REGEXP_REPLACE. Patterns
// are RE2's (Go's regexp), which has Java's syntax for what both have
// (no backreferences, no lookaround). A pattern that does not compile
// gives NULL, as in Flink.
func compileRegexp(c *call) (Expr, error) {
	if err := c.plain(); err != nil {
		return nil, err
	}
	lo, hi := 2, 2
	switch c.name {
	case "REGEXP_EXTRACT":
		hi = 3
	case "REGEXP_REPLACE":
		lo, hi = 3, 3
	}
	if err := c.arity(lo, hi); err != nil {
		return nil, err
	}
	for i := range c.args {
		if c.name == "REGEXP_EXTRACT" && i == 2 {
			if err := c.wantInteger(i); err != nil {
				return nil, err
			}
			continue
		}
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	cache := map[string]*regexp.Regexp{}
	compile := func(p string) *regexp.Regexp {
		if re, ok := cache[p]; ok {
			return re
		}
		re, _ := regexp.Compile(p)
		if len(cache) < 64 {
			cache[p] = re
		}
		return re
	}
	switch c.name {
	case "REGEXP":
		return strict(types.TypeBoolean, false, c.args, func(v []any) (any, error) {
			re := compile(v[1].(string))
			if re == nil {
				return nil, nil
			}
			return re.MatchString(v[0].(string)), nil
		}), nil
	case "REGEXP_REPLACE":
		return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
			re := compile(v[1].(string))
			if re == nil {
				return nil, nil
			}
			// Flink replaces with the text as it is ('$1' is not a group).
			return re.ReplaceAllLiteralString(v[0].(string), v[2].(string)), nil
		}), nil
	}
	return strict(types.TypeString, true, c.args, func(v []any) (any, error) {
		re := compile(v[1].(string))
		if re == nil {
			return nil, nil
		}
		group := int64(0)
		if len(v) == 3 {
			group = v[2].(int64)
		}
		m := re.FindStringSubmatchIndex(v[0].(string))
		if m == nil || group < 0 || group > int64(re.NumSubexp()) || m[2*group] < 0 {
			return nil, nil
		}
		return v[0].(string)[m[2*group]:m[2*group+1]], nil
	}), nil
}

func compileSplitIndex(c *call) (Expr, error) {
	if err := c.plainArity(3, 3); err != nil {
		return nil, err
	}
	for i := range 2 {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	if err := c.wantInteger(2); err != nil {
		return nil, err
	}
	return strict(types.TypeString, true, c.args, func(v []any) (any, error) {
		s, sep, i := v[0].(string), v[1].(string), v[2].(int64)
		if i < 0 {
			return nil, nil
		}
		var parts []string
		if sep == "" {
			// commons-lang's splitByWholeSeparatorPreserveAllTokens, which
			// Flink calls, splits at each white space character then.
			parts = strings.FieldsFunc(s, unicode.IsSpace)
			if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
				parts = splitSpacePreserving(s)
			}
		} else {
			parts = strings.Split(s, sep)
		}
		if i >= int64(len(parts)) {
			return nil, nil
		}
		return parts[i], nil
	}), nil
}

// digest is MD5, SHA1 or a SHA-2 (SHA224 ... SHA512) of a string, in lower-case hex: CHAR(n).
func digest(name string) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.plainArity(1, 1); err != nil {
			return nil, err
		}
		if err := c.wantString(0); err != nil {
			return nil, err
		}
		var h func([]byte) []byte
		switch name {
		case "MD5":
			h = func(b []byte) []byte { s := md5.Sum(b); return s[:] }
		case "SHA1":
			h = func(b []byte) []byte { s := sha1.Sum(b); return s[:] }
		case "SHA224":
			h = sha2(224)
		case "SHA384":
			h = sha2(384)
		case "SHA512":
			h = sha2(512)
		default:
			h = sha2(256)
		}
		t := types.Type{Kind: types.KindChar, Length: 2 * len(h(nil))}
		return strict(t, false, c.args, func(v []any) (any, error) {
			return hex.EncodeToString(h([]byte(v[0].(string)))), nil
		}), nil
	}
}

// splitSpacePreserving splits s at each white space character, keeping
// the empty pieces between adjacent ones.
func splitSpacePreserving(s string) []string {
	var parts []string
	start := 0
	for i, r := range s {
		if unicode.IsSpace(r) {
			parts = append(parts, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(parts, s[start:])
}

// javaUpper upper-cases as Java's String.toUpperCase does where Go's
// differs: ß becomes SS.
func javaUpper(s string) string {
	return strings.ReplaceAll(strings.ToUpper(s), "ß", "SS")
}

func compileASCII(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	return strict(types.TypeInt, false, c.args, func(v []any) (any, error) {
		s := v[0].(string)
		if s == "" {
			return int64(0), nil
		}
		return int64(s[0]), nil
	}), nil
}

func compileChr(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantInteger(0); err != nil {
		return nil, err
	}
	return strict(types.TypeString, true, c.args, func(v []any) (any, error) {
		n := v[0].(int64)
		if n < 0 {
			return nil, nil
		}
		return string(rune(n % 256)), nil
	}), nil
}

// compileStrToMap is STR_TO_MAP(text [, listDelimiter [, keyValueDelimiter]]):
// text split at listDelimiter (default ',') into pairs, each split at its
// first keyValueDelimiter (default '=') into a key and a value (NULL when
// the pair has none). The delimiters are Java regular expressions, as
// Flink's String.split reads them; a later pair replaces an earlier one
// of the same key.
func compileStrToMap(c *call) (Expr, error) {
	if err := c.plainArity(1, 3); err != nil {
		return nil, err
	}
	for i := range c.args {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	str := types.TypeString
	t := types.Type{Kind: types.KindMap, Key: &str, Elem: &str}
	return strict(t, true, c.args, func(v []any) (any, error) {
		text := v[0].(string)
		list, kv := ",", "="
		if len(v) > 1 {
			list = v[1].(string)
		}
		if len(v) > 2 {
			kv = v[2].(string)
		}
		m := &types.Map{}
		if text == "" {
			return m, nil
		}
		pairs, err := javaSplit(text, list, -1)
		if err != nil {
			return nil, c.errorf("the list delimiter %q: %v", list, err)
		}
		at := map[string]int{}
		for _, p := range pairs {
			parts, err := javaSplit(p, kv, 2)
			if err != nil {
				return nil, c.errorf("the key-value delimiter %q: %v", kv, err)
			}
			var val any
			if len(parts) == 2 {
				val = parts[1]
			}
			if i, ok := at[parts[0]]; ok {
				m.Values[i] = val
				continue
			}
			at[parts[0]] = len(m.Keys)
			m.Keys, m.Values = append(m.Keys, parts[0]), append(m.Values, val)
		}
		return m, nil
	}), nil
}

// javaSplit splits s as Java's String.split(regex, limit) does: at most
// limit pieces (limit <= 0: all, and trailing empty pieces dropped).
func javaSplit(s, delim string, limit int) ([]string, error) {
	var parts []string
	if len(delim) == 1 && !strings.ContainsAny(delim, `.$|()[{^?*+\`) {
		parts = strings.SplitN(s, delim, max(limit, -1))
	} else {
		re, err := regexp.Compile(delim)
		if err != nil {
			return nil, err
		}
		if limit <= 0 {
			limit = -1
		}
		parts = re.Split(s, limit)
	}
	if limit <= 0 {
		for len(parts) > 1 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		if len(parts) == 1 && parts[0] == "" && s != "" {
			parts = nil // only delimiters: Java gives no pieces
		}
	}
	return parts, nil
}
