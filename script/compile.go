package script

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Compiled calls. goja interprets a function's bytecode, boxes every
// value and collects the garbage; for the small functions most PTFs are
// (a filter, a counter, a message), that is most of the cost of a row.
// When eval or onTimer stays within a subset of JavaScript, ptfsh turns
// its syntax tree into a tree of Go closures at load (cfunc) and runs it
// instead of goja's bytecode (compiled.go). The values are goja's own
// (goja.Value): numbers, strings and state records are the values goja
// would hold, state encodes to the same bytes, and the arithmetic follows
// goja's rules (its integer fast paths included).
//
// A compiled call has no effect outside its instance until it returns:
// the rows it collects wait in a buffer, and every change to a state
// record is logged. Whenever it meets something outside what it knows
// to do exactly as goja does (a value of another type than the code
// expects, a missing field, an output column that does not convert, a
// limit), it bails out: the changes are undone, the rows dropped, and
// the call runs again on goja from the start, which gives goja's result,
// error, position and stack. A function that bails out often runs on
// goja from then on.
//
// What compiles (anything else keeps the function on goja, and
// Engine.Runs names the construct): parameters that are identifiers or
// destructure state entries and arguments by name; var, let and const of
// plain names; if/else, blocks, for, while and do-while loops with break
// and continue; return; number, string, boolean, null and template
// literals; names declared in the function; property reads of rows and
// state records, assignments to record fields; the arithmetic,
// comparison, equality and logical operators, ++ and --, compound
// assignments and the conditional operator; ctx.collect(value) with one
// argument.

// cexpr is how a compiled expression computes its value.
type cexpr func(f *cframe) goja.Value

// ctrl is how a compiled statement ends.
type ctrl uint8

const (
	ctrlNext ctrl = iota
	ctrlBreak
	ctrlContinue
	ctrlReturn
)

type cstmt func(f *cframe) ctrl

// cfunc is a compiled eval or onTimer.
type cfunc struct {
	nslots int
	body   []cstmt
	// How the destructured state entries and scalar arguments bind to
	// slots, in the order goja reads them.
	stateBinds []bind // state entry index -> slot
	argBinds   []bind // argument index -> slot
	// esc is what the body lets out of its state's fields, and keep its
	// assignments of [] that may leave an empty array in place
	// (compile_keep.go).
	esc  *escapes
	keep []*keepSite
	// Where the function is: its program's name and code, and its frame's
	// name in goja's stack; prog is "" when not known.
	prog, code, name string
}

type bind struct{ idx, slot int }

// cframe is the state of one compiled call.
type cframe struct {
	in    *instance
	slots []goja.Value
}

// bailout is the panic value of a compiled call that gives up.
type bailout struct {
	why string
	at  int // for an interrupt: the program offset of the loop, or -1
}

func bail(why string) { panic(bailout{why, -1}) }

// unsupported is the panic value of the compiler meeting a construct it
// does not compile.
type unsupported struct{ what string }

func refuse(format string, args ...any) { panic(unsupported{fmt.Sprintf(format, args...)}) }

// symKind is what a name in the function stands for.
type symKind uint8

const (
	symLocal symKind = iota // a variable in a slot
	symCtx                  // the ctx parameter
	symState                // the state parameter
	symRow                  // a table argument's row (the slot holds nothing)
	symConst                // a module constant (val)
)

type sym struct {
	kind  symKind
	slot  int
	arg   int  // symRow: the argument's declaration index
	cnst  bool // const: assignments are refused
	ready bool // declared and initialized (let/const before their line are not)
	val   goja.Value
}

type scope struct {
	names  map[string]*sym
	parent *scope
}

func (s *scope) lookup(name string) *sym {
	for ; s != nil; s = s.parent {
		if v, ok := s.names[name]; ok {
			return v
		}
	}
	return nil
}

