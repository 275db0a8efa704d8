package jsjava

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// jtype is the Java type of a translated expression.
type jtype int

const (
	tObj  jtype = iota // Object: any JavaScript value
	tNum               // double: a number
	tBool              // boolean
	tTime              // ctx.timeContext(): only a method's receiver
)

// jv is a translated expression.
type jv struct {
	code string
	ty   jtype
}

// value translates e into a Java expression of type Object.
func (t *tr) value(e ast.Expression) string { return t.box(e, t.expr(e)) }

func (t *tr) box(e ast.Node, v jv) string {
	switch v.ty {
	case tNum:
		return "(Object) Double.valueOf(" + v.code + ")"
	case tBool:
		return "(Object) Boolean.valueOf(" + v.code + ")"
	case tTime:
		t.fail(e, "the time context as a value")
	}
	return v.code
}

// cond translates e into a Java boolean: JavaScript's truthiness.
func (t *tr) cond(e ast.Expression) string {
	v := t.expr(e)
	switch v.ty {
	case tBool:
		return v.code
	case tNum:
		return "JsRt.truthy(Double.valueOf(" + v.code + "))"
	}
	return "JsRt.truthy(" + t.box(e, v) + ")"
}

// num translates e into a Java double: JavaScript's ToNumber.
func (t *tr) num(e ast.Expression) string {
	v := t.expr(e)
	if v.ty == tNum {
		return v.code
	}
	return "JsRt.num(" + t.box(e, v) + ")"
}

func numLit(n *ast.NumberLiteral) string {
	var f float64
	switch v := n.Value.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	default:
		return "" // a BigInt literal
	}
	return javaDouble(f)
}

func javaDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "Double.NaN"
	case math.IsInf(f, 1):
		return "Double.POSITIVE_INFINITY"
	case math.IsInf(f, -1):
		return "Double.NEGATIVE_INFINITY"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

