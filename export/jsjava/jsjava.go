// Package jsjava translates a JavaScript PTF, as ptfsh bundles it, into
// Java for ptfsh export flink, for the part of JavaScript that PTFs use:
// let, const and var; numbers, strings, booleans, null and undefined;
// arithmetic, comparisons and logical operators; if/else, while, do-while,
// for and for-of loops, break and continue; object and array literals and
// their properties; template literals; the state entries (value state)
// and the rows' columns; ctx.collect, ctx.currentTimer and the time
// context's methods; Math.*, a few methods of strings, arrays and Dates;
// top-level constants and functions. The Java it writes works on the
// values of the project's JsRt class, which does what JavaScript does
// with them.
//
// Anything else (closures, classes, try/catch, switch, regular
// expressions, views, Map and Set, BigInt, JSON, console, ...) is refused
// with an [*Unsupported] error that names the construct and quotes the
// code: the export then keeps GraalJS for the function.
//
// The package reads the bundle with goja's parser (its AST only; it runs
// nothing).
package jsjava

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// Func describes the function's declaration as ptfsh loaded it.
type Func struct {
	// States are the value state entries, in declaration order.
	States []string
	// Args are the arguments, in declaration order.
	Args []Arg
	// OnTimer tells whether the function has onTimer.
	OnTimer bool
}

// Arg is an argument of the function.
type Arg struct {
	Name  string
	Table bool
}

// Java is a translated function: pieces of a Java class that the export's
// template puts together. The class has the fields cx (the call's
// Context), st_<i> (the i-th state entry's value), row_<i> (the i-th
// argument's Flink Row) and arg_<i> (a scalar argument's value), and a
// method out(Object) that collects an output value.
type Java struct {
	// Fields declare the function's top-level variables and the column
	// lookups (transient, as Flink serializes the function), indented by
	// four spaces.
	Fields string
	// Init sets them, in the order the module sets them, for open();
	// indented by eight spaces.
	Init string
	// Methods are the function's top-level functions.
	Methods string
	// Eval is the body of evalBody(), indented by eight spaces.
	Eval string
	// OnTimer is the body of onTimerBody(), or "".
	OnTimer string
	// Defaults are Java expressions, one per state entry, that give a
	// fresh default value.
	Defaults []string
}

// Unsupported says which construct of the function the translator does
// not take.
type Unsupported struct {
	// What names the construct ("try/catch", "the method .sort()", ...).
	What string
	// Code is the start of the construct's source text, on one line.
	Code string
}

func (u *Unsupported) Error() string {
	if u.Code == "" {
		return u.What
	}
	return fmt.Sprintf("%s (%s)", u.What, u.Code)
}

// bail carries an *Unsupported out of the recursive translation.
type bail struct{ u *Unsupported }

// Translate translates bundle (the script ptfsh export writes into the
// project: esbuild's bundle whose completion value is the declaration)
// into Java. It returns an *Unsupported error for a construct outside the
// subset, and never panics on any input.
func Translate(bundle string, f Func) (j *Java, err error) {
	prog, perr := parser.ParseFile(nil, "", bundle, 0)
	if perr != nil {
		return nil, &Unsupported{What: "code that goja's parser does not read: " + firstLine(perr.Error())}
	}
	t := &tr{src: bundle, f: f, globals: map[string]*global{}}
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			j, err = nil, b.u
		}
	}()
	return t.program(prog), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// global is a top-level binding of the module.
type global struct {
	name string
	decl ast.Expression       // a variable's initializer (nil: undefined)
	fn   *ast.FunctionLiteral // a function declaration
	done bool                 // translated
	busy bool                 // being translated
	java string               // its Java name
	cnum string               // a constant number, inlined
	cons bool                 // declared with const
}

type tr struct {
	src                       string
	f                         Func
	globals                   map[string]*global
	fieldDecls, init, methods strings.Builder
	fields                    map[int]*argFields // column lookups per table argument
	fieldOrder                []int

	// the method being translated
	fn *fnScope
}