type compiler struct {
	rt     *realm
	d      *decl
	fn     *cfunc
	sc     *scope
	loops  int
	timer  bool // compiling onTimer
	assign map[string]bool
	base   int // the program offset of file.Idx 0 of the parsed text; -1: unknown
	consts func() map[string]goja.Value
	// states are the destructured state names: their entries.
	states map[string]int
}

// at is the program offset of idx, or -1.
func (c *compiler) at(idx file.Idx) int {
	if c.base < 0 {
		return -1
	}
	return c.base + int(idx)
}

// compileFunc compiles fnObj (d's eval, or its onTimer when timer is set);
// reason is why it does not compile, "" when it does.
func (rt *realm) compileFunc(d *decl, fnObj goja.Value, timer bool, prog, code string, consts func() map[string]goja.Value) (cf *cfunc, reason string) {
	src, err := rt.functionSource(fnObj)
	if err != nil {
		return nil, err.Error()
	}
	lit, prefix, name, err := parseFunction(src)
	if err != nil {
		return nil, err.Error()
	}
	c := &compiler{rt: rt, d: d, fn: &cfunc{}, timer: timer, consts: consts}
	// Where the function's code is in the program: its source once, and
	// a name goja's stack would give its frame.
	if at := strings.Index(code, src); at >= 0 && strings.LastIndex(code, src) == at && name != "" {
		c.fn.prog, c.fn.code, c.fn.name = prog, code, name
		c.base = at - prefix - 1 // file.Idx is 1-based
	} else {
		c.base = -1
	}
	defer func() {
		if r := recover(); r != nil {
			u, ok := r.(unsupported)
			if !ok {
				panic(r)
			}
			cf, reason = nil, u.what
		}
	}()
	c.function(lit)
	return c.fn, ""
}

// functionSource is the source text of a function, by the built-in
// Function.prototype.toString taken before the function's code ran.
func (rt *realm) functionSource(fn goja.Value) (string, error) {
	o, ok := fn.(*goja.Object)
	if !ok || rt.js.fnToString == nil {
		return "", fmt.Errorf("not a function")
	}
	var s string
	err := rt.protect(func() {
		v, err := rt.js.fnToString(o)
		if err != nil {
			panic(err)
		}
		s = v.String()
	})
	if err != nil {
		return "", fmt.Errorf("its source cannot be read")
	}
	if strings.Contains(s, "[native code]") {
		return "", fmt.Errorf("a native or bound function")
	}
	return s, nil
}

// parseFunction parses a function's source as toString gives it: a
// function expression, an arrow function or a method. prefix is the
// length of what the parsed text has before src, and name the
// function's name, or its method's ("" when it has none).
func parseFunction(src string) (lit *ast.FunctionLiteral, prefix int, name string, err error) {
	for _, wrap := range [][2]string{{"(", ")"}, {"({", "})"}} {
		prg, err := parser.ParseFile(nil, "", wrap[0]+src+wrap[1], 0)
		if err != nil || len(prg.Body) != 1 {
			continue
		}
		es, ok := prg.Body[0].(*ast.ExpressionStatement)
		if !ok {
			continue
		}
		switch x := es.Expression.(type) {
		case *ast.FunctionLiteral:
			if x.Name != nil {
				name = x.Name.Name.String()
			}
			return x, len(wrap[0]), name, nil
		case *ast.ArrowFunctionLiteral:
			return nil, 0, "", fmt.Errorf("an arrow function")
		case *ast.ObjectLiteral:
			if len(x.Value) != 1 {
				continue
			}
			if p, ok := x.Value[0].(*ast.PropertyKeyed); ok && p.Kind == ast.PropertyKindMethod && !p.Computed {
				if fl, ok := p.Value.(*ast.FunctionLiteral); ok {
					switch k := p.Key.(type) {
					case *ast.Identifier:
						name = k.Name.String()
					case *ast.StringLiteral:
						name = k.Value.String()
					}
					return fl, len(wrap[0]), name, nil
				}
			}
			return nil, 0, "", fmt.Errorf("a getter, setter or computed method")
		}
	}
	return nil, 0, "", fmt.Errorf("its source does not parse as a function")
}