func (t *tr) expr(e ast.Expression) jv {
	f := t.fn
	switch e := e.(type) {
	case *ast.NumberLiteral:
		s := numLit(e)
		if s == "" {
			t.fail(e, "a BigInt")
		}
		return jv{s, tNum}
	case *ast.StringLiteral:
		return jv{javaString(e.Value.String()), tObj}
	case *ast.BooleanLiteral:
		if e.Value {
			return jv{"Boolean.TRUE", tObj}
		}
		return jv{"Boolean.FALSE", tObj}
	case *ast.NullLiteral:
		return jv{"((Object) null)", tObj}
	case *ast.TemplateLiteral:
		if e.Tag != nil {
			t.fail(e, "a tagged template")
		}
		parts := []string{`""`}
		for i, el := range e.Elements {
			if s := el.Parsed.String(); s != "" {
				parts = append(parts, javaString(s))
			}
			if i < len(e.Expressions) {
				parts = append(parts, "JsRt.str("+t.value(e.Expressions[i])+")")
			}
		}
		return jv{"(" + strings.Join(parts, " + ") + ")", tObj}
	case *ast.Identifier:
		return t.ident(e)
	case *ast.ObjectLiteral:
		var kv []string
		for _, pr := range e.Value {
			switch p := pr.(type) {
			case *ast.PropertyShort:
				if p.Initializer != nil {
					t.fail(p, "a property with a default value")
				}
				kv = append(kv, javaString(p.Name.Name.String()), t.value(&p.Name))
			case *ast.PropertyKeyed:
				if p.Computed || p.Kind != ast.PropertyKindValue {
					t.fail(p, "a computed key, a method, a getter or a setter in an object literal")
				}
				k := propKey(p)
				if n, ok := p.Key.(*ast.NumberLiteral); ok {
					k = t.numKey(n)
				}
				kv = append(kv, javaString(k), t.value(p.Value))
			default:
				t.fail(pr, "a spread in an object literal")
			}
		}
		return jv{"JsRt.obj(" + strings.Join(kv, ", ") + ")", tObj}
	case *ast.ArrayLiteral:
		var vs []string
		for _, x := range e.Value {
			if x == nil {
				t.fail(e, "a hole in an array literal")
			}
			if _, ok := x.(*ast.SpreadElement); ok {
				t.fail(x, "a spread in an array literal")
			}
			vs = append(vs, t.value(x))
		}
		return jv{"JsRt.arr(" + strings.Join(vs, ", ") + ")", tObj}
	case *ast.DotExpression:
		return t.member(e, e.Left, nil, e.Identifier.Name.String())
	case *ast.BracketExpression:
		return t.member(e, e.Left, e.Member, "")
	case *ast.CallExpression:
		return t.call(e)
	case *ast.NewExpression:
		return t.newExpr(e)
	case *ast.UnaryExpression:
		return t.unary(e)
	case *ast.BinaryExpression:
		return t.binary(e)
	case *ast.ConditionalExpression:
		a, b := t.expr(e.Consequent), t.expr(e.Alternate)
		if a.ty == tNum && b.ty == tNum {
			return jv{fmt.Sprintf("(%s ? %s : %s)", t.cond(e.Test), a.code, b.code), tNum}
		}
		return jv{fmt.Sprintf("(%s ? %s : %s)", t.cond(e.Test), t.box(e, a), t.box(e, b)), tObj}
	case *ast.AssignExpression:
		return t.assign(e, false)
	case *ast.SequenceExpression:
		t.fail(e, "the comma operator")
	case *ast.ArrowFunctionLiteral, *ast.FunctionLiteral:
		t.fail(e, "a function expression (closures)")
	case *ast.ThisExpression:
		t.fail(e, "this")
	case *ast.RegExpLiteral:
		t.fail(e, "a regular expression")
	case *ast.OptionalChain, *ast.Optional:
		t.fail(e, "optional chaining (?.)")
	case *ast.ClassLiteral:
		t.fail(e, "a class")
	case *ast.AwaitExpression, *ast.YieldExpression:
		t.fail(e, "await or yield")
	}
	_ = f
	t.fail(e, "this expression")
	return jv{}
}

// numKey is a number used as a property key: its JavaScript string.
func (t *tr) numKey(n *ast.NumberLiteral) string {
	switch v := n.Value.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	t.fail(n, "a property key that is a fractional number")
	return ""
}

func (t *tr) ident(e *ast.Identifier) jv {
	name := e.Name.String()
	b := t.fn.lookup(name)
	if b == nil {
		switch name {
		case "undefined":
			return jv{"JsRt.UNDEF", tObj}
		case "NaN":
			return jv{"Double.NaN", tNum}
		case "Infinity":
			return jv{"Double.POSITIVE_INFINITY", tNum}
		}
		t.fail(e, "the global %s", name)
	}
	switch b.kind {
	case bLocal:
		return jv{b.java, tObj}
	case bGlobal:
		j := t.useGlobal(b.g, e)
		if b.g.cnum != "" {
			return jv{b.g.cnum, tNum}
		}
		if b.g.fn != nil {
			t.fail(e, "a function as a value")
		}
		return jv{j, tObj}
	case bTime:
		return jv{"cx.timeContext(Long.class)", tTime}
	}
	t.fail(e, "ctx, the state or the arguments as a value (only their properties are read)")
	return jv{}
}

