package expr

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Function is one built-in scalar function: its name, its signature as
// Flink's documentation writes it, one line on what it does, and how a
// call compiles. The catalogue (Functions) is the one list of them: the
// compiler looks names up in it, SHOW FUNCTIONS lists it, and the table of
// functions of docs/sql.md is checked against it.
type Function struct {
	Name      string
	Signature string
	Doc       string
	// unit: the first argument is a time unit (EXTRACT(DAY FROM t),
	// TIMESTAMPADD(DAY, 1, t)), a word rather than an expression.
	unit    bool
	compile func(c *call) (Expr, error)
}

// TakesUnit reports whether the function's first argument is a time unit
// word (EXTRACT, TIMESTAMPADD, TIMESTAMPDIFF) rather than an expression.
func (f Function) TakesUnit() bool { return f.unit }

// Deterministic reports whether the function gives the same result for
// the same arguments: not those that read the clock.
func (f Function) Deterministic() bool {
	switch f.Name {
	case "NOW", "CURRENT_ROW_TIMESTAMP", "UNIX_TIMESTAMP", "RAND", "RAND_INTEGER":
		return false
	}
	return !niladic(f.Name)
}

// IsNiladic reports whether name is a function written without
// parentheses, such as CURRENT_TIMESTAMP.
func IsNiladic(name string) bool { return niladic(name) }

// call is a function call being compiled: its syntax, its name in upper
// case and its compiled arguments (those before FROM, IN or TO).
type call struct {
	f    *sqlmini.FuncCall
	name string
	args []Expr
	sc   *Scope
}

func (c *call) errorf(format string, a ...any) error {
	return sqlmini.Errorf(c.f.Pos, "%s: %s", c.name, fmt.Sprintf(format, a...))
}

// arity checks the number of arguments: between lo and hi (hi < 0: any).
func (c *call) arity(lo, hi int) error {
	n := len(c.args)
	if n >= lo && (hi < 0 || n <= hi) {
		return nil
	}
	switch {
	case lo == hi:
		return c.errorf("takes %d argument(s), got %d (%s)", lo, n, functionIndex[c.name].Signature)
	case hi < 0:
		return c.errorf("takes at least %d argument(s), got %d (%s)", lo, n, functionIndex[c.name].Signature)
	}
	return c.errorf("takes %d to %d arguments, got %d (%s)", lo, hi, n, functionIndex[c.name].Signature)
}

// plainArity is plain, then arity: the checks of a function called as
// name(arg, ...).
func (c *call) plainArity(lo, hi int) error {
	if err := c.plain(); err != nil {
		return err
	}
	return c.arity(lo, hi)
}

// plain refuses the keyword forms (FROM, IN, TO, BOTH/LEADING/TRAILING,
// *, DISTINCT) for a function that has none.
func (c *call) plain() error {
	f := c.f
	switch {
	case f.Star:
		return c.errorf("* is only allowed in COUNT(*)")
	case f.Distinct:
		return c.errorf("DISTINCT is only allowed in an aggregate function")
	case f.Trim != "":
		return c.errorf("%s is only allowed in TRIM", strings.ToUpper(f.Trim))
	case f.Placing != nil:
		return c.errorf("PLACING is only allowed in OVERLAY")
	case f.From != nil:
		return c.errorf("FROM is only allowed in EXTRACT, SUBSTRING, OVERLAY and TRIM")
	case f.In != nil:
		return c.errorf("IN is only allowed in POSITION")
	case f.To != nil:
		return c.errorf("TO is only allowed in FLOOR and CEIL of a time value")
	case f.JSON != nil:
		return c.errorf("RETURNING, WRAPPER and ON EMPTY | ERROR | NULL clauses are only allowed in the JSON functions")
	}
	return nil
}

func isNull(t types.Type) bool { return t.Kind == types.KindNull }

// want checks that argument i is of a kind ok accepts (or an untyped NULL).
func (c *call) want(i int, what string, ok func(types.Type) bool) error {
	t := c.args[i].Type()
	if isNull(t) || ok(t) {
		return nil
	}
	return c.errorf("argument %d must be %s, not %s (%s)", i+1, what, t, functionIndex[c.name].Signature)
}

func (c *call) wantString(i int) error {
	return c.want(i, "a string", types.Type.IsString)
}

