package expr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The JSON functions, with Flink's semantics (Calcite's SqlJsonUtils over
// Jayway JsonPath and Jackson): json_text.go reads and writes JSON,
// json_path.go follows paths.

var jsonFunctions = []Function{
	{Name: "JSON_VALUE", Signature: "JSON_VALUE(json, path [RETURNING STRING | INT | DOUBLE | BOOLEAN] [NULL | ERROR | DEFAULT v ON EMPTY] [NULL | ERROR | DEFAULT v ON ERROR])", Doc: "the scalar at path (text of a number as Java prints it); ON EMPTY when there is none (or, in lax mode, it is an array or object), ON ERROR when the text is no JSON, the path fails (strict mode, the default) or finds an array or object", compile: compileJSONValue},
	{Name: "JSON_QUERY", Signature: "JSON_QUERY(json, path [WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER] [NULL | ERROR | EMPTY ARRAY | EMPTY OBJECT ON EMPTY] [... ON ERROR])", Doc: "the array or object at path as JSON text; a wrapper puts the result (CONDITIONAL: one that is no array) in an array; ON EMPTY and ON ERROR as in JSON_VALUE, a scalar counting as empty (lax) or an error (strict)", compile: compileJSONQuery},
	{Name: "JSON_EXISTS", Signature: "JSON_EXISTS(json, path [TRUE | FALSE | UNKNOWN | ERROR ON ERROR])", Doc: "whether path finds a value that is not null; ON ERROR (default FALSE) when the text is no JSON or the path fails (strict mode)", compile: compileJSONExists},
	{Name: "JSON_STRING", Signature: "JSON_STRING(v)", Doc: "v as JSON text (NULL for NULL): numbers, strings, booleans, arrays, maps and rows as JSON, a TIMESTAMP as an ISO string", compile: compileJSONString},
	{Name: "JSON_OBJECT", Signature: "JSON_OBJECT([[KEY] k VALUE v, ...] [NULL | ABSENT ON NULL])", Doc: "a JSON object of the pairs, sorted by key (the last of a key given twice); NULL values as null (NULL ON NULL, the default) or left out; a JSON_OBJECT or JSON_ARRAY value nests as JSON, any other string as a string", compile: compileJSONObject},
	{Name: "JSON_ARRAY", Signature: "JSON_ARRAY([v, ...] [NULL | ABSENT ON NULL])", Doc: "a JSON array of the values; NULL values left out (ABSENT ON NULL, the default) or null", compile: compileJSONArray},
}

// jsonClauses checks that a call takes only the JSON clauses allowed.
func (c *call) jsonClauses(returning, wrapper bool, behaviors map[string][]string, onNull bool) error {
	j := c.f.JSON
	if j == nil {
		return nil
	}
	if j.Returning != nil && !returning {
		return c.errorf("takes no RETURNING clause")
	}
	if (j.With || j.Without) && !wrapper {
		return c.errorf("takes no WRAPPER clause (JSON_QUERY does)")
	}
	seen := map[string]bool{}
	for _, b := range j.Behaviors {
		on := strings.ToUpper(b.On)
		allowed, ok := behaviors[on]
		if !ok {
			return sqlmini.Errorf(b.Pos, "%s: takes no ON %s clause", c.name, on)
		}
		if seen[on] {
			return sqlmini.Errorf(b.Pos, "%s: ON %s is given twice", c.name, on)
		}
		seen[on] = true
		what := b.What()
		found := false
		for _, a := range allowed {
			found = found || a == what
		}
		if !found {
			return sqlmini.Errorf(b.Pos, "%s: %s ON %s is not allowed here: %s ON %s", c.name, what, on, strings.Join(allowed, " | "), on)
		}
	}
	if j.NullKind != "" && !onNull {
		return c.errorf("takes no ON NULL clause (JSON_OBJECT, JSON_ARRAY and their aggregates do)")
	}
	return nil
}

// behavior returns the ON EMPTY or ON ERROR clause of a call, or nil.
func (c *call) behavior(on string) *sqlmini.JSONBehavior {
	if c.f.JSON == nil {
		return nil
	}
	for _, b := range c.f.JSON.Behaviors {
		if strings.EqualFold(b.On, on) {
			return b
		}
	}
	return nil
}