// member translates obj.name (key nil) or obj[key].
func (t *tr) member(e ast.Expression, obj ast.Expression, key ast.Expression, name string) jv {
	if id, ok := obj.(*ast.Identifier); ok {
		if b := t.fn.lookup(id.Name.String()); b != nil {
			if key != nil && b.kind != bLocal && b.kind != bGlobal {
				t.fail(e, "a computed property of ctx, the state, the arguments or a row")
			}
			switch b.kind {
			case bStateBox:
				return jv{t.stateSlot(e, name), tObj}
			case bArgsBox:
				return t.argValue(e, name)
			case bRow:
				return jv{t.rowField(b.idx, name), tObj}
			case bCtx, bTime:
				t.fail(e, "a property of ctx that is not a call")
			}
		} else if id.Name.String() == "Number" && key == nil {
			if c, ok := numberConsts[name]; ok {
				return jv{c, tNum}
			}
			t.fail(e, "Number.%s", name)
		} else if id.Name.String() == "Math" && key == nil {
			switch name {
			case "PI":
				return jv{"Math.PI", tNum}
			case "E":
				return jv{"Math.E", tNum}
			}
			t.fail(e, "Math.%s", name)
		}
	}
	if ae, ok := obj.(*ast.DotExpression); ok && key == nil {
		if id, ok := ae.Left.(*ast.Identifier); ok {
			if b := t.fn.lookup(id.Name.String()); b != nil && b.kind == bArgsBox {
				// args.row.column
				i := t.argIndex(ae.Identifier.Name.String())
				if i >= 0 && t.f.Args[i].Table {
					return jv{t.rowField(i, name), tObj}
				}
			}
		}
	}
	o := t.value(obj)
	if key == nil {
		if name == "length" {
			return jv{"JsRt.length(" + o + ")", tNum}
		}
		return jv{"JsRt.get(" + o + ", " + javaString(name) + ")", tObj}
	}
	return jv{"JsRt.get(" + o + ", " + t.value(key) + ")", tObj}
}

// stateSlot is the Java field of state entry name (state.name).
func (t *tr) stateSlot(e ast.Node, name string) string {
	if t.fn.helper {
		t.fail(e, "the state in a function")
	}
	i := indexOf(t.f.States, name)
	if i < 0 {
		t.fail(e, "a state entry %q that is not a value state entry", name)
	}
	return fmt.Sprintf("st_%d", i)
}

// argValue is args.name.
func (t *tr) argValue(e ast.Node, name string) jv {
	i := t.argIndex(name)
	if i < 0 {
		t.fail(e, "an argument %q that the function does not declare", name)
	}
	if t.f.Args[i].Table {
		t.fail(e, "a row as a value (only its columns are read)")
	}
	if t.fn.timer {
		t.fail(e, "a scalar argument read in onTimer")
	}
	return jv{fmt.Sprintf("arg_%d", i), tObj}
}

// rowField is row.column of table argument i.
func (t *tr) rowField(i int, column string) string {
	if t.fields == nil {
		t.fields = map[int]*argFields{}
	}
	af := t.fields[i]
	if af == nil {
		af = &argFields{index: map[string]int{}}
		t.fields[i] = af
		t.fieldOrder = append(t.fieldOrder, i)
	}
	k, ok := af.index[column]
	if !ok {
		k = len(af.names)
		af.index[column] = k
		af.names = append(af.names, column)
	}
	return fmt.Sprintf("JsRt.field(cx, row_%d, fields_%d, %d)", i, i, k)
}

// isTimeContext tells whether e is ctx.timeContext().
func (t *tr) isTimeContext(e ast.Expression) bool {
	c, ok := e.(*ast.CallExpression)
	if !ok || len(c.ArgumentList) != 0 {
		return false
	}
	d, ok := c.Callee.(*ast.DotExpression)
	if !ok || d.Identifier.Name.String() != "timeContext" {
		return false
	}
	id, ok := d.Left.(*ast.Identifier)
	if !ok {
		return false
	}
	b := t.fn.lookup(id.Name.String())
	return b != nil && b.kind == bCtx
}

func (t *tr) args(list []ast.Expression) []string {
	out := make([]string, len(list))
	for i, a := range list {
		if _, ok := a.(*ast.SpreadElement); ok {
			t.fail(a, "a spread argument")
		}
		out[i] = t.value(a)
	}
	return out
}

func (t *tr) nums(list []ast.Expression) []string {
	out := make([]string, len(list))
	for i, a := range list {
		if _, ok := a.(*ast.SpreadElement); ok {
			t.fail(a, "a spread argument")
		}
		out[i] = t.num(a)
	}
	return out
}