func (c *call) wantNumeric(i int) error {
	return c.want(i, "a number", types.Type.IsNumeric)
}

func (c *call) wantInteger(i int) error {
	return c.want(i, "an integer", types.Type.IsInteger)
}

// strict builds a function of its arguments that is NULL when any argument
// is NULL (most of Flink's functions). t is the result type; it is NOT
// NULL when every argument is, unless nullable is set.
func strict(t types.Type, nullable bool, args []Expr, fn func(v []any) (any, error)) Expr {
	notNull := !nullable
	for _, a := range args {
		notNull = notNull && a.Type().NotNull
	}
	t.NotNull = notNull
	return &funcExpr{t: t, konst: allConstant(args...), f: func(row []any) (any, error) {
		vals := make([]any, len(args))
		for i, a := range args {
			v, err := a.Eval(row)
			if v == nil || err != nil {
				return nil, err
			}
			vals[i] = v
		}
		return fn(vals)
	}}
}

// Functions returns the catalogue of built-in scalar functions, by name.
func Functions() []Function {
	out := make([]Function, len(functions))
	copy(out, functions)
	return out
}

// LookupFunction returns the built-in scalar function of a name (any case).
func LookupFunction(name string) (Function, bool) {
	f, ok := functionIndex[strings.ToUpper(name)]
	return f, ok
}

var functionIndex = map[string]Function{}

func init() {
	functions = append(functions, timeFunctions...)
	functions = append(functions, mathFunctions...)
	functions = append(functions, flink2Functions...)
	functions = append(functions, jsonFunctions...)
	sort.Slice(functions, func(i, j int) bool { return functions[i].Name < functions[j].Name })
	for _, f := range functions {
		functionIndex[f.Name] = f
	}
}

// CheckCall returns the error that compiling f would give for its name
// alone, before its arguments are compiled: an unknown function, an
// aggregate or window function that is not allowed here. nil for a
// function that exists.
func CheckCall(f *sqlmini.FuncCall, sc *Scope) error {
	name := strings.ToUpper(string(f.Name.Value))
	if sc != nil && sc.UserFunction != nil {
		if _, ok := sc.UserFunction(string(f.Name.Value)); ok {
			return nil
		}
	}
	if _, ok := functionIndex[name]; ok {
		return nil
	}
	_, err := compileFunc(&sqlmini.FuncCall{Pos: f.Pos, Name: f.Name}, nil)
	return err
}