// jsonInput checks the json and path arguments of JSON_VALUE, JSON_QUERY
// and JSON_EXISTS, and compiles a constant path once.
func (c *call) jsonInput() (func(v []any) (*jsonPath, error), error) {
	if err := c.arity(2, 2); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	if err := c.wantString(1); err != nil {
		return nil, err
	}
	if c.args[1].IsConstant() {
		pv, err := c.args[1].Eval(nil)
		if err != nil {
			return nil, err
		}
		if s, ok := pv.(string); ok {
			// A path that does not compile fails each row, under ON
			// ERROR, as in Flink.
			p, err := compileJSONPath(s)
			return func([]any) (*jsonPath, error) { return p, err }, nil
		}
	}
	return func(v []any) (*jsonPath, error) { return compileJSONPath(v[1].(string)) }, nil
}

// jsonContext is the result of applying a path to a text: the value (nil
// for none or JSON null), or the error that ON ERROR handles.
func jsonContext(text string, path *jsonPath) (any, error) {
	doc, err := parseJSON(text)
	if err != nil {
		return nil, err
	}
	v, err := path.eval(doc)
	if errors.Is(err, errLaxMissing) {
		return nil, nil
	}
	return v, err
}

// jsonEval evaluates json and path and applies the path: the value
// (jsonContext), the path, and null when json or path is NULL. An error
// of the argument itself comes with null set too, to be returned as it is.
func jsonEval(c *call, row []any, compiled func([]any) (*jsonPath, error)) (v any, p *jsonPath, null bool, err error) {
	j, err := c.args[0].Eval(row)
	if j == nil || err != nil {
		return nil, nil, true, err
	}
	pv, err := c.args[1].Eval(row)
	if pv == nil || err != nil {
		return nil, nil, true, err
	}
	if p, err = compiled([]any{j, pv}); err != nil {
		return nil, p, false, err
	}
	v, err = jsonContext(j.(string), p)
	return v, p, false, err
}

func compileJSONValue(c *call) (Expr, error) {
	compiled, err := c.jsonInput()
	if err != nil {
		return nil, err
	}
	beh := []string{"NULL", "ERROR", "DEFAULT"}
	if err := c.jsonClauses(true, false, map[string][]string{"EMPTY": beh, "ERROR": beh}, false); err != nil {
		return nil, err
	}
	ret := types.TypeString
	if j := c.f.JSON; j != nil && j.Returning != nil {
		if ret, err = ptf.TypeFromAST(j.Returning); err != nil {
			return nil, err
		}
		switch ret.Kind {
		case types.KindChar, types.KindVarChar, types.KindInt, types.KindDouble, types.KindBoolean:
		default:
			return nil, sqlmini.Errorf(j.Returning.Pos, "Unsupported type '%s' for RETURNING in JSON_VALUE(): it is STRING, INT, DOUBLE or BOOLEAN, as in Flink", ret.Nullable())
		}
		ret = ret.Nullable()
	}
	onEmpty, err := c.jsonDefault("EMPTY", ret)
	if err != nil {
		return nil, err
	}
	onError, err := c.jsonDefault("ERROR", ret)
	if err != nil {
		return nil, err
	}
	return &funcExpr{t: ret, konst: allConstant(c.args...), f: func(row []any) (any, error) {
		v, p, null, err := jsonEval(c, row, compiled)
		if null {
			return nil, err
		}
		if err == nil {
			switch {
			case v == nil || p.lax && !isScalar(v):
				return onEmpty(row, errors.New("Empty result of JSON_VALUE function is not allowed"))
			case !isScalar(v):
				err = fmt.Errorf("Strict jsonpath mode requires scalar value, and the actual value is: '%s'", appendJSONText(nil, v))
			default:
				return jsonValueAs(c, v, ret)
			}
		}
		return onError(row, err)
	}}, nil
}