func (c *compiler) newSlot() int {
	c.fn.nslots++
	return c.fn.nslots - 1
}

func (c *compiler) push() { c.sc = &scope{names: map[string]*sym{}, parent: c.sc} }
func (c *compiler) pop()  { c.sc = c.sc.parent }

func (c *compiler) declare(name string, s *sym) {
	if _, dup := c.sc.names[name]; dup {
		refuse("the name %s declared twice", name)
	}
	c.sc.names[name] = s
}

func (c *compiler) function(fl *ast.FunctionLiteral) {
	if fl.Async || fl.Generator {
		refuse("an async or generator function")
	}
	pl := fl.ParameterList
	if pl.Rest != nil {
		refuse("a rest parameter")
	}
	if len(pl.List) > 3 {
		refuse("more than three parameters")
	}
	c.assign = map[string]bool{}
	c.states = map[string]int{}
	assignedNames(fl.Body, c.assign)
	c.push()
	for i, b := range pl.List {
		if b.Initializer != nil {
			refuse("a parameter default")
		}
		switch t := b.Target.(type) {
		case *ast.Identifier:
			name := t.Name.String()
			if c.assign[name] {
				refuse("an assignment to the parameter %s", name)
			}
			switch i {
			case 0:
				c.declare(name, &sym{kind: symCtx, ready: true})
			case 1:
				c.declare(name, &sym{kind: symState, ready: true})
			case 2:
				if c.timer {
					refuse("onTimer reading args")
				}
				refuse("args as a name (destructure the arguments: { input, ... })")
			}
		case *ast.ObjectPattern:
			if i == 0 {
				refuse("a destructured ctx")
			}
			if t.Rest != nil {
				refuse("a rest element in a parameter")
			}
			for _, p := range t.Properties {
				ps, ok := p.(*ast.PropertyShort)
				if !ok || ps.Initializer != nil {
					refuse("a parameter pattern other than { name, ... }")
				}
				name := ps.Name.Name.String()
				if c.assign[name] {
					refuse("an assignment to the parameter %s", name)
				}
				if i == 1 {
					idx := c.stateIndex(name)
					if idx < 0 {
						refuse("destructuring state entry %s, which is not declared", name)
					}
					if c.d.state[idx].Kind != ptf.ValueState {
						refuse("a %s view", kindName(c.d.state[idx].Kind))
					}
					slot := c.newSlot()
					c.fn.stateBinds = append(c.fn.stateBinds, bind{idx, slot})
					c.states[name] = idx
					c.declare(name, &sym{kind: symLocal, slot: slot, ready: true, cnst: true})
					continue
				}
				if c.timer {
					refuse("onTimer reading args")
				}
				idx := c.argIndex(name)
				if idx < 0 {
					refuse("destructuring argument %s, which is not declared", name)
				}
				if c.d.args[idx].IsTable() {
					c.declare(name, &sym{kind: symRow, arg: idx, ready: true})
					continue
				}
				slot := c.newSlot()
				c.fn.argBinds = append(c.fn.argBinds, bind{idx, slot})
				c.declare(name, &sym{kind: symLocal, slot: slot, ready: true, cnst: true})
			}
		default:
			refuse("a parameter pattern other than { name, ... }")
		}
	}
	ctxName := ""
	if len(pl.List) > 0 {
		if id, ok := pl.List[0].Target.(*ast.Identifier); ok {
			ctxName = id.Name.String()
		}
	}
	c.fn.esc = keptFields(fl, c.states, ctxName)
	if len(pl.List) > 1 {
		if _, whole := pl.List[1].Target.(*ast.Identifier); whole {
			c.fn.esc.all = true // state.entry.field: not followed
		}
	}
	c.hoistVars(fl.Body.List)
	c.fn.body = c.block(fl.Body.List)
	c.pop()
}