// compileFunc compiles a call of a built-in scalar function.
func compileFunc(f *sqlmini.FuncCall, sc *Scope) (Expr, error) {
	name := strings.ToUpper(string(f.Name.Value))
	if f.Over != nil {
		if sc == nil || sc.Over == nil {
			return nil, sqlmini.Errorf(f.Over.Pos, "an OVER window is only allowed in a SELECT list")
		}
		return sc.Over(f)
	}
	switch name {
	case "COUNT", "SUM", "MIN", "MAX", "AVG", "STDDEV_POP", "STDDEV_SAMP", "STDDEV", "VAR_POP", "VAR_SAMP", "VARIANCE",
		"LISTAGG", "ARRAY_AGG", "COLLECT", "PERCENTILE", "JSON_OBJECTAGG", "JSON_ARRAYAGG":
		return nil, sqlmini.Errorf(f.Pos, "aggregate function %s is only allowed in a SELECT list or HAVING (with or without GROUP BY), not here", name)
	case "DAY":
		return nil, sqlmini.Errorf(f.Pos, "DAY is not a function in Flink SQL: write DAYOFMONTH(x) or EXTRACT(DAY FROM x)")
	case "TUMBLE", "HOP", "SESSION":
		return nil, sqlmini.Errorf(f.Pos, "the group window function %s stands in a GROUP BY: GROUP BY %s(time_attribute, ...), other keys", name, name)
	case "CUMULATE":
		return nil, sqlmini.Errorf(f.Pos, "CUMULATE is a window table function: FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), step, size))")
	case "TUMBLE_START", "TUMBLE_END", "TUMBLE_ROWTIME", "TUMBLE_PROCTIME", "HOP_START", "HOP_END", "HOP_ROWTIME", "HOP_PROCTIME",
		"SESSION_START", "SESSION_END", "SESSION_ROWTIME", "SESSION_PROCTIME":
		return nil, sqlmini.Errorf(f.Pos, "%s reads the window of a query grouped by %s(...) with the same arguments: GROUP BY %s(time_attribute, ...)", name, name[:strings.IndexByte(name, '_')], name[:strings.IndexByte(name, '_')])
	case "ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "NTILE", "LAG", "LEAD":
		return nil, sqlmini.Errorf(f.Pos, "the window function %s needs an OVER window: %s(...) OVER (PARTITION BY ... ORDER BY ...)", name, name)
	case "FIRST_VALUE", "LAST_VALUE", "BIT_AND", "BIT_OR", "BIT_XOR":
		return nil, sqlmini.Errorf(f.Pos, "the aggregate function %s is not supported yet (COUNT, SUM, MIN, MAX, AVG, the STDDEV and VAR functions, LISTAGG, ARRAY_AGG, COLLECT, PERCENTILE, JSON_OBJECTAGG and JSON_ARRAYAGG are)", name)
	}
	if f.Filter != nil {
		return nil, sqlmini.Errorf(f.Filter.Pos, "FILTER (WHERE ...) is for aggregate calls of a SELECT list or HAVING, and %s is not one", f.Name.Value)
	}
	if sc != nil && sc.UserFunction != nil {
		// A function of the catalog hides a built-in of its name, as a
		// temporary system function hides one in Flink.
		if def, ok := sc.UserFunction(string(f.Name.Value)); ok {
			return compileUserFunc(f, def, sc) // userfunc.go
		}
	}
	fn, ok := functionIndex[name]
	if !ok {
		return nil, sqlmini.Errorf(f.Pos, "unknown function %s (SHOW FUNCTIONS lists them)", f.Name.Value)
	}
	exprs := f.Args
	if fn.unit && len(exprs) > 0 {
		exprs = exprs[1:]
	}
	args, err := compileList(exprs, sc)
	if err != nil {
		return nil, err
	}
	if fn.unit && len(f.Args) > 0 {
		// The unit's place, so that argument numbers stay as written.
		args = append([]Expr{&Constant{}}, args...)
	}
	return fn.compile(&call{f: f, name: name, args: args, sc: sc})
}