// argFields are the columns a table argument's row is read by.
type argFields struct {
	names []string
	index map[string]int
}

func (t *tr) fail(n ast.Node, format string, args ...any) {
	u := &Unsupported{What: fmt.Sprintf(format, args...)}
	if n != nil {
		u.Code = t.code(n)
	}
	panic(bail{u})
}

// code is the start of n's source text, on one line.
func (t *tr) code(n ast.Node) string {
	from, to := int(n.Idx0())-1, int(n.Idx1())-1
	if from < 0 || from > len(t.src) {
		return ""
	}
	if to > len(t.src) || to < from {
		to = len(t.src)
	}
	s := strings.Join(strings.Fields(t.src[from:to]), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// program finds the declaration in esbuild's bundle: var __ptfsh_module =
// (() => { ...; return __toCommonJS(x_exports); })(); __ptfsh_module.default;
// and translates its eval and onTimer.
func (t *tr) program(p *ast.Program) *Java {
	body := t.moduleBody(p)
	var exportsVar, defaultName string
	for _, s := range body {
		switch s := s.(type) {
		case *ast.VariableStatement:
			for _, b := range s.List {
				id, ok := b.Target.(*ast.Identifier)
				if !ok {
					t.fail(b.Target, "a top-level destructuring declaration")
				}
				t.addGlobal(id.Name.String(), b.Initializer, nil, false)
			}
		case *ast.LexicalDeclaration:
			for _, b := range s.List {
				id, ok := b.Target.(*ast.Identifier)
				if !ok {
					t.fail(b.Target, "a top-level destructuring declaration")
				}
				t.addGlobal(id.Name.String(), b.Initializer, nil, s.Token.String() == "const")
			}
		case *ast.FunctionDeclaration:
			if s.Function.Name == nil {
				t.fail(s, "a function without a name")
			}
			t.addGlobal(s.Function.Name.Name.String(), nil, s.Function, false)
		case *ast.ExpressionStatement:
			// esbuild's __export(x_exports, { default: () => name }).
			c, ok := s.Expression.(*ast.CallExpression)
			if !ok || !isIdent(c.Callee, "__export") || len(c.ArgumentList) != 2 {
				t.fail(s, "a top-level statement that runs when the module loads")
			}
			exportsVar = identName(c.ArgumentList[0])
			obj, ok := c.ArgumentList[1].(*ast.ObjectLiteral)
			if !ok {
				t.fail(s, "an export that is not esbuild's")
			}
			for _, pr := range obj.Value {
				k, ok := pr.(*ast.PropertyKeyed)
				if !ok || propKey(k) != "default" {
					continue
				}
				if a, ok := k.Value.(*ast.ArrowFunctionLiteral); ok {
					if eb, ok := a.Body.(*ast.ExpressionBody); ok {
						defaultName = identName(eb.Expression)
					}
				}
			}
		case *ast.ReturnStatement, *ast.EmptyStatement:
		default:
			t.fail(s, "a top-level statement that runs when the module loads")
		}
	}
	_ = exportsVar
	g := t.globals[defaultName]
	if defaultName == "" || g == nil || g.decl == nil {
		t.fail(nil, "a default export that is not a declaration object in the function's file")
	}
	decl, ok := g.decl.(*ast.ObjectLiteral)
	if !ok {
		t.fail(g.decl, "a default export that is not an object literal")
	}
	g.done = true // the declaration itself is not a value the code reads
	var evalFn, timerFn *ast.FunctionLiteral
	var stateDecl *ast.ObjectLiteral
	for _, pr := range decl.Value {
		k, ok := pr.(*ast.PropertyKeyed)
		if !ok || k.Computed {
			t.fail(pr, "a declaration property that is not a plain key")
		}
		switch name := propKey(k); name {
		case "output", "args", "name":
		case "state":
			if stateDecl, ok = k.Value.(*ast.ObjectLiteral); !ok {
				t.fail(k.Value, "a state declaration that is not an object literal")
			}
		case "eval", "onTimer":
			fl, ok := k.Value.(*ast.FunctionLiteral)
			if !ok {
				t.fail(k.Value, "an %s that is not a method or function", name)
			}
			if fl.Async || fl.Generator {
				t.fail(k.Value, "an async or generator %s", name)
			}
			if name == "eval" {
				evalFn = fl
			} else {
				timerFn = fl
			}
		default:
			t.fail(k, "the declaration's %q", name)
		}
	}
	if evalFn == nil {
		t.fail(decl, "a declaration without eval")
	}
	j := &Java{Defaults: t.defaults(stateDecl)}
	j.Eval = t.method(evalFn, false)
	if timerFn != nil {
		j.OnTimer = t.method(timerFn, true)
	}
	for _, i := range t.fieldOrder {
		af := t.fields[i]
		quoted := make([]string, len(af.names))
		for k, n := range af.names {
			quoted[k] = javaString(n)
		}
		fmt.Fprintf(&t.fieldDecls, "    private transient JsRt.Fields fields_%d;\n", i)
		fmt.Fprintf(&t.init, "        fields_%d = new JsRt.Fields(%s, %s);\n",
			i, javaString(t.f.Args[i].Name), strings.Join(quoted, ", "))
	}
	j.Fields, j.Init, j.Methods = t.fieldDecls.String(), t.init.String(), t.methods.String()
	return j
}

// moduleBody is the statements of esbuild's module function.
func (t *tr) moduleBody(p *ast.Program) []ast.Statement {
	for _, s := range p.Body {
		v, ok := s.(*ast.VariableStatement)
		if !ok || len(v.List) != 1 || identName(v.List[0].Target) != "__ptfsh_module" {
			continue
		}
		c, ok := v.List[0].Initializer.(*ast.CallExpression)
		if !ok {
			break
		}
		a, ok := c.Callee.(*ast.ArrowFunctionLiteral)
		if !ok {
			break
		}
		if b, ok := a.Body.(*ast.BlockStatement); ok {
			return b.List
		}
	}
	t.fail(nil, "a script that is not ptfsh's bundle")
	return nil
}

func (t *tr) addGlobal(name string, init ast.Expression, fn *ast.FunctionLiteral, cons bool) {
	if strings.HasPrefix(name, "__") {
		return // esbuild's helpers (__defProp, __export, ...): never read by the function
	}
	t.globals[name] = &global{name: name, decl: init, fn: fn, cons: cons}
}

// defaults are the Java expressions of the state entries' defaults.
func (t *tr) defaults(st *ast.ObjectLiteral) []string {
	exprs := map[string]ast.Expression{}
	if st != nil {
		for _, pr := range st.Value {
			k, ok := pr.(*ast.PropertyKeyed)
			if !ok || k.Computed {
				t.fail(pr, "a state entry that is not a plain key")
			}
			o, ok := k.Value.(*ast.ObjectLiteral)
			if !ok {
				t.fail(k.Value, "a state entry whose declaration is not an object literal")
			}
			for _, e := range o.Value {
				ek, ok := e.(*ast.PropertyKeyed)
				if !ok || ek.Computed {
					t.fail(e, "a state entry's declaration with a computed key")
				}
				if propKey(ek) == "default" {
					exprs[propKey(k)] = ek.Value
				}
			}
		}
	}
	out := make([]string, len(t.f.States))
	t.fn = newFnScope(t, false)
	for i, n := range t.f.States {
		e, ok := exprs[n]
		if !ok || isIdent(e, "undefined") {
			out[i] = "JsRt.obj()"
			continue
		}
		out[i] = t.value(e)
	}
	if t.fn.decls.Len() > 0 {
		t.fail(nil, "a state default that needs statements")
	}
	t.fn = nil
	return out
}

// useGlobal translates the top-level binding g when the code first reads
// it, and gives its Java name.
func (t *tr) useGlobal(g *global, at ast.Node) string {
	if g.done {
		if g.java == "" {
			t.fail(at, "a reference to the declaration object")
		}
		return g.java
	}
	if g.busy {
		t.fail(at, "top-level declarations that refer to each other")
	}
	g.busy = true
	saved := t.fn
	if g.fn != nil {
		g.java = "f_" + javaIdent(g.name)
		g.done = true // recursion calls it by name
		t.methods.WriteString(t.function(g.fn, g.java))
	} else {
		g.java = "g_" + javaIdent(g.name)
		t.fn = newFnScope(t, false)
		init := "JsRt.UNDEF"
		if g.decl != nil {
			v := t.expr(g.decl)
			if v.ty == tNum && t.constNum(g.decl) && (g.cons || t.assignments(g.name) <= 1) {
				// A constant number (esbuild writes const as var): inlined.
				g.cnum = "(" + v.code + ")"
				if _, ok := g.decl.(*ast.NumberLiteral); ok {
					g.cnum = v.code
				}
			}
			init = t.box(g.decl, v)
		}
		if t.fn.decls.Len() > 0 {
			t.fail(g.decl, "a top-level initializer that needs statements")
		}
		fmt.Fprintf(&t.fieldDecls, "    private transient Object %s;\n", g.java)
		fmt.Fprintf(&t.init, "        %s = %s;\n", g.java, init)
		g.done = true
	}
	t.fn = saved
	g.busy = false
	return g.java
}

func isIdent(e ast.Node, name string) bool {
	id, ok := e.(*ast.Identifier)
	return ok && id.Name.String() == name
}

func identName(e ast.Node) string {
	if id, ok := e.(*ast.Identifier); ok {
		return id.Name.String()
	}
	return ""
}

// propKey is the name of a plain property key, "" for another.
func propKey(k *ast.PropertyKeyed) string {
	switch key := k.Key.(type) {
	case *ast.StringLiteral:
		return key.Value.String()
	case *ast.Identifier:
		return key.Name.String()
	case *ast.NumberLiteral:
		return key.Literal
	}
	return ""
}

// javaIdent keeps the letters, digits, _ and $ of a JavaScript name.
func javaIdent(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_u%04x", r)
		}
	}
	return b.String()
}