func (c *compiler) stateIndex(name string) int {
	for i, s := range c.d.state {
		if s.Name == name {
			return i
		}
	}
	return -1
}

func (c *compiler) argIndex(name string) int {
	for i, a := range c.d.args {
		if a.Name == name {
			return i
		}
	}
	return -1
}

// assignedNames collects the names a body assigns (=, op=, ++, --).
func assignedNames(n ast.Node, out map[string]bool) {
	var walk func(n ast.Node)
	target := func(e ast.Expression) {
		if id, ok := e.(*ast.Identifier); ok {
			out[id.Name.String()] = true
		}
	}
	walk = func(n ast.Node) {
		switch x := n.(type) {
		case *ast.AssignExpression:
			target(x.Left)
			walk(x.Left)
			walk(x.Right)
		case *ast.UnaryExpression:
			if x.Operator == token.INCREMENT || x.Operator == token.DECREMENT {
				target(x.Operand)
			}
			walk(x.Operand)
		default:
			for _, ch := range children(n) {
				walk(ch)
			}
		}
	}
	walk(n)
}

// children lists the nodes under n that assignedNames looks into; the
// compiler refuses the rest anyway.
func children(n ast.Node) []ast.Node {
	var out []ast.Node
	add := func(ns ...ast.Node) {
		for _, x := range ns {
			if x != nil && !reflect.ValueOf(x).IsNil() {
				out = append(out, x)
			}
		}
	}
	switch x := n.(type) {
	case *ast.BlockStatement:
		for _, s := range x.List {
			add(s)
		}
	case *ast.ExpressionStatement:
		add(x.Expression)
	case *ast.IfStatement:
		add(x.Test, x.Consequent, x.Alternate)
	case *ast.ForStatement:
		add(x.Initializer, x.Test, x.Update, x.Body)
	case *ast.ForLoopInitializerExpression:
		add(x.Expression)
	case *ast.ForLoopInitializerVarDeclList:
		for _, b := range x.List {
			add(b.Initializer)
		}
	case *ast.ForLoopInitializerLexicalDecl:
		for _, b := range x.LexicalDeclaration.List {
			add(b.Initializer)
		}
	case *ast.WhileStatement:
		add(x.Test, x.Body)
	case *ast.DoWhileStatement:
		add(x.Test, x.Body)
	case *ast.ReturnStatement:
		add(x.Argument)
	case *ast.VariableStatement:
		for _, b := range x.List {
			add(b.Initializer)
		}
	case *ast.LexicalDeclaration:
		for _, b := range x.List {
			add(b.Initializer)
		}
	case *ast.BinaryExpression:
		add(x.Left, x.Right)
	case *ast.ConditionalExpression:
		add(x.Test, x.Consequent, x.Alternate)
	case *ast.CallExpression:
		add(x.Callee)
		for _, a := range x.ArgumentList {
			add(a)
		}
	case *ast.DotExpression:
		add(x.Left)
	case *ast.TemplateLiteral:
		for _, e := range x.Expressions {
			add(e)
		}
	case *ast.ObjectLiteral:
		for _, p := range x.Value {
			if pk, ok := p.(*ast.PropertyKeyed); ok {
				add(pk.Value)
			}
		}
	case *ast.SequenceExpression:
		for _, e := range x.Sequence {
			add(e)
		}
	}
	return out
}