var functions = []Function{
	// ---- conditional ----
	{Name: "COALESCE", Signature: "COALESCE(v1, v2, ...)", Doc: "the first argument that is not NULL", compile: compileCoalesce},
	{Name: "IF", Signature: "IF(condition, a, b)", Doc: "a when condition is TRUE, else b (also when it is NULL)", compile: compileIf},
	{Name: "NULLIF", Signature: "NULLIF(a, b)", Doc: "NULL when a equals b, else a", compile: compileNullIf},
	{Name: "GREATEST", Signature: "GREATEST(v1, v2, ...)", Doc: "the largest argument; NULL when any is NULL", compile: compileGreatest},
	{Name: "LEAST", Signature: "LEAST(v1, v2, ...)", Doc: "the smallest argument; NULL when any is NULL", compile: compileGreatest},

	// ---- numeric ----
	{Name: "ABS", Signature: "ABS(n)", Doc: "the absolute value, of n's type", compile: compileAbs},
	{Name: "ROUND", Signature: "ROUND(n [, d])", Doc: "n rounded half away from zero to d decimal places (default 0; negative rounds left of the point)", compile: compileRound},
	{Name: "TRUNCATE", Signature: "TRUNCATE(n [, d])", Doc: "n cut toward zero to d decimal places (default 0)", compile: compileRound},
	{Name: "FLOOR", Signature: "FLOOR(n) | FLOOR(t TO unit)", Doc: "the largest integer not above n; a time rounded down to a unit (YEAR ... SECOND, WEEK)", compile: compileFloorCeil},
	{Name: "CEIL", Signature: "CEIL(n) | CEIL(t TO unit)", Doc: "the smallest integer not below n; a time rounded up to a unit", compile: compileFloorCeil},
	{Name: "CEILING", Signature: "CEILING(n) | CEILING(t TO unit)", Doc: "CEIL", compile: compileFloorCeil},
	{Name: "MOD", Signature: "MOD(a, b)", Doc: "the remainder of a / b, with a's sign (a % b)", compile: func(c *call) (Expr, error) {
		if err := c.plainArity(2, 2); err != nil {
			return nil, err
		}
		return arithExpr(c.f.Pos, "%", c.args[0], c.args[1])
	}},
	{Name: "POWER", Signature: "POWER(a, b)", Doc: "a raised to b, a DOUBLE", compile: doubleFunc(2, math.Pow)},
	{Name: "SQRT", Signature: "SQRT(n)", Doc: "the square root, a DOUBLE (NaN below 0)", compile: doubleFunc(1, math.Sqrt)},
	{Name: "EXP", Signature: "EXP(n)", Doc: "e raised to n", compile: doubleFunc(1, math.Exp)},
	{Name: "LN", Signature: "LN(n)", Doc: "the natural logarithm", compile: doubleFunc(1, math.Log)},
	{Name: "LOG10", Signature: "LOG10(n)", Doc: "the base-10 logarithm", compile: doubleFunc(1, math.Log10)},
	{Name: "LOG2", Signature: "LOG2(n)", Doc: "the base-2 logarithm", compile: doubleFunc(1, math.Log2)},
	{Name: "LOG", Signature: "LOG(n) | LOG(base, n)", Doc: "the natural logarithm, or the logarithm to a base", compile: func(c *call) (Expr, error) {
		if len(c.args) == 1 {
			return doubleFunc(1, math.Log)(c)
		}
		return doubleFunc(2, func(b, n float64) float64 { return math.Log(n) / math.Log(b) })(c)
	}},
	{Name: "RAND", Signature: "RAND([seed])", Doc: "a random DOUBLE in [0, 1); with an INT seed, the numbers Java's java.util.Random(seed) gives, as in Flink", compile: compileRand},
	{Name: "RAND_INTEGER", Signature: "RAND_INTEGER([seed,] bound)", Doc: "a random INT in [0, bound); with an INT seed, as java.util.Random(seed).nextInt(bound)", compile: compileRand},
	{Name: "SIGN", Signature: "SIGN(n)", Doc: "-1, 0 or 1 by n's sign, of n's type", compile: compileSign},
	{Name: "PI", Signature: "PI()", Doc: "π, a DOUBLE", compile: func(c *call) (Expr, error) {
		if err := c.arity(0, 0); err != nil {
			return nil, err
		}
		return &Constant{v: math.Pi, t: types.TypeDouble.AsNotNull()}, nil
	}},

	// ---- strings ----
	{Name: "UPPER", Signature: "UPPER(s)", Doc: "s in upper case", compile: stringMap(javaUpper, true)},
	{Name: "LOWER", Signature: "LOWER(s)", Doc: "s in lower case", compile: stringMap(strings.ToLower, true)},
	{Name: "INITCAP", Signature: "INITCAP(s)", Doc: "s with each word's first letter in upper case and the rest in lower case", compile: stringMap(initCap, true)},
	{Name: "REVERSE", Signature: "REVERSE(s)", Doc: "s backwards", compile: func(c *call) (Expr, error) {
		x, err := stringMap(reverse, false)(c)
		if err == nil {
			x.(*funcExpr).t.NotNull = false // Flink's type
		}
		return x, err
	}},
	{Name: "TRIM", Signature: "TRIM([BOTH | LEADING | TRAILING] [chars] FROM s) | TRIM(s)", Doc: "s without the characters (default: spaces) at its start, end or both", compile: compileTrim},
	{Name: "LTRIM", Signature: "LTRIM(s)", Doc: "s without leading spaces", compile: compileTrim},
	{Name: "RTRIM", Signature: "RTRIM(s)", Doc: "s without trailing spaces", compile: compileTrim},
	{Name: "CHAR_LENGTH", Signature: "CHAR_LENGTH(s)", Doc: "the number of characters of s", compile: compileCharLength},
	{Name: "CHARACTER_LENGTH", Signature: "CHARACTER_LENGTH(s)", Doc: "CHAR_LENGTH", compile: compileCharLength},
	{Name: "SUBSTRING", Signature: "SUBSTRING(s, start [, length]) | SUBSTRING(s FROM start [FOR length])", Doc: "length characters of s from start (1-based; negative counts from the end)", compile: compileSubstring},
	{Name: "SUBSTR", Signature: "SUBSTR(s, start [, length])", Doc: "SUBSTRING", compile: compileSubstring},
	{Name: "LEFT", Signature: "LEFT(s, n)", Doc: "the first n characters of s", compile: compileLeftRight},
	{Name: "RIGHT", Signature: "RIGHT(s, n)", Doc: "the last n characters of s", compile: compileLeftRight},
	{Name: "CONCAT", Signature: "CONCAT(s1, s2, ...)", Doc: "the strings joined; NULL when any is NULL", compile: compileConcat},
	{Name: "CONCAT_WS", Signature: "CONCAT_WS(sep, s1, s2, ...)", Doc: "the strings that are not NULL joined by sep; NULL when sep is", compile: compileConcat},
	{Name: "REPLACE", Signature: "REPLACE(s, from, to)", Doc: "s with every from replaced by to", compile: stringFunc(3, 3, func(v []string) (any, bool) { return strings.ReplaceAll(v[0], v[1], v[2]), true })},
	{Name: "REPEAT", Signature: "REPEAT(s, n)", Doc: "s repeated n times", compile: compileRepeat},
	{Name: "LPAD", Signature: "LPAD(s, n, pad)", Doc: "s padded on the left with pad to n characters (or cut to n)", compile: compilePad},
	{Name: "RPAD", Signature: "RPAD(s, n, pad)", Doc: "s padded on the right with pad to n characters (or cut to n)", compile: compilePad},
	{Name: "POSITION", Signature: "POSITION(needle IN s)", Doc: "the 1-based position of the first needle in s, 0 when absent", compile: compileLocate},
	{Name: "LOCATE", Signature: "LOCATE(needle, s [, from])", Doc: "the 1-based position of the first needle in s at or after from, 0 when absent", compile: compileLocate},
	{Name: "REGEXP", Signature: "REGEXP(s, regex)", Doc: "whether some part of s matches regex (RE2 syntax; NULL for a regex that does not compile, as in Flink)", compile: compileRegexp},
	{Name: "REGEXP_EXTRACT", Signature: "REGEXP_EXTRACT(s, regex [, group])", Doc: "the group (default 0, the whole match) of the first match of regex in s; NULL when none", compile: compileRegexp},
	{Name: "REGEXP_REPLACE", Signature: "REGEXP_REPLACE(s, regex, replacement)", Doc: "s with every match of regex replaced by replacement, taken as it is ($1 is not a group, as in Flink)", compile: compileRegexp},
	{Name: "STR_TO_MAP", Signature: "STR_TO_MAP(s [, listDelimiter [, keyValueDelimiter]])", Doc: "a MAP<STRING, STRING> of s split into pairs at listDelimiter (default ',') and each pair at its first keyValueDelimiter (default '='); the delimiters are regular expressions", compile: compileStrToMap},
	{Name: "SPLIT_INDEX", Signature: "SPLIT_INDEX(s, sep, i)", Doc: "the i-th (0-based) piece of s split at sep; NULL when there is none", compile: compileSplitIndex},
	{Name: "MD5", Signature: "MD5(s)", Doc: "the MD5 digest of s's UTF-8 bytes, 32 hex digits", compile: digest("MD5")},
	{Name: "SHA1", Signature: "SHA1(s)", Doc: "the SHA-1 digest, 40 hex digits", compile: digest("SHA1")},
	{Name: "SHA256", Signature: "SHA256(s)", Doc: "the SHA-256 digest, 64 hex digits", compile: digest("SHA256")},
	{Name: "TO_BASE64", Signature: "TO_BASE64(s)", Doc: "s's UTF-8 bytes in base64", compile: stringFunc(1, 1, func(v []string) (any, bool) { return base64.StdEncoding.EncodeToString([]byte(v[0])), true })},
	{Name: "FROM_BASE64", Signature: "FROM_BASE64(s)", Doc: "base64 decoded, as a string (an error when s is not base64, as in Flink)", compile: func(c *call) (Expr, error) {
		if err := c.plainArity(1, 1); err != nil {
			return nil, err
		}
		if err := c.wantString(0); err != nil {
			return nil, err
		}
		pos := c.f.Pos
		return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
			b, err := base64.StdEncoding.DecodeString(v[0].(string))
			if err != nil {
				return nil, sqlmini.Errorf(pos, "FROM_BASE64: %s is not base64: %v", sqlmini.QuoteString(v[0].(string)), err)
			}
			return strings.ToValidUTF8(string(b), "\uFFFD"), nil
		}), nil
	}},
	{Name: "ASCII", Signature: "ASCII(s)", Doc: "the code of the first character of s (0 for '')", compile: compileASCII},
	{Name: "CHR", Signature: "CHR(n)", Doc: "the character of code n (0 to 255)", compile: compileChr},
}