var numberConsts = map[string]string{
	"MAX_SAFE_INTEGER": "9007199254740991.0", "MIN_SAFE_INTEGER": "-9007199254740991.0",
	"MAX_VALUE": "Double.MAX_VALUE", "MIN_VALUE": "Double.MIN_VALUE", "EPSILON": "Math.ulp(1.0)",
	"POSITIVE_INFINITY": "Double.POSITIVE_INFINITY", "NEGATIVE_INFINITY": "Double.NEGATIVE_INFINITY", "NaN": "Double.NaN",
}

// methods are the methods of values that JsRt.call has.
var methods = map[string]bool{
	"push": true, "pop": true, "shift": true, "unshift": true, "indexOf": true, "includes": true, "join": true,
	"slice": true, "toUpperCase": true, "toLowerCase": true, "trim": true, "startsWith": true, "endsWith": true,
	"substring": true, "split": true, "getTime": true, "valueOf": true, "toISOString": true, "toString": true,
	"toFixed": true,
}

var math1 = map[string]string{
	"floor": "Math.floor", "ceil": "Math.ceil", "abs": "Math.abs", "sqrt": "Math.sqrt", "log": "Math.log",
	"exp": "Math.exp", "round": "JsRt.round", "trunc": "JsRt.trunc", "sign": "JsRt.sign", "log10": "Math.log10",
	"log2": "JsRt.log2", "cbrt": "Math.cbrt", "sin": "Math.sin", "cos": "Math.cos", "tan": "Math.tan",
}

func (t *tr) call(e *ast.CallExpression) jv {
	switch c := e.Callee.(type) {
	case *ast.Identifier:
		name := c.Name.String()
		b := t.fn.lookup(name)
		if b != nil && b.kind == bGlobal && b.g.fn != nil {
			j := t.useGlobal(b.g, c)
			args := t.args(e.ArgumentList)
			if len(args) > arity(b.g.fn) {
				t.fail(e, "a call with more arguments than the function has parameters")
			}
			for len(args) < arity(b.g.fn) {
				args = append(args, "JsRt.UNDEF")
			}
			return jv{j + "(" + strings.Join(args, ", ") + ")", tObj}
		}
		if b == nil {
			switch name {
			case "Number":
				if len(e.ArgumentList) == 0 {
					return jv{"0.0", tNum}
				}
				return jv{t.num(e.ArgumentList[0]), tNum}
			case "String":
				if len(e.ArgumentList) == 0 {
					return jv{`""`, tObj}
				}
				return jv{"JsRt.str(" + t.value(e.ArgumentList[0]) + ")", tObj}
			case "Boolean":
				if len(e.ArgumentList) == 0 {
					return jv{"false", tBool}
				}
				return jv{t.cond(e.ArgumentList[0]), tBool}
			case "isNaN":
				if len(e.ArgumentList) == 1 {
					return jv{"Double.isNaN(" + t.num(e.ArgumentList[0]) + ")", tBool}
				}
			}
		}
		t.fail(e, "a call of %s", name)
	case *ast.DotExpression:
		return t.methodCall(e, c)
	}
	t.fail(e, "this call")
	return jv{}
}