// hoistVars declares the var names of a function body (undefined until
// assigned), as JavaScript hoists them.
func (c *compiler) hoistVars(list []ast.Statement) {
	var walk func(s ast.Statement)
	decl := func(bs []*ast.Binding) {
		for _, b := range bs {
			id, ok := b.Target.(*ast.Identifier)
			if !ok {
				refuse("a destructuring declaration")
			}
			name := id.Name.String()
			if s, ok := c.sc.names[name]; ok {
				if s.kind != symLocal || s.cnst {
					refuse("var %s redeclaring a parameter", name)
				}
				continue
			}
			c.sc.names[name] = &sym{kind: symLocal, slot: c.newSlot(), ready: true}
		}
	}
	walk = func(s ast.Statement) {
		switch x := s.(type) {
		case *ast.VariableStatement:
			decl(x.List)
		case *ast.BlockStatement:
			for _, s := range x.List {
				walk(s)
			}
		case *ast.IfStatement:
			walk(x.Consequent)
			if x.Alternate != nil {
				walk(x.Alternate)
			}
		case *ast.ForStatement:
			if v, ok := x.Initializer.(*ast.ForLoopInitializerVarDeclList); ok {
				decl(v.List)
			}
			walk(x.Body)
		case *ast.WhileStatement:
			walk(x.Body)
		case *ast.DoWhileStatement:
			walk(x.Body)
		}
	}
	for _, s := range list {
		walk(s)
	}
}

// block compiles a list of statements in a scope of its own, with its
// let and const names known (not ready) from the start.
func (c *compiler) block(list []ast.Statement) []cstmt {
	c.push()
	defer c.pop()
	for _, s := range list {
		if ld, ok := s.(*ast.LexicalDeclaration); ok {
			c.declareLexical(ld)
		}
	}
	out := make([]cstmt, 0, len(list))
	for _, s := range list {
		if cs := c.stmt(s); cs != nil {
			out = append(out, cs)
		}
	}
	return out
}

// declareLexical declares the names of a let or const declaration in the
// current scope, each in a slot of its own.
func (c *compiler) declareLexical(ld *ast.LexicalDeclaration) {
	for _, b := range ld.List {
		id, ok := b.Target.(*ast.Identifier)
		if !ok {
			refuse("a destructuring declaration")
		}
		name := id.Name.String()
		cnst := ld.Token == token.CONST
		if cnst && c.assign[name] {
			refuse("an assignment to the constant %s", name)
		}
		c.declare(name, &sym{kind: symLocal, slot: c.newSlot(), cnst: cnst})
	}
}

func runBlock(f *cframe, body []cstmt) ctrl {
	for _, s := range body {
		if r := s(f); r != ctrlNext {
			return r
		}
	}
	return ctrlNext
}

func (c *compiler) stmt(s ast.Statement) cstmt {
	switch x := s.(type) {
	case *ast.EmptyStatement:
		return nil
	case *ast.ExpressionStatement:
		e := c.expr(x.Expression)
		return func(f *cframe) ctrl { e(f); return ctrlNext }
	case *ast.BlockStatement:
		body := c.block(x.List)
		return func(f *cframe) ctrl { return runBlock(f, body) }
	case *ast.VariableStatement:
		return c.bindings(x.List, false)
	case *ast.LexicalDeclaration:
		return c.bindings(x.List, true)
	case *ast.IfStatement:
		test := c.expr(x.Test)
		then := c.sub(x.Consequent)
		var els []cstmt
		if x.Alternate != nil {
			els = c.sub(x.Alternate)
		}
		return func(f *cframe) ctrl {
			if test(f).ToBoolean() {
				return runBlock(f, then)
			}
			return runBlock(f, els)
		}
	case *ast.ReturnStatement:
		if x.Argument == nil {
			return func(*cframe) ctrl { return ctrlReturn }
		}
		e := c.expr(x.Argument)
		return func(f *cframe) ctrl {
			if _, isObj := e(f).(*goja.Object); isObj {
				bail("returns an object") // a promise is settled() by goja's path
			}
			return ctrlReturn
		}
	case *ast.BranchStatement:
		if x.Label != nil {
			refuse("a labelled break or continue")
		}
		if c.loops == 0 {
			refuse("break outside a loop (a switch)")
		}
		if x.Token == token.BREAK {
			return func(*cframe) ctrl { return ctrlBreak }
		}
		return func(*cframe) ctrl { return ctrlContinue }
	case *ast.WhileStatement:
		at := c.at(x.While)
		test := c.expr(x.Test)
		c.loops++
		body := c.sub(x.Body)
		c.loops--
		return func(f *cframe) ctrl {
			for test(f).ToBoolean() {
				f.in.e.checkStop(at)
				switch runBlock(f, body) {
				case ctrlBreak:
					return ctrlNext
				case ctrlReturn:
					return ctrlReturn
				}
			}
			return ctrlNext
		}
	case *ast.DoWhileStatement:
		at := c.at(x.Do)
		c.loops++
		body := c.sub(x.Body)
		c.loops--
		test := c.expr(x.Test)
		return func(f *cframe) ctrl {
			for {
				f.in.e.checkStop(at)
				switch runBlock(f, body) {
				case ctrlBreak:
					return ctrlNext
				case ctrlReturn:
					return ctrlReturn
				}
				if !test(f).ToBoolean() {
					return ctrlNext
				}
			}
		}
	case *ast.ForStatement:
		return c.forStmt(x)
	}
	refuse("%s", nodeName(s))
	return nil
}