// ---- conditional ---------------------------------------------------------

func compileCoalesce(c *call) (Expr, error) {
	if err := c.plainArity(1, -1); err != nil {
		return nil, err
	}
	t, err := c.common(c.args)
	if err != nil {
		return nil, err
	}
	// NOT NULL when any argument is.
	t.NotNull = false
	for _, a := range c.args {
		t.NotNull = t.NotNull || a.Type().NotNull
	}
	args := c.args
	return &funcExpr{t: t, konst: allConstant(args...), f: func(row []any) (any, error) {
		for _, a := range args {
			v, err := a.Eval(row)
			if err != nil {
				return nil, err
			}
			if v != nil {
				return CastValue(v, t)
			}
		}
		return nil, nil
	}}, nil
}

// common is the type the arguments convert to, or an error naming them.
func (c *call) common(args []Expr) (types.Type, error) {
	t, ok := CommonType(args)
	if !ok {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		return t, c.errorf("its arguments have no common type: %s", strings.Join(ts, ", "))
	}
	return t, nil
}

func compileIf(c *call) (Expr, error) {
	if err := c.plainArity(3, 3); err != nil {
		return nil, err
	}
	if err := c.want(0, "a BOOLEAN condition", func(t types.Type) bool { return t.Kind == types.KindBoolean }); err != nil {
		return nil, err
	}
	x, err := caseExpr(c.f.Pos, []Expr{c.args[0]}, []Expr{c.args[1]}, c.args[2])
	if err != nil || c.args[0].Type().NotNull {
		return x, err
	}
	// Flink types IF with a nullable condition as nullable (CASE not).
	f := x.(*funcExpr)
	f.t.NotNull = false
	return f, nil
}