// jsonValueAs is a scalar as the RETURNING type: Flink hands the value
// Jackson read to the type's converter, which takes only its own kind
// (an INT a JSON integer, a DOUBLE a JSON number with a fraction or an
// exponent, a BOOLEAN true or false) and fails on another, whatever the
// ON ERROR clause says.
func jsonValueAs(c *call, v any, ret types.Type) (any, error) {
	switch ret.Kind {
	case types.KindChar, types.KindVarChar:
		switch x := v.(type) {
		case string:
			return x, nil
		case jsonNumber:
			return x.text(), nil
		case bool:
			return strconv.FormatBool(x), nil
		}
	case types.KindInt:
		if n, ok := v.(jsonNumber); ok && n.isInt() {
			if i, err := strconv.ParseInt(string(n), 10, 32); err == nil {
				return i, nil
			}
		}
	case types.KindDouble:
		if n, ok := v.(jsonNumber); ok && !n.isInt() {
			f, _ := strconv.ParseFloat(string(n), 64)
			return f, nil
		}
	case types.KindBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	}
	return nil, c.errorf("RETURNING %s takes %s, and the value is %s (Flink fails this way too, whatever ON ERROR says)", ret.Nullable(), jsonKindWanted(ret.Kind), appendJSONText(nil, v))
}

func jsonKindWanted(k types.Kind) string {
	switch k {
	case types.KindInt:
		return "a JSON integer within INT's range"
	case types.KindDouble:
		return "a JSON number with a fraction or an exponent"
	}
	return "a JSON true or false"
}

// jsonDefault compiles the ON EMPTY or ON ERROR clause of JSON_VALUE:
// what it gives for a row, given the error it handles.
func (c *call) jsonDefault(on string, ret types.Type) (func(row []any, cause error) (any, error), error) {
	b := c.behavior(on)
	if b == nil || b.What() == "NULL" {
		return func([]any, error) (any, error) { return nil, nil }, nil
	}
	if b.What() == "ERROR" {
		return func(_ []any, cause error) (any, error) { return nil, c.errorf("%v", cause) }, nil
	}
	d, err := Compile(b.Default, c.sc)
	if err != nil {
		return nil, err
	}
	return func(row []any, _ error) (any, error) {
		v, err := d.Eval(row)
		if v == nil || err != nil {
			return nil, err
		}
		return CastValue(v, ret)
	}, nil
}

func compileJSONQuery(c *call) (Expr, error) {
	compiled, err := c.jsonInput()
	if err != nil {
		return nil, err
	}
	beh := []string{"NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT"}
	if err := c.jsonClauses(true, true, map[string][]string{"EMPTY": beh, "ERROR": beh}, false); err != nil {
		return nil, err
	}
	wrap := ""
	if j := c.f.JSON; j != nil {
		if j.Returning != nil {
			t, err := ptf.TypeFromAST(j.Returning)
			if err != nil {
				return nil, err
			}
			if !t.IsString() {
				return nil, sqlmini.Errorf(j.Returning.Pos, "JSON_QUERY: ptfsh's JSON_QUERY returns STRING only, not %s", t.Nullable())
			}
		}
		if j.With {
			wrap = strings.ToUpper(j.Wrap)
			if wrap == "" {
				wrap = "UNCONDITIONAL"
			}
		}
	}
	empty := func(on string, cause error) (any, error) {
		switch w := c.behavior(on); {
		case w == nil || w.What() == "NULL":
			return nil, nil
		case w.What() == "ERROR":
			return nil, c.errorf("%v", cause)
		case w.What() == "EMPTY ARRAY":
			return "[]", nil
		}
		return "{}", nil
	}
	return &funcExpr{t: types.TypeString, konst: allConstant(c.args...), f: func(row []any) (any, error) {
		v, p, null, err := jsonEval(c, row, compiled)
		if null {
			return nil, err
		}
		if err != nil {
			return empty("ERROR", err)
		}
		if v != nil {
			switch _, isArray := v.([]any); {
			case wrap == "UNCONDITIONAL", wrap == "CONDITIONAL" && !isArray:
				v = []any{v}
			}
		}
		switch {
		case v == nil || p.lax && isScalar(v):
			return empty("EMPTY", errors.New("Empty result of JSON_QUERY function is not allowed"))
		case isScalar(v):
			return empty("ERROR", fmt.Errorf("Strict jsonpath mode requires array or object value, and the actual value is: ''%s''", jsonToString(v)))
		}
		return string(appendJSONText(nil, v)), nil
	}}, nil
}

// jsonToString is a value as Java's toString prints what Jackson read.
func jsonToString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case jsonNumber:
		return x.text()
	}
	return string(appendJSONText(nil, v))
}