func (t *tr) methodCall(e *ast.CallExpression, c *ast.DotExpression) jv {
	name := c.Identifier.Name.String()
	if id, ok := c.Left.(*ast.Identifier); ok {
		b := t.fn.lookup(id.Name.String())
		switch {
		case b != nil && b.kind == bCtx:
			return t.ctxCall(e, name)
		case b != nil && b.kind == bTime:
			return t.timeCall(e, name)
		case b == nil && id.Name.String() == "Math":
			return t.mathCall(e, name)
		case b == nil && id.Name.String() == "Number" && len(e.ArgumentList) == 1:
			switch name {
			case "isFinite":
				return jv{fmt.Sprintf("(JsRt.typeOf(%s) == \"number\" && Double.isFinite(JsRt.num(%[1]s)))", t.value(e.ArgumentList[0])), tBool}
			case "isInteger":
				return jv{fmt.Sprintf("JsRt.isInteger(%s)", t.value(e.ArgumentList[0])), tBool}
			}
		case b == nil && id.Name.String() == "Array" && name == "isArray" && len(e.ArgumentList) == 1:
			return jv{"(" + t.value(e.ArgumentList[0]) + " instanceof JsRt.Arr)", tBool}
		case b == nil:
			t.fail(e, "%s.%s", id.Name.String(), name)
		}
	}
	if t.isTimeContext(c.Left) {
		return t.timeCall(e, name)
	}
	if !methods[name] {
		t.fail(e, "the method .%s()", name)
	}
	recv := t.value(c.Left)
	args := t.args(e.ArgumentList)
	ty := tObj
	if name == "push" && len(args) == 1 {
		return jv{"JsRt.push(" + recv + ", " + args[0] + ")", tObj}
	}
	return jv{"JsRt.call(" + strings.Join(append([]string{recv, javaString(name)}, args...), ", ") + ")", ty}
}

func (t *tr) ctxCall(e *ast.CallExpression, name string) jv {
	n := len(e.ArgumentList)
	switch name {
	case "collect":
		if n != 1 {
			t.fail(e, "collect with a RowKind")
		}
		return jv{"out(" + t.value(e.ArgumentList[0]) + ")", tObj}
	case "currentTimer":
		if n == 0 {
			if !t.fn.timer {
				return jv{"((Object) null)", tObj}
			}
			return jv{"(Object) ((ProcessTableFunction.OnTimerContext) cx).currentTimer()", tObj}
		}
	case "timeContext":
		if n == 0 {
			return jv{"cx.timeContext(Long.class)", tTime}
		}
	}
	t.fail(e, "ctx.%s()", name)
	return jv{}
}

func (t *tr) timeCall(e *ast.CallExpression, name string) jv {
	const tc = "cx.timeContext(Long.class)"
	a := e.ArgumentList
	switch {
	case name == "time" && len(a) == 0:
		return jv{"JsRt.time(" + tc + ".time())", tObj}
	case name == "currentWatermark" && len(a) == 0:
		return jv{"JsRt.time(" + tc + ".currentWatermark())", tObj}
	case name == "registerOnTime" && len(a) == 1:
		return jv{"JsRt.timer(" + tc + ", null, " + t.value(a[0]) + ")", tObj}
	case name == "registerOnTime" && len(a) == 2:
		return jv{"JsRt.timer(" + tc + ", JsRt.str(" + t.value(a[0]) + "), " + t.value(a[1]) + ")", tObj}
	case name == "clearTimer" && len(a) == 1:
		return jv{"JsRt.clearTimer(" + tc + ", " + t.value(a[0]) + ")", tObj}
	}
	t.fail(e, "the time context's %s()", name)
	return jv{}
}

func (t *tr) mathCall(e *ast.CallExpression, name string) jv {
	a := e.ArgumentList
	if f, ok := math1[name]; ok && len(a) == 1 {
		return jv{f + "(" + t.num(a[0]) + ")", tNum}
	}
	switch name {
	case "max", "min":
		return jv{"JsRt." + name + "(" + strings.Join(t.nums(a), ", ") + ")", tNum}
	case "pow":
		if len(a) == 2 {
			return jv{"JsRt.pow(" + t.num(a[0]) + ", " + t.num(a[1]) + ")", tNum}
		}
	case "random":
		t.fail(e, "Math.random() (ptfsh seeds it; Flink would not give the same numbers)")
	}
	t.fail(e, "Math.%s with %d arguments", name, len(a))
	return jv{}
}