func compileNullIf(c *call) (Expr, error) {
	if err := c.plainArity(2, 2); err != nil {
		return nil, err
	}
	a, b := c.args[0], c.args[1]
	if !Comparable(a.Type(), b.Type()) {
		return nil, c.errorf("cannot compare %s with %s", a.Type(), b.Type())
	}
	t := a.Type().Nullable()
	return &funcExpr{t: t, konst: allConstant(a, b), f: func(row []any) (any, error) {
		x, err := a.Eval(row)
		if x == nil || err != nil {
			return nil, err
		}
		y, err := b.Eval(row)
		if err != nil {
			return nil, err
		}
		if y != nil && CompareValues(x, y) == 0 {
			return nil, nil
		}
		return x, nil
	}}, nil
}

func compileGreatest(c *call) (Expr, error) {
	if err := c.plainArity(1, -1); err != nil {
		return nil, err
	}
	t, err := c.common(c.args)
	if err != nil {
		return nil, err
	}
	greatest := c.name == "GREATEST"
	return strict(t, false, c.args, func(v []any) (any, error) {
		best := v[0]
		for _, x := range v[1:] {
			if d := CompareValues(x, best); greatest && d > 0 || !greatest && d < 0 {
				best = x
			}
		}
		return CastValue(best, t)
	}), nil
}

// caseExpr is CASE WHEN conds[i] THEN results[i] ... ELSE els END (els nil:
// ELSE NULL). A condition that is NULL counts as not true.
func caseExpr(pos sqlmini.Pos, conds, results []Expr, els Expr) (Expr, error) {
	all := append([]Expr{}, results...)
	if els != nil {
		all = append(all, els)
	}
	t, ok := CommonType(all)
	if !ok {
		var ts []string
		for _, a := range all {
			ts = append(ts, a.Type().String())
		}
		return nil, sqlmini.Errorf(pos, "CASE: the results have no common type: %s", strings.Join(ts, ", "))
	}
	if els == nil {
		t.NotNull = false
	}
	for _, cnd := range conds {
		if k := cnd.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, sqlmini.Errorf(pos, "CASE: WHEN needs a BOOLEAN condition, not %s", cnd.Type())
		}
	}
	konst := allConstant(conds...) && allConstant(all...)
	return &funcExpr{t: t, konst: konst, f: func(row []any) (any, error) {
		for i, cnd := range conds {
			v, err := cnd.Eval(row)
			if err != nil {
				return nil, err
			}
			if v == true {
				r, err := results[i].Eval(row)
				if err != nil {
					return nil, err
				}
				return CastValue(r, t)
			}
		}
		if els == nil {
			return nil, nil
		}
		r, err := els.Eval(row)
		if err != nil {
			return nil, err
		}
		return CastValue(r, t)
	}}, nil
}