// sub compiles the body of an if or a loop: a block, or one statement.
func (c *compiler) sub(s ast.Statement) []cstmt {
	if b, ok := s.(*ast.BlockStatement); ok {
		return c.block(b.List)
	}
	if _, ok := s.(*ast.LexicalDeclaration); ok {
		refuse("a declaration as the body of an if or a loop")
	}
	cs := c.stmt(s)
	if cs == nil {
		return nil
	}
	return []cstmt{cs}
}

func (c *compiler) forStmt(x *ast.ForStatement) cstmt {
	at := c.at(x.For)
	c.push()
	defer c.pop()
	var init cstmt
	switch in := x.Initializer.(type) {
	case nil:
	case *ast.ForLoopInitializerExpression:
		e := c.expr(in.Expression)
		init = func(f *cframe) ctrl { e(f); return ctrlNext }
	case *ast.ForLoopInitializerVarDeclList:
		init = c.bindings(in.List, false)
	case *ast.ForLoopInitializerLexicalDecl:
		ld := &in.LexicalDeclaration
		c.declareLexical(ld)
		init = c.bindings(ld.List, true)
	default:
		refuse("this for loop")
	}
	var test, update cexpr
	if x.Test != nil {
		test = c.expr(x.Test)
	}
	if x.Update != nil {
		update = c.expr(x.Update)
	}
	c.loops++
	body := c.sub(x.Body)
	c.loops--
	return func(f *cframe) ctrl {
		if init != nil {
			init(f)
		}
		for {
			if test != nil && !test(f).ToBoolean() {
				return ctrlNext
			}
			f.in.e.checkStop(at)
			switch runBlock(f, body) {
			case ctrlBreak:
				return ctrlNext
			case ctrlReturn:
				return ctrlReturn
			}
			if update != nil {
				update(f)
			}
		}
	}
}

// bindings compiles var (lexical false) or let/const declarations.
func (c *compiler) bindings(list []*ast.Binding, lexical bool) cstmt {
	type one struct {
		slot int
		init cexpr
	}
	var all []one
	for _, b := range list {
		id, ok := b.Target.(*ast.Identifier)
		if !ok {
			refuse("a destructuring declaration")
		}
		s := c.sc.lookup(id.Name.String())
		if s == nil || s.kind != symLocal {
			refuse("the declaration of %s", id.Name)
		}
		var init cexpr
		if b.Initializer != nil {
			init = c.expr(b.Initializer)
		} else if !lexical {
			s.ready = true
			continue // var x; leaves x as it is
		}
		s.ready = true
		all = append(all, one{s.slot, init})
	}
	return func(f *cframe) ctrl {
		for _, o := range all {
			if o.init == nil {
				f.slots[o.slot] = goja.Undefined()
			} else {
				f.slots[o.slot] = o.init(f)
			}
		}
		return ctrlNext
	}
}