func (t *tr) newExpr(e *ast.NewExpression) jv {
	id, ok := e.Callee.(*ast.Identifier)
	if !ok || t.fn.lookup(id.Name.String()) != nil {
		t.fail(e, "new of a value")
	}
	switch name := id.Name.String(); name {
	case "Date":
		if len(e.ArgumentList) == 1 {
			return jv{"JsRt.newDate(" + t.value(e.ArgumentList[0]) + ")", tObj}
		}
		t.fail(e, "new Date() without exactly one argument (the clock, or fields)")
	case "Error", "TypeError", "RangeError":
		msg := "JsRt.UNDEF"
		if len(e.ArgumentList) > 0 {
			msg = t.value(e.ArgumentList[0])
		}
		return jv{"JsRt.error(" + javaString(name) + ", " + msg + ")", tObj}
	case "Array":
		if len(e.ArgumentList) == 0 {
			return jv{"JsRt.arr()", tObj}
		}
	}
	t.fail(e, "new %s", id.Name.String())
	return jv{}
}

func (t *tr) unary(e *ast.UnaryExpression) jv {
	switch e.Operator {
	case token.NOT:
		return jv{"!" + paren(t.cond(e.Operand)), tBool}
	case token.MINUS:
		return jv{"(-" + paren(t.num(e.Operand)) + ")", tNum}
	case token.PLUS:
		return jv{t.num(e.Operand), tNum}
	case token.TYPEOF:
		if id, ok := e.Operand.(*ast.Identifier); ok && t.fn.lookup(id.Name.String()) == nil {
			switch id.Name.String() {
			case "undefined", "NaN", "Infinity":
			default:
				t.fail(e, "typeof of a global")
			}
		}
		return jv{"JsRt.typeOf(" + t.value(e.Operand) + ")", tObj}
	case token.INCREMENT, token.DECREMENT:
		by := "1"
		if e.Operator == token.DECREMENT {
			by = "-1"
		}
		obj, key := t.target(e.Operand)
		if obj == "" {
			t.fail(e, "++ or -- of a variable inside an expression")
		}
		return jv{fmt.Sprintf("JsRt.update(%s, %s, %s, %t)", obj, key, by, !e.Postfix), tObj}
	case token.DELETE:
		t.fail(e, "delete")
	case token.VOID:
		t.fail(e, "void")
	case token.BITWISE_NOT:
		t.fail(e, "the bitwise operator ~")
	}
	t.fail(e, "the operator %s", e.Operator)
	return jv{}
}

func paren(s string) string { return "(" + s + ")" }