// compileCase compiles CASE [operand] WHEN ... THEN ... [ELSE ...] END.
// The simple form (with an operand) compares it with each WHEN value.
func compileCase(ce *sqlmini.CaseExpr, sc *Scope) (Expr, error) {
	var operand Expr
	if ce.Operand != nil {
		var err error
		if operand, err = Compile(ce.Operand, sc); err != nil {
			return nil, err
		}
	}
	var conds, results []Expr
	for _, w := range ce.Whens {
		if operand == nil && len(w.More) > 0 {
			return nil, sqlmini.Errorf(w.More[0].Pos, "WHEN with several values (WHEN 1, 2 THEN) needs a CASE with an operand: CASE x WHEN 1, 2 THEN ...")
		}
		cnd, err := Compile(w.Cond, sc)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			// CASE x WHEN a, b THEN: x = a OR x = b.
			var ors []Expr
			for i, e := range append([]*sqlmini.Expr{w.Cond}, w.More...) {
				v := cnd
				if i > 0 {
					if v, err = Compile(e, sc); err != nil {
						return nil, err
					}
				}
				eq, err := compileCompare(e.Pos, "=", operand, v)
				if err != nil {
					return nil, err
				}
				ors = append(ors, eq)
			}
			cnd = ors[0]
			if len(ors) > 1 {
				if cnd, err = logical(w.Pos, "OR", ors); err != nil {
					return nil, err
				}
			}
		}
		r, err := Compile(w.Then, sc)
		if err != nil {
			return nil, err
		}
		conds = append(conds, cnd)
		results = append(results, r)
	}
	var els Expr
	if ce.Else != nil {
		var err error
		if els, err = Compile(ce.Else, sc); err != nil {
			return nil, err
		}
	}
	return caseExpr(ce.Pos, conds, results, els)
}

// ---- numeric -------------------------------------------------------------

func compileAbs(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantNumeric(0); err != nil {
		return nil, err
	}
	return strict(c.args[0].Type(), false, c.args, func(v []any) (any, error) {
		switch x := v[0].(type) {
		case int64:
			if x < 0 {
				return -x, nil
			}
			return x, nil
		case float64:
			return math.Abs(x), nil
		case types.Decimal:
			return types.Decimal{Unscaled: new(big.Int).Abs(x.Unscaled), Scale: x.Scale}, nil
		}
		return v[0], nil
	}), nil
}

func compileSign(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantNumeric(0); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	return strict(t, false, c.args, func(v []any) (any, error) {
		switch x := v[0].(type) {
		case int64:
			return int64(cmpOrdered(x, 0)), nil
		case float64:
			if math.IsNaN(x) {
				return x, nil
			}
			return float64(cmpOrdered(x, 0)), nil
		case types.Decimal:
			return RatToDecimal(new(big.Rat).SetInt64(int64(x.Unscaled.Sign())), t)
		}
		return v[0], nil
	}), nil
}

// doubleFunc is a function of n numbers to a DOUBLE.
func doubleFunc[F func(float64) float64 | func(float64, float64) float64](n int, fn F) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.plainArity(n, n); err != nil {
			return nil, err
		}
		for i := range c.args {
			if err := c.wantNumeric(i); err != nil {
				return nil, err
			}
		}
		return strict(types.TypeDouble, false, c.args, func(v []any) (any, error) {
			switch f := any(fn).(type) {
			case func(float64) float64:
				return f(toFloat(v[0])), nil
			case func(float64, float64) float64:
				return f(toFloat(v[0]), toFloat(v[1])), nil
			}
			return nil, nil
		}), nil
	}
}

