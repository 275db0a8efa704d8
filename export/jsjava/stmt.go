package jsjava

import (
	"fmt"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

type bkind int

const (
	bLocal    bkind = iota // a Java local (or field) holding a value
	bCtx                   // eval's or onTimer's ctx
	bStateBox              // the state parameter itself: state.x is st_<i>
	bArgsBox               // the arguments parameter itself: args.x
	bRow                   // a table argument's row: row_<i>
	bTime                  // ctx.timeContext()
	bGlobal                // a top-level binding, translated when first read
)

type binding struct {
	kind bkind
	java string
	idx  int
	g    *global
}

// fnScope is the method being translated.
type fnScope struct {
	t      *tr
	timer  bool // onTimer: no rows, scalar arguments throw
	helper bool // a top-level function: no ctx, state or arguments
	scopes []map[string]*binding
	used   map[string]bool
	decls  strings.Builder // hoisted var declarations
	loops  int
}

func newFnScope(t *tr, timer bool) *fnScope {
	return &fnScope{t: t, timer: timer, scopes: []map[string]*binding{{}},
		used: map[string]bool{"cx": true}}
}

func (f *fnScope) push() { f.scopes = append(f.scopes, map[string]*binding{}) }
func (f *fnScope) pop()  { f.scopes = f.scopes[:len(f.scopes)-1] }

// declare binds a JavaScript name in the innermost scope to a new Java
// local, unique in the method (Java forbids shadowing a local).
func (f *fnScope) declare(name string) string { return f.declareIn(len(f.scopes)-1, name) }

// declareIn is declare in the scope at depth d (0: the method's).
func (f *fnScope) declareIn(d int, name string) string {
	base := "v_" + javaIdent(name)
	j := base
	for n := 2; f.used[j]; n++ {
		j = fmt.Sprintf("%s_%d", base, n)
	}
	f.used[j] = true
	f.scopes[d][name] = &binding{kind: bLocal, java: j}
	return j
}

func (f *fnScope) lookup(name string) *binding {
	for i := len(f.scopes) - 1; i >= 0; i-- {
		if b, ok := f.scopes[i][name]; ok {
			return b
		}
	}
	if g, ok := f.t.globals[name]; ok {
		return &binding{kind: bGlobal, g: g}
	}
	return nil
}

// method translates eval or onTimer: (ctx, state, args) bound to the
// class's fields; it gives the body of evalBody() or onTimerBody().
func (t *tr) method(fl *ast.FunctionLiteral, timer bool) string {
	t.fn = newFnScope(t, timer)
	defer func() { t.fn = nil }()
	f := t.fn
	params := fl.ParameterList
	if params.Rest != nil {
		t.fail(params.Rest, "a rest parameter")
	}
	var pre strings.Builder
	for i, p := range params.List {
		if p.Initializer != nil {
			t.fail(p.Initializer, "a parameter with a default value")
		}
		switch i {
		case 0:
			id, ok := p.Target.(*ast.Identifier)
			if !ok {
				t.fail(p.Target, "a destructured ctx")
			}
			f.scopes[0][id.Name.String()] = &binding{kind: bCtx}
		case 1:
			t.stateParam(p.Target, &pre)
		case 2:
			t.argsParam(p.Target, &pre, timer)
		default:
			t.fail(p.Target, "a fourth parameter")
		}
	}
	body := t.block(fl.Body.List, 2)
	return f.decls.String() + pre.String() + body
}

func (t *tr) stateParam(target ast.BindingTarget, pre *strings.Builder) {
	f := t.fn
	switch p := target.(type) {
	case *ast.Identifier:
		f.scopes[0][p.Name.String()] = &binding{kind: bStateBox}
	case *ast.ObjectPattern:
		if p.Rest != nil {
			t.fail(p.Rest, "a rest element in the state parameter")
		}
		for _, pr := range p.Properties {
			name, local := t.patternProp(pr)
			i := indexOf(t.f.States, name)
			if i < 0 {
				t.fail(pr, "a state entry %q that is not a value state entry", name)
			}
			j := f.declare(local)
			fmt.Fprintf(pre, "        Object %s = st_%d;\n", j, i)
		}
	default:
		t.fail(target, "a state parameter that is neither a name nor an object pattern")
	}
}

func (t *tr) argsParam(target ast.BindingTarget, pre *strings.Builder, timer bool) {
	f := t.fn
	switch p := target.(type) {
	case *ast.Identifier:
		f.scopes[0][p.Name.String()] = &binding{kind: bArgsBox}
	case *ast.ObjectPattern:
		if p.Rest != nil {
			t.fail(p.Rest, "a rest element in the arguments parameter")
		}
		for _, pr := range p.Properties {
			name, local := t.patternProp(pr)
			i := t.argIndex(name)
			if i < 0 {
				t.fail(pr, "an argument %q that the function does not declare", name)
			}
			if t.f.Args[i].Table {
				f.scopes[0][local] = &binding{kind: bRow, idx: i}
				continue
			}
			if timer {
				t.fail(pr, "a scalar argument read in onTimer")
			}
			j := f.declare(local)
			fmt.Fprintf(pre, "        Object %s = arg_%d;\n", j, i)
		}
	default:
		t.fail(target, "an arguments parameter that is neither a name nor an object pattern")
	}
}

func (t *tr) argIndex(name string) int {
	for i, a := range t.f.Args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// patternProp reads {name} or {name: local} of a parameter pattern.
func (t *tr) patternProp(pr ast.Property) (name, local string) {
	switch p := pr.(type) {
	case *ast.PropertyShort:
		if p.Initializer != nil {
			t.fail(p.Initializer, "a default value in a parameter pattern")
		}
		return p.Name.Name.String(), p.Name.Name.String()
	case *ast.PropertyKeyed:
		id, ok := p.Value.(*ast.Identifier)
		if p.Computed || !ok {
			t.fail(pr, "a nested pattern in a parameter")
		}
		return propKey(p), id.Name.String()
	}
	t.fail(pr, "a rest or spread in a parameter pattern")
	return "", ""
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// function translates a top-level function declaration into a Java
// method of Object parameters that returns an Object.
func (t *tr) function(fl *ast.FunctionLiteral, name string) string {
	if fl.Async || fl.Generator {
		t.fail(fl, "an async or generator function")
	}
	saved := t.fn
	t.fn = newFnScope(t, false)
	t.fn.helper = true
	defer func() { t.fn = saved }()
	if fl.ParameterList.Rest != nil {
		t.fail(fl.ParameterList.Rest, "a rest parameter")
	}
	var params []string
	for _, p := range fl.ParameterList.List {
		id, ok := p.Target.(*ast.Identifier)
		if !ok || p.Initializer != nil {
			t.fail(p.Target, "a parameter that is not a plain name")
		}
		params = append(params, "Object "+t.fn.declare(id.Name.String()))
	}
	body := t.block(fl.Body.List, 2)
	return fmt.Sprintf("\n    private Object %s(%s) {\n%s%s        return JsRt.UNDEF;\n    }\n",
		name, strings.Join(params, ", "), t.fn.decls.String(), body)
}

// arity is the number of parameters of a top-level function.
func arity(fl *ast.FunctionLiteral) int { return len(fl.ParameterList.List) }

func indent(n int) string { return strings.Repeat("    ", n) }

// block translates statements at indentation level n.
func (t *tr) block(list []ast.Statement, n int) string {
	var b strings.Builder
	t.fn.push()
	for _, s := range list {
		t.stmt(&b, s, n)
	}
	t.fn.pop()
	return b.String()
}

// body translates a statement that is the body of if, else or a loop.
func (t *tr) body(s ast.Statement, n int) string {
	if bs, ok := s.(*ast.BlockStatement); ok {
		return t.block(bs.List, n)
	}
	return t.block([]ast.Statement{s}, n)
}

func (t *tr) stmt(b *strings.Builder, s ast.Statement, n int) {
	in := indent(n)
	f := t.fn
	switch s := s.(type) {
	case *ast.EmptyStatement:
	case *ast.BlockStatement:
		fmt.Fprintf(b, "%s{\n%s%s}\n", in, t.block(s.List, n+1), in)
	case *ast.ExpressionStatement:
		fmt.Fprintf(b, "%s%s;\n", in, t.exprStmt(s.Expression))
	case *ast.VariableStatement:
		// var: hoisted to the method's start, undefined until assigned.
		for _, d := range s.List {
			id, ok := d.Target.(*ast.Identifier)
			if !ok {
				t.fail(d.Target, "a destructuring declaration")
			}
			name := id.Name.String()
			bnd := f.scopes[0][name]
			if bnd == nil || bnd.kind != bLocal {
				j := f.declareIn(0, name)
				fmt.Fprintf(&f.decls, "        Object %s = JsRt.UNDEF;\n", j)
				bnd = f.scopes[0][name]
			}
			if d.Initializer != nil {
				fmt.Fprintf(b, "%s%s = %s;\n", in, bnd.java, t.value(d.Initializer))
			}
		}
	case *ast.LexicalDeclaration:
		for _, d := range s.List {
			id, ok := d.Target.(*ast.Identifier)
			if !ok {
				t.fail(d.Target, "a destructuring declaration")
			}
			if d.Initializer != nil && s.Token == token.CONST && t.isTimeContext(d.Initializer) {
				f.scopes[len(f.scopes)-1][id.Name.String()] = &binding{kind: bTime}
				continue
			}
			init := "JsRt.UNDEF"
			if d.Initializer != nil {
				init = t.value(d.Initializer)
			}
			j := f.declare(id.Name.String())
			fmt.Fprintf(b, "%sObject %s = %s;\n", in, j, init)
		}
	case *ast.IfStatement:
		fmt.Fprintf(b, "%sif (%s) {\n%s%s}", in, t.cond(s.Test), t.body(s.Consequent, n+1), in)
		if s.Alternate != nil {
			fmt.Fprintf(b, " else {\n%s%s}", t.body(s.Alternate, n+1), in)
		}
		b.WriteString("\n")
	case *ast.WhileStatement:
		f.loops++
		fmt.Fprintf(b, "%swhile (%s) {\n%s%s}\n", in, t.cond(s.Test), t.body(s.Body, n+1), in)
		f.loops--
	case *ast.DoWhileStatement:
		f.loops++
		fmt.Fprintf(b, "%sdo {\n%s%s} while (%s);\n", in, t.body(s.Body, n+1), in, t.cond(s.Test))
		f.loops--
	case *ast.ForStatement:
		t.forStmt(b, s, n)
	case *ast.ForOfStatement:
		t.forOf(b, s, n)
	case *ast.BranchStatement:
		if s.Label != nil {
			t.fail(s, "a labelled break or continue")
		}
		if f.loops == 0 {
			t.fail(s, "a break outside a loop (switch)")
		}
		// if (true): Java refuses the statements after a bare jump as
		// unreachable, JavaScript does not.
		fmt.Fprintf(b, "%sif (JsRt.truthy(Boolean.TRUE)) %s;\n", in, s.Token.String())
	case *ast.ReturnStatement:
		switch {
		case f.helper && s.Argument != nil:
			fmt.Fprintf(b, "%sif (JsRt.truthy(Boolean.TRUE)) return %s;\n", in, t.value(s.Argument))
		case f.helper:
			fmt.Fprintf(b, "%sif (JsRt.truthy(Boolean.TRUE)) return JsRt.UNDEF;\n", in)
		default:
			if s.Argument != nil {
				// eval's value is ignored, but it is still computed.
				fmt.Fprintf(b, "%s%s;\n", in, t.exprStmt(s.Argument))
			}
			fmt.Fprintf(b, "%sif (JsRt.truthy(Boolean.TRUE)) return;\n", in)
		}
	case *ast.ThrowStatement:
		fmt.Fprintf(b, "%sif (JsRt.truthy(Boolean.TRUE)) throw new JsRt.Thrown(%s);\n", in, t.value(s.Argument))
	case *ast.FunctionDeclaration:
		t.fail(s, "a nested function")
	case *ast.SwitchStatement:
		t.fail(s, "switch")
	case *ast.TryStatement:
		t.fail(s, "try/catch")
	case *ast.ForInStatement:
		t.fail(s, "for-in")
	case *ast.LabelledStatement:
		t.fail(s, "a label")
	case *ast.ClassDeclaration:
		t.fail(s, "a class")
	default:
		t.fail(s, "this statement")
	}
}

func (t *tr) forStmt(b *strings.Builder, s *ast.ForStatement, n int) {
	in := indent(n)
	f := t.fn
	f.push()
	defer f.pop()
	var init string
	switch i := s.Initializer.(type) {
	case nil:
	case *ast.ForLoopInitializerLexicalDecl:
		var parts []string
		for _, d := range i.LexicalDeclaration.List {
			id, ok := d.Target.(*ast.Identifier)
			if !ok {
				t.fail(d.Target, "a destructuring declaration")
			}
			v := "JsRt.UNDEF"
			if d.Initializer != nil {
				v = t.value(d.Initializer)
			}
			parts = append(parts, f.declare(id.Name.String())+" = "+v)
		}
		init = "Object " + strings.Join(parts, ", ")
	case *ast.ForLoopInitializerExpression:
		init = t.exprStmt(i.Expression)
	default:
		t.fail(s, "a for loop with var (use let)")
	}
	test := "JsRt.truthy(Boolean.TRUE)"
	if s.Test != nil {
		test = t.cond(s.Test)
	}
	update := ""
	if s.Update != nil {
		update = t.exprStmt(s.Update)
	}
	f.loops++
	body := t.body(s.Body, n+1)
	f.loops--
	fmt.Fprintf(b, "%sfor (%s; %s; %s) {\n%s%s}\n", in, init, test, update, body, in)
}

func (t *tr) forOf(b *strings.Builder, s *ast.ForOfStatement, n int) {
	in := indent(n)
	f := t.fn
	f.push()
	defer f.pop()
	d, ok := s.Into.(*ast.ForDeclaration)
	if !ok {
		t.fail(s, "a for-of loop without let or const")
	}
	id, ok := d.Target.(*ast.Identifier)
	if !ok {
		t.fail(d.Target, "a destructuring for-of")
	}
	src := t.value(s.Source)
	list := f.declare("#list")
	k := f.declare("#i")
	v := f.declare(id.Name.String())
	f.loops++
	body := t.body(s.Body, n+1)
	f.loops--
	fmt.Fprintf(b, "%sjava.util.List<Object> %s = JsRt.iter(%s);\n", in, list, src)
	fmt.Fprintf(b, "%sfor (int %s = 0; %s < %s.size(); %s++) {\n", in, k, k, list, k)
	fmt.Fprintf(b, "%s    Object %s = %s.get(%s);\n%s%s}\n", in, v, list, k, body, in)
}