func (t *tr) binary(e *ast.BinaryExpression) jv {
	op := e.Operator
	switch op {
	case token.LOGICAL_AND, token.LOGICAL_OR, token.COALESCE:
		if !t.pure(e.Left) {
			t.fail(e, "&&, || or ?? whose left side calls or assigns")
		}
		l, r := t.expr(e.Left), t.expr(e.Right)
		if op != token.COALESCE && l.ty == tBool && r.ty == tBool {
			return jv{fmt.Sprintf("(%s %s %s)", l.code, op, r.code), tBool}
		}
		test := t.cond(e.Left)
		if op == token.COALESCE {
			test = "!JsRt.nullish(" + t.box(e.Left, l) + ")"
		} else if op == token.LOGICAL_AND {
			test = "!" + paren(test)
		}
		return jv{fmt.Sprintf("(%s ? %s : %s)", test, t.box(e.Left, l), t.box(e.Right, r)), tObj}
	case token.PLUS:
		l, r := t.expr(e.Left), t.expr(e.Right)
		if l.ty == tNum && r.ty == tNum {
			return jv{fmt.Sprintf("(%s + %s)", l.code, r.code), tNum}
		}
		return jv{fmt.Sprintf("JsRt.add(%s, %s)", t.box(e.Left, l), t.box(e.Right, r)), tObj}
	case token.MINUS, token.MULTIPLY, token.SLASH, token.REMAINDER:
		return jv{fmt.Sprintf("(%s %s %s)", t.num(e.Left), op, t.num(e.Right)), tNum}
	case token.EXPONENT:
		return jv{fmt.Sprintf("JsRt.pow(%s, %s)", t.num(e.Left), t.num(e.Right)), tNum}
	case token.LESS, token.LESS_OR_EQUAL, token.GREATER, token.GREATER_OR_EQUAL:
		l, r := t.expr(e.Left), t.expr(e.Right)
		if l.ty == tNum || r.ty == tNum {
			// A number on one side: the comparison is numeric.
			ln, rn := l.code, r.code
			if l.ty != tNum {
				ln = "JsRt.num(" + t.box(e.Left, l) + ")"
			}
			if r.ty != tNum {
				rn = "JsRt.num(" + t.box(e.Right, r) + ")"
			}
			return jv{fmt.Sprintf("(%s %s %s)", ln, op, rn), tBool}
		}
		fn := map[token.Token]string{token.LESS: "lt", token.LESS_OR_EQUAL: "le", token.GREATER: "gt", token.GREATER_OR_EQUAL: "ge"}[op]
		return jv{fmt.Sprintf("JsRt.%s(%s, %s)", fn, t.box(e.Left, l), t.box(e.Right, r)), tBool}
	case token.STRICT_EQUAL, token.STRICT_NOT_EQUAL, token.EQUAL, token.NOT_EQUAL:
		not := op == token.STRICT_NOT_EQUAL || op == token.NOT_EQUAL
		strict := op == token.STRICT_EQUAL || op == token.STRICT_NOT_EQUAL
		var code string
		switch {
		case isNullish(e.Right) || isNullish(e.Left):
			x, lit := e.Left, e.Right
			if isNullish(e.Left) {
				x, lit = e.Right, e.Left
			}
			v := t.value(x)
			switch {
			case !strict:
				code = "JsRt.nullish(" + v + ")"
			case isIdent(lit, "undefined"):
				code = "(" + v + " == JsRt.UNDEF)"
			default:
				code = "(" + v + " == null)"
			}
		default:
			l, r := t.expr(e.Left), t.expr(e.Right)
			if l.ty == tNum && r.ty == tNum {
				code = fmt.Sprintf("(%s == %s)", l.code, r.code)
			} else if strict {
				code = fmt.Sprintf("JsRt.seq(%s, %s)", t.box(e.Left, l), t.box(e.Right, r))
			} else {
				code = fmt.Sprintf("JsRt.leq(%s, %s)", t.box(e.Left, l), t.box(e.Right, r))
			}
		}
		if not {
			code = "!" + code
		}
		return jv{code, tBool}
	case token.IN:
		t.fail(e, "the in operator")
	case token.INSTANCEOF:
		t.fail(e, "instanceof")
	}
	t.fail(e, "the operator %s", op)
	return jv{}
}

func isNullish(e ast.Expression) bool {
	if _, ok := e.(*ast.NullLiteral); ok {
		return true
	}
	return isIdent(e, "undefined")
}

// pure tells whether e may be evaluated twice: it neither calls nor
// assigns.
func (t *tr) pure(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.Identifier, *ast.NumberLiteral, *ast.StringLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return true
	case *ast.DotExpression:
		return t.pure(e.Left)
	case *ast.BracketExpression:
		return t.pure(e.Left) && t.pure(e.Member)
	case *ast.BinaryExpression:
		return t.pure(e.Left) && t.pure(e.Right)
	case *ast.UnaryExpression:
		return e.Operator != token.INCREMENT && e.Operator != token.DECREMENT && e.Operator != token.DELETE && t.pure(e.Operand)
	case *ast.TemplateLiteral:
		for _, x := range e.Expressions {
			if !t.pure(x) {
				return false
			}
		}
		return e.Tag == nil
	}
	return false
}