// compileRound is ROUND and TRUNCATE. Their types are Flink's: an integer
// or approximate n keeps its type; DECIMAL(p, s) rounded to d < s places
// is DECIMAL(1 + p - s + d, d) (a carry may add a digit; TRUNCATE has
// the same type), DECIMAL(.., 0) for d < 0. A DOUBLE
// rounds as its decimal text does (ROUND(2.675E0, 2) is 2.68).
func compileRound(c *call) (Expr, error) {
	if err := c.plainArity(1, 2); err != nil {
		return nil, err
	}
	if err := c.wantNumeric(0); err != nil {
		return nil, err
	}
	d := int64(0)
	if len(c.args) == 2 {
		if err := c.wantInteger(1); err != nil {
			return nil, err
		}
		v, err := c.args[1].Eval(nil)
		if !c.args[1].IsConstant() || err != nil || v == nil {
			return nil, c.errorf("the number of decimal places must be a constant integer")
		}
		d = v.(int64)
	}
	mode := roundHalfUp
	extra := 1 // Flink keeps the carry's digit for TRUNCATE too
	if c.name == "TRUNCATE" {
		mode = roundDown
	}
	t := c.args[0].Type()
	if t.Kind == types.KindDecimal && int(d) < t.Scale {
		if d < 0 {
			t = types.Type{Kind: types.KindDecimal, Length: min(38, extra+t.Length-t.Scale), Scale: 0}
		} else {
			t = types.Type{Kind: types.KindDecimal, Length: min(38, max(1, extra+t.Length-t.Scale+int(d))), Scale: int(d)}
		}
	}
	return strict(t, false, c.args[:1], func(v []any) (any, error) {
		switch x := v[0].(type) {
		case int64:
			if d >= 0 {
				return x, nil
			}
			r := roundRat(new(big.Rat).SetInt64(x), int(d), mode)
			return r.Num().Int64(), nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return x, nil
			}
			r, _ := new(big.Rat).SetString(fmt.Sprint(x))
			f, _ := roundRat(r, int(d), mode).Float64()
			return f, nil
		case types.Decimal:
			r := roundRat(x.Rat(), int(d), mode)
			return RatToDecimal(r, t)
		}
		return v[0], nil
	}), nil
}

type roundMode int

const (
	roundHalfUp  roundMode = iota // half away from zero: Java's HALF_UP
	roundDown                     // toward zero
	roundFloor                    // toward -∞
	roundCeiling                  // toward +∞
)

// roundRat rounds r to d decimal places (d < 0: to 10^-d).
func roundRat(r *big.Rat, d int, mode roundMode) *big.Rat {
	scale := new(big.Rat).SetInt(new(big.Int).Exp(bigTen, big.NewInt(int64(abs(d))), nil))
	x := new(big.Rat).Set(r)
	if d >= 0 {
		x.Mul(x, scale)
	} else {
		x.Quo(x, scale)
	}
	q, m := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int)) // toward zero
	if m.Sign() != 0 {
		switch mode {
		case roundHalfUp:
			if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(x.Denom()) >= 0 {
				q.Add(q, big.NewInt(int64(x.Sign())))
			}
		case roundFloor:
			if x.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
			}
		case roundCeiling:
			if x.Sign() > 0 {
				q.Add(q, big.NewInt(1))
			}
		}
	}
	out := new(big.Rat).SetInt(q)
	if d >= 0 {
		return out.Quo(out, scale)
	}
	return out.Mul(out, scale)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func compileFloorCeil(c *call) (Expr, error) {
	if c.f.To != nil {
		return compileFloorCeilTime(c)
	}
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.wantNumeric(0); err != nil {
		return nil, err
	}
	mode := roundFloor
	if c.name != "FLOOR" {
		mode = roundCeiling
	}
	t := c.args[0].Type()
	if t.Kind == types.KindDecimal {
		t = types.Type{Kind: types.KindDecimal, Length: min(38, max(1, 1+t.Length-t.Scale)), Scale: 0}
	}
	return strict(t, false, c.args, func(v []any) (any, error) {
		switch x := v[0].(type) {
		case float64:
			if mode == roundFloor {
				return math.Floor(x), nil
			}
			return math.Ceil(x), nil
		case types.Decimal:
			return RatToDecimal(roundRat(x.Rat(), 0, mode), t)
		}
		return v[0], nil
	}), nil
}