func compileJSONExists(c *call) (Expr, error) {
	compiled, err := c.jsonInput()
	if err != nil {
		return nil, err
	}
	if err := c.jsonClauses(false, false, map[string][]string{"ERROR": {"TRUE", "FALSE", "UNKNOWN", "ERROR"}}, false); err != nil {
		return nil, err
	}
	onError := "FALSE"
	if b := c.behavior("ERROR"); b != nil {
		onError = b.What()
	}
	return &funcExpr{t: types.TypeBoolean, konst: allConstant(c.args...), f: func(row []any) (any, error) {
		v, _, null, err := jsonEval(c, row, compiled)
		if null {
			return nil, err
		}
		if err == nil {
			return v != nil, nil
		}
		switch onError {
		case "TRUE":
			return true, nil
		case "UNKNOWN":
			return nil, nil
		case "ERROR":
			return nil, c.errorf("%v", err)
		}
		return false, nil
	}}, nil
}

// jsonConvertible refuses what Flink cannot write as JSON: a DATE or a
// TIME (Flink 2.3 refuses them too).
func (c *call) jsonConvertible(i int) error {
	t := c.args[i].Type()
	if t.Kind == types.KindDate || t.Kind == types.KindTime {
		return sqlmini.Errorf(c.f.Args[i].Pos, "%s: Type '%s' is not scalar or cannot be converted into JSON; cast it to STRING", c.name, t)
	}
	return nil
}

func compileJSONString(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	if err := c.jsonConvertible(0); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	return strict(types.TypeString, false, c.args, func(v []any) (any, error) {
		return string(appendJSONText(nil, sqlToJSON(v[0], t))), nil
	}), nil
}

// jsonArgs compiles the values of JSON_OBJECT or JSON_ARRAY: each as a
// JSON tree, nested JSON kept as JSON.
func (c *call) jsonArgs(from, step int) ([]func(row []any) (any, bool, error), error) {
	var out []func(row []any) (any, bool, error)
	for i := from; i < len(c.args); i += step {
		if err := c.jsonConvertible(i); err != nil {
			return nil, err
		}
		a, t := c.args[i], c.args[i].Type()
		raw := isJSONConstruction(c.f.Args[i])
		out = append(out, func(row []any) (any, bool, error) {
			v, err := a.Eval(row)
			if v == nil || err != nil {
				return nil, false, err
			}
			if s, ok := v.(string); ok && raw {
				return jsonRaw(s), true, nil
			}
			return sqlToJSON(v, t), true, nil
		})
	}
	return out, nil
}

// isJSONConstruction reports whether e is a call of JSON_OBJECT or
// JSON_ARRAY (or their aggregates), whose text a JSON_OBJECT or
// JSON_ARRAY takes as JSON, not as a string.
func isJSONConstruction(e *sqlmini.Expr) bool {
	p := e.SolePrimary()
	if p == nil || p.Func == nil {
		return false
	}
	switch strings.ToUpper(string(p.Func.Name.Value)) {
	case "JSON_OBJECT", "JSON_ARRAY", "JSON_OBJECTAGG", "JSON_ARRAYAGG":
		return true
	}
	return false
}