// target is the object and key of an assignment to obj.name or obj[key]
// ("" for a variable).
func (t *tr) target(e ast.Expression) (obj, key string) {
	switch e := e.(type) {
	case *ast.DotExpression:
		if id, ok := e.Left.(*ast.Identifier); ok {
			if b := t.fn.lookup(id.Name.String()); b != nil && b.kind != bLocal && b.kind != bGlobal {
				return "", "" // state.x and the like: a variable
			}
		}
		return t.value(e.Left), javaString(e.Identifier.Name.String())
	case *ast.BracketExpression:
		return t.value(e.Left), t.value(e.Member)
	}
	return "", ""
}

// variable is the Java variable that an assignment to e writes: a local,
// a top-level variable or a state entry (state.x).
func (t *tr) variable(e ast.Expression) string {
	switch e := e.(type) {
	case *ast.Identifier:
		b := t.fn.lookup(e.Name.String())
		if b == nil {
			t.fail(e, "an assignment to the global %s", e.Name.String())
		}
		switch b.kind {
		case bLocal:
			return b.java
		case bGlobal:
			if b.g.fn != nil || b.g.cons {
				t.fail(e, "an assignment to a function or constant")
			}
			return t.useGlobal(b.g, e)
		}
		t.fail(e, "an assignment to ctx, the state, the arguments or a row")
	case *ast.DotExpression:
		if id, ok := e.Left.(*ast.Identifier); ok {
			if b := t.fn.lookup(id.Name.String()); b != nil && b.kind == bStateBox {
				return t.stateSlot(e, e.Identifier.Name.String())
			}
		}
	}
	t.fail(e, "an assignment to this target")
	return ""
}

// compound are the compound assignments JsRt.setOp does; goja's parser
// gives x += y as an AssignExpression whose operator is +.
var compound = map[token.Token]string{
	token.PLUS: "JsRt.ADD", token.MINUS: "JsRt.SUB", token.MULTIPLY: "JsRt.MUL",
	token.SLASH: "JsRt.DIV", token.REMAINDER: "JsRt.MOD",
}

// assign translates an assignment; stmt tells that its value is unused,
// so that an assignment to a variable is a Java statement.
func (t *tr) assign(e *ast.AssignExpression, stmt bool) jv {
	op := e.Operator
	if op != token.ASSIGN && compound[op] == "" {
		t.fail(e, "the assignment operator %s", op)
	}
	if obj, key := t.target(e.Left); obj != "" {
		if op == token.ASSIGN {
			return jv{fmt.Sprintf("JsRt.set(%s, %s, %s)", obj, key, t.value(e.Right)), tObj}
		}
		if !t.pure(e.Right) {
			t.fail(e, "a compound assignment to a property whose right side calls or assigns")
		}
		return jv{fmt.Sprintf("JsRt.setOp(%s, %s, %s, %s)", obj, key, compound[op], t.value(e.Right)), tObj}
	}
	if !stmt {
		t.fail(e, "an assignment to a variable inside an expression")
	}
	v := t.variable(e.Left)
	if op == token.ASSIGN {
		return jv{v + " = " + t.value(e.Right), tObj}
	}
	bin := &ast.BinaryExpression{Operator: op, Left: e.Left, Right: e.Right}
	return jv{v + " = " + t.value(bin), tObj}
}

// exprStmt translates an expression whose value is unused into a Java
// statement expression.
func (t *tr) exprStmt(e ast.Expression) string {
	switch e := e.(type) {
	case *ast.AssignExpression:
		return t.assign(e, true).code
	case *ast.UnaryExpression:
		if e.Operator == token.INCREMENT || e.Operator == token.DECREMENT {
			if obj, _ := t.target(e.Operand); obj == "" {
				v := t.variable(e.Operand)
				by := "1"
				if e.Operator == token.DECREMENT {
					by = "-1"
				}
				return fmt.Sprintf("%s = JsRt.inc(%s, %s)", v, v, by)
			}
		}
	}
	v := t.expr(e)
	if v.ty == tObj && strings.HasSuffix(v.code, ")") && !strings.HasPrefix(v.code, "(") {
		return v.code // a call
	}
	return "JsRt.ignore(" + t.box(e, v) + ")"
}