// javaString is s as a Java string literal: ASCII, every other UTF-16
// unit as a \u escape (none of them a line break, quote or backslash),
// control characters in octal.
func javaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range utf16Units(s) {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		case r < 0x80:
			b.WriteByte(byte(r))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// utf16Units are the UTF-16 code units of s, as JavaScript's string has
// them (goja's parser gives a lone surrogate as U+FFFD).
func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}

// assignments counts the places in the module's text that may assign
// name, its declaration with an initializer included: an assignment, ++
// or -- next to it (conservative: any variable of that name counts, and
// so does a property of that name written with a dot).
func (t *tr) assignments(name string) int {
	q := regexp.QuoteMeta(name)
	re := regexp.MustCompile(`(^|[^\w$])` + q + `\s*([-+*/%&|^]|\*\*|<<|>>>?|&&|\|\||\?\?)?=[^=]|(\+\+|--)\s*` + q + `($|[^\w$])|(^|[^\w$])` + q + `\s*(\+\+|--)`)
	return len(re.FindAllStringIndex(t.src, -1))
}

// constNum tells whether e is a number computed from number literals and
// constant numbers only.
func (t *tr) constNum(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.NumberLiteral:
		return true
	case *ast.Identifier:
		g := t.globals[e.Name.String()]
		return g != nil && g.cnum != ""
	case *ast.UnaryExpression:
		return (e.Operator == token.MINUS || e.Operator == token.PLUS) && t.constNum(e.Operand)
	case *ast.BinaryExpression:
		switch e.Operator {
		case token.PLUS, token.MINUS, token.MULTIPLY, token.SLASH, token.REMAINDER:
			return t.constNum(e.Left) && t.constNum(e.Right)
		}
	}
	return false
}