func compileJSONObject(c *call) (Expr, error) {
	if err := c.jsonClauses(false, false, nil, true); err != nil {
		return nil, err
	}
	for i := 0; i < len(c.args); i += 2 {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	keys := c.args
	vals, err := c.jsonArgs(1, 2)
	if err != nil {
		return nil, err
	}
	absent := c.f.JSON != nil && strings.EqualFold(c.f.JSON.NullKind, "ABSENT")
	return &funcExpr{t: types.TypeString.AsNotNull(), konst: allConstant(c.args...), f: func(row []any) (any, error) {
		o := &jsonObject{}
		for i, val := range vals {
			k, err := keys[2*i].Eval(row)
			if err != nil {
				return nil, err
			}
			if k == nil {
				return nil, c.errorf("the key of pair %d is NULL: a JSON object's keys are strings", i+1)
			}
			v, ok, err := val(row)
			if err != nil {
				return nil, err
			}
			if !ok && absent {
				continue
			}
			o.put(k.(string), v)
		}
		return string(appendJSONText(nil, sortedObject(o))), nil
	}}, nil
}

func compileJSONArray(c *call) (Expr, error) {
	if err := c.jsonClauses(false, false, nil, true); err != nil {
		return nil, err
	}
	vals, err := c.jsonArgs(0, 1)
	if err != nil {
		return nil, err
	}
	null := c.f.JSON != nil && strings.EqualFold(c.f.JSON.NullKind, "NULL")
	return &funcExpr{t: types.TypeString.AsNotNull(), konst: allConstant(c.args...), f: func(row []any) (any, error) {
		a := []any{}
		for _, val := range vals {
			v, ok, err := val(row)
			if err != nil {
				return nil, err
			}
			if ok || null {
				a = append(a, v)
			}
		}
		return string(appendJSONText(nil, a)), nil
	}}, nil
}

// compileIsJSON is s IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT]:
// whether s is JSON text of that kind; FALSE for NULL (TRUE with NOT).
func compileIsJSON(p *sqlmini.Predicate, left Expr) (Expr, error) {
	if k := left.Type().Kind; !left.Type().IsString() && k != types.KindNull {
		return nil, sqlmini.Errorf(p.Pos, "IS JSON needs a string, not %s", left.Type())
	}
	kind, not := strings.ToUpper(p.JSONKind), p.IsNot
	return &funcExpr{t: types.TypeBoolean.AsNotNull(), konst: left.IsConstant(), f: func(row []any) (any, error) {
		v, err := left.Eval(row)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return not, nil
		}
		doc, err := parseJSON(s)
		is := err == nil
		if is {
			switch doc.(type) {
			case []any:
				is = kind == "" || kind == "VALUE" || kind == "ARRAY"
			case *jsonObject:
				is = kind == "" || kind == "VALUE" || kind == "OBJECT"
			default:
				is = kind == "" || kind == "VALUE" || kind == "SCALAR"
			}
		}
		return is != not, nil
	}}, nil
}

// CompileJSONAggArg compiles the argument of JSON_OBJECTAGG([KEY] k VALUE
// v) or JSON_ARRAYAGG(v): an expression giving, for a row, the JSON text
// of v (nil for NULL), as ROW(k, text) for JSON_OBJECTAGG; and whether
// NULL values count (NULL ON NULL: JSON_OBJECTAGG's default; JSON_ARRAYAGG
// leaves them out by default, ABSENT ON NULL).
func CompileJSONAggArg(f *sqlmini.FuncCall, sc *Scope) (arg Expr, nullOnNull bool, err error) {
	name := strings.ToUpper(string(f.Name.Value))
	c := &call{f: f, name: name, sc: sc}
	want := 1
	if name == "JSON_OBJECTAGG" {
		want = 2
	}
	if len(f.Args) != want {
		return nil, false, c.errorf("takes %s", map[bool]string{true: "[KEY] k VALUE v", false: "one value"}[want == 2])
	}
	if f.Distinct {
		return nil, false, c.errorf("takes no DISTINCT, as in Flink")
	}
	if c.args, err = compileList(f.Args, sc); err != nil {
		return nil, false, err
	}
	if err := c.jsonClauses(false, false, nil, true); err != nil {
		return nil, false, err
	}
	nullOnNull = want == 2
	if j := f.JSON; j != nil && j.NullKind != "" {
		nullOnNull = strings.EqualFold(j.NullKind, "NULL")
	}
	if want == 2 {
		if err := c.wantString(0); err != nil {
			return nil, false, err
		}
	}
	vals, err := c.jsonArgs(want-1, 1)
	if err != nil {
		return nil, false, err
	}
	text := func(row []any) (any, error) {
		v, ok, err := vals[0](row)
		if !ok || err != nil {
			return nil, err
		}
		return string(appendJSONText(nil, v)), nil
	}
	if want == 1 {
		return &funcExpr{t: types.TypeString, f: text}, nullOnNull, nil
	}
	key := c.args[0]
	t := types.Type{Kind: types.KindRow, NotNull: true, Fields: []types.Field{{Name: "k", Type: types.TypeString}, {Name: "v", Type: types.TypeString}}}
	return &funcExpr{t: t, f: func(row []any) (any, error) {
		k, err := key.Eval(row)
		if err != nil {
			return nil, err
		}
		if k == nil {
			return nil, c.errorf("a key is NULL: a JSON object's keys are strings")
		}
		v, err := text(row)
		if err != nil {
			return nil, err
		}
		return types.Row{Fields: []any{k, v}}, nil
	}}, nullOnNull, nil
}