// constructs names the constructs that do not compile, as the reason
// says them.
var constructs = map[string]string{
	"ThisExpression": "this", "ArrowFunctionLiteral": "an arrow function", "FunctionLiteral": "a function expression",
	"ArrayLiteral": "an array literal", "ObjectLiteral": "an object literal", "TryStatement": "try",
	"SwitchStatement": "switch", "ForOfStatement": "for..of", "ForInStatement": "for..in", "ThrowStatement": "throw",
	"NewExpression": "new", "BracketExpression": "a computed member (x[i])", "RegExpLiteral": "a regular expression",
	"FunctionDeclaration": "a nested function", "ClassDeclaration": "a class", "ClassLiteral": "a class",
	"AwaitExpression": "await", "YieldExpression": "yield", "LabelledStatement": "a label", "WithStatement": "with",
	"OptionalChain": "optional chaining (?.)", "SpreadElement": "a spread (...)", "TemplateLiteral": "a tagged template",
}

func nodeName(n ast.Node) string {
	t := reflect.TypeOf(n)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := constructs[t.Name()]; ok {
		return s
	}
	return t.Name()
}

// checkStop bails a compiled call out when it has been interrupted (the
// eval timeout, the memory guard, a cancellation): goja then runs it and
// stops it with the error goja's path gives.
func (e *Engine) checkStop(at int) {
	if e.stopping.Load() {
		panic(bailout{"interrupted", at})
	}
}

// compileDecl compiles d's eval and onTimer where they compile.
// prog and code are the program's name and code, to position what a
// compiled call reports itself (compiledState.interrupted).
func (rt *realm) compileDecl(d *decl, prog, code string) {
	if d.scalar {
		d.cEvalWhy = "a scalar function"
		return
	}
	for _, sd := range d.state {
		if sd.Kind == ptf.ValueState && sd.Type != nil && sd.Type.Kind == types.KindRow {
			// Checked after each call as Flink's conversion would
			// (typedstate.go), on goja's path.
			d.cEvalWhy, d.cTimerWhy = "state entry "+sd.Name+" typed as a ROW", "state entry "+sd.Name+" typed as a ROW"
			return
		}
	}
	var consts map[string]goja.Value
	parsed := false
	constsOf := func() map[string]goja.Value {
		if !parsed {
			consts, parsed = moduleConsts(rt.vm, code), true
		}
		return consts
	}
	d.cEval, d.cEvalWhy = rt.compileFunc(d, d.evalV, false, prog, code, constsOf)
	if d.onTimerV != nil {
		d.cTimer, d.cTimerWhy = rt.compileFunc(d, d.onTimerV, true, prog, code, constsOf)
	}
	// Compiled code reads and writes plain objects of state, and
	// collect converts arrays, only when no code of the function's can
	// have put an accessor where they read: the module left
	// Object.prototype as it was, and both eval and onTimer compile (so
	// that what runs on goja after load is a replay of compiled code).
	d.objectsOK = d.cEval != nil && (d.onTimerV == nil || d.cTimer != nil) && rt.objectProtoIntact()
	if d.objectsOK {
		keepEmptyArrays(d.cEval, d.cTimer)
	}
}

// Runs says how a loaded function's calls run: "compiled", or "goja"
// with the reason ("goja (a call of Math.max)"), for eval and, when the
// function has one, onTimer. ok is false for a function this Engine did
// not load.
func (e *Engine) Runs(def *ptf.FuncDef) (string, bool) {
	d, ok := e.decls[def]
	if !ok {
		return "", false
	}
	how := func(c *cfunc, why string) string {
		switch {
		case e.noCompile:
			return "goja ('ptf.compile' is off)"
		case c != nil:
			return "compiled"
		}
		return "goja (" + why + ")"
	}
	s := how(d.cEval, d.cEvalWhy)
	if d.onTimer != nil {
		t := how(d.cTimer, d.cTimerWhy)
		if t != s {
			return "eval " + s + ", onTimer " + t, true
		}
	}
	return s, true
}
