package script

import (
	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
	"github.com/ptfsh/ptfsh/runtime/ptf"
)

// The compiler's expressions (compile.go has the rest).

func (c *compiler) expr(x ast.Expression) cexpr {
	vm := c.rt.vm
	switch x := x.(type) {
	case *ast.NumberLiteral:
		v := vm.ToValue(x.Value)
		return func(*cframe) goja.Value { return v }
	case *ast.StringLiteral:
		s := x.Value.String()
		if !validText(s) {
			refuse("a string literal with U+FFFD or lone surrogates")
		}
		v := vm.ToValue(s)
		return func(*cframe) goja.Value { return v }
	case *ast.BooleanLiteral:
		v := vm.ToValue(x.Value)
		return func(*cframe) goja.Value { return v }
	case *ast.NullLiteral:
		return func(*cframe) goja.Value { return goja.Null() }
	case *ast.TemplateLiteral:
		return c.template(x)
	case *ast.Identifier:
		s := c.ident(x)
		if s.kind == symConst {
			v := s.val
			return func(*cframe) goja.Value { return v }
		}
		if s.kind != symLocal {
			refuse("%s used as a value", x.Name)
		}
		slot := s.slot
		return func(f *cframe) goja.Value { return f.slots[slot] }
	case *ast.DotExpression:
		return c.dot(x)
	case *ast.AssignExpression:
		return c.assignExpr(x)
	case *ast.UnaryExpression:
		return c.unary(x)
	case *ast.BinaryExpression:
		return c.binary(x)
	case *ast.ConditionalExpression:
		test, a, b := c.expr(x.Test), c.expr(x.Consequent), c.expr(x.Alternate)
		return func(f *cframe) goja.Value {
			if test(f).ToBoolean() {
				return a(f)
			}
			return b(f)
		}
	case *ast.CallExpression:
		return c.call(x)
	case *ast.ArrayLiteral:
		es := make([]cexpr, len(x.Value))
		for i, e := range x.Value {
			if e == nil {
				refuse("an array literal with holes")
			}
			if _, spread := e.(*ast.SpreadElement); spread {
				refuse("a spread (...)")
			}
			es[i] = c.expr(e)
		}
		return func(f *cframe) goja.Value {
			var buf [8]any
			vals := buf[:0]
			for _, e := range es {
				vals = append(vals, e(f))
			}
			return f.in.e.vm.NewArray(vals...)
		}
	case *ast.SequenceExpression:
		es := make([]cexpr, len(x.Sequence))
		for i, e := range x.Sequence {
			es[i] = c.expr(e)
		}
		return func(f *cframe) goja.Value {
			var v goja.Value
			for _, e := range es {
				v = e(f)
			}
			return v
		}
	}
	refuse("%s", nodeName(x))
	return nil
}

func (c *compiler) ident(x *ast.Identifier) *sym {
	s := c.sc.lookup(x.Name.String())
	if s == nil {
		if v, ok := c.consts()[x.Name.String()]; ok {
			return &sym{kind: symConst, val: v, ready: true, cnst: true}
		}
		refuse("the name %s (not declared in the function or a module constant)", x.Name)
	}
	if !s.ready {
		refuse("%s used before its declaration", x.Name)
	}
	return s
}

func (c *compiler) template(x *ast.TemplateLiteral) cexpr {
	if x.Tag != nil {
		refuse("a tagged template")
	}
	parts := make([]string, len(x.Elements))
	for i, el := range x.Elements {
		if !el.Valid {
			refuse("an invalid template escape")
		}
		s := el.Parsed.String()
		if !validText(s) {
			refuse("a template with U+FFFD or lone surrogates")
		}
		parts[i] = s
	}
	es := make([]cexpr, len(x.Expressions))
	for i, e := range x.Expressions {
		es[i] = c.expr(e)
	}
	return func(f *cframe) goja.Value {
		var buf [128]byte
		b := buf[:0]
		for i, p := range parts {
			b = append(b, p...)
			if i < len(es) {
				b = append(b, primString(es[i](f))...)
			}
		}
		return f.in.e.strJS(string(b))
	}
}

// dot compiles x.name: a row's column or a state record's field.
func (c *compiler) dot(x *ast.DotExpression) cexpr {
	name := x.Identifier.Name.String()
	if id, ok := x.Left.(*ast.Identifier); ok {
		s := c.ident(id)
		switch s.kind {
		case symRow:
			arg := s.arg
			site := &colSite{}
			return func(f *cframe) goja.Value { return f.in.rowField(arg, name, site) }
		case symState:
			idx := c.stateIndex(name)
			if idx < 0 || c.d.state[idx].Kind != ptf.ValueState {
				refuse("state.%s, which is not a value state entry", name)
			}
			return func(f *cframe) goja.Value { return f.in.cstate(idx) }
		case symCtx:
			refuse("ctx.%s used as a value", name)
		}
	}
	obj := c.expr(x.Left)
	if name == "length" {
		return func(f *cframe) goja.Value { return f.in.lengthOf(obj(f)) }
	}
	if name == "__proto__" {
		refuse("__proto__")
	}
	name = fieldName(name)
	return func(f *cframe) goja.Value { return f.in.getField(obj(f), name) }
}

// recordOf returns the state record v is, or nil.
func (in *instance) recordOf(o *goja.Object) *record {
	if o == in.c.lastObj {
		return in.c.lastRec // the record read last, as most reads are
	}
	if o.ExportType() == typeRecord {
		r := o.Export().(*record)
		in.c.lastObj, in.c.lastRec = o, r
		return r
	}
	return nil
}

// plainObject reports whether o is a plain object the compiled code may
// read and write by goja's own Get and Set: one whose properties are own
// data properties (objects of state, which ptfsh defines as a literal
// does, changed only by compiled code or its goja replay) over an
// Object.prototype that the module left as it was, so that neither runs
// the function's code (decl.objectsOK).
func (in *instance) plainObject(o *goja.Object) bool {
	return in.d.objectsOK && o.ClassName() == "Object" && o.ExportType() == typeObject
}

// getField is v.name of a state record or a plain object.
func (in *instance) getField(v goja.Value, name string) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		bail("a property of a primitive")
	}
	if r := in.recordOf(o); r != nil {
		i := r.index(name)
		if i < 0 {
			bail("no field " + name)
		}
		return r.vals[i]
	}
	if !in.plainObject(o) {
		bail("a property of another object than state")
	}
	x := o.Get(name)
	if x == nil {
		bail("no property " + name)
	}
	return x
}

// setFieldOf is v.name = x of an existing field of a state record or a
// plain object, logged for a bail-out.
func (in *instance) setFieldOf(v goja.Value, name string, x goja.Value) {
	o, ok := v.(*goja.Object)
	if !ok {
		bail("a property of a primitive")
	}
	if r := in.recordOf(o); r != nil {
		i := r.index(name)
		if i < 0 {
			bail("no field " + name)
		}
		in.setField(r, i, x)
		return
	}
	if !in.plainObject(o) || in.e.js.objectProtoNames[name] {
		bail("a property of another object than state")
	}
	old := o.Get(name)
	if old == nil {
		bail("a new property " + name)
	}
	in.c.undo = append(in.c.undo, undoRec{obj: o, name: name, old: old})
	if err := o.Set(name, x); err != nil {
		bail("set: " + err.Error())
	}
}

// lvalue compiles an assignment target: get and set of the same place.
func (c *compiler) lvalue(x ast.Expression) (get func(f *cframe) (goja.Value, func(goja.Value))) {
	switch x := x.(type) {
	case *ast.Identifier:
		s := c.ident(x)
		if s.kind != symLocal {
			refuse("an assignment to %s", x.Name)
		}
		if s.cnst {
			refuse("an assignment to the constant %s", x.Name)
		}
		slot := s.slot
		return func(f *cframe) (goja.Value, func(goja.Value)) {
			return f.slots[slot], func(v goja.Value) { f.slots[slot] = v }
		}
	case *ast.DotExpression:
		if id, ok := x.Left.(*ast.Identifier); ok {
			if s := c.ident(id); s.kind != symLocal {
				refuse("an assignment to %s.%s", id.Name, x.Identifier.Name)
			}
		}
		obj := c.expr(x.Left)
		name := fieldName(x.Identifier.Name.String())
		if name == "__proto__" {
			refuse("__proto__")
		}
		return func(f *cframe) (goja.Value, func(goja.Value)) {
			o := obj(f)
			return f.in.getField(o, name), func(v goja.Value) { f.in.setFieldOf(o, name, v) }
		}
	}
	refuse("an assignment to %s", nodeName(x))
	return nil
}

func (c *compiler) assignExpr(x *ast.AssignExpression) cexpr {
	// Simple assignment to a local: no read first.
	if id, ok := x.Left.(*ast.Identifier); ok && x.Operator == token.ASSIGN {
		c.lvalue(id) // checks
		slot := c.ident(id).slot
		rhs := c.expr(x.Right)
		return func(f *cframe) goja.Value {
			v := rhs(f)
			f.slots[slot] = v
			return v
		}
	}
	if dx, ok := x.Left.(*ast.DotExpression); ok && x.Operator == token.ASSIGN {
		c.lvalue(dx) // checks
		obj := c.expr(dx.Left)
		name := fieldName(dx.Identifier.Name.String())
		rhs := c.expr(x.Right)
		if site := c.keepSite(dx, x.Right); site != nil {
			return func(f *cframe) goja.Value {
				o := obj(f)
				if site.ok {
					if old := f.in.getField(o, name); f.in.keepArray(old) {
						return old // compile_keep.go
					}
				}
				v := rhs(f)
				f.in.setFieldOf(o, name, v)
				return v
			}
		}
		return func(f *cframe) goja.Value {
			o := obj(f)
			v := rhs(f)
			f.in.setFieldOf(o, name, v)
			return v
		}
	}
	op := binOp(x.Operator)
	if op == nil {
		refuse("the assignment operator %s", x.Operator)
	}
	lv := c.lvalue(x.Left)
	rhs := c.expr(x.Right)
	return func(f *cframe) goja.Value {
		old, set := lv(f)
		v := op(f.in.e, old, rhs(f))
		set(v)
		return v
	}
}

func (c *compiler) unary(x *ast.UnaryExpression) cexpr {
	switch x.Operator {
	case token.INCREMENT, token.DECREMENT:
		lv := c.lvalue(x.Operand)
		d := int64(1)
		if x.Operator == token.DECREMENT {
			d = -1
		}
		post := x.Postfix
		return func(f *cframe) goja.Value {
			old, set := lv(f)
			v := incNum(f.in.e, old, d)
			set(v)
			if post {
				return old
			}
			return v
		}
	case token.VOID:
		e := c.expr(x.Operand)
		return func(f *cframe) goja.Value { e(f); return goja.Undefined() }
	case token.NOT:
		e := c.expr(x.Operand)
		return func(f *cframe) goja.Value { return boolJS(!e(f).ToBoolean()) }
	case token.MINUS:
		e := c.expr(x.Operand)
		return func(f *cframe) goja.Value { return negNum(f.in.e, e(f)) }
	case token.PLUS:
		e := c.expr(x.Operand)
		return func(f *cframe) goja.Value {
			v := e(f)
			if !goja.IsNumber(v) {
				bail("unary + of a non-number")
			}
			return v
		}
	}
	refuse("the operator %s", x.Operator)
	return nil
}

func (c *compiler) binary(x *ast.BinaryExpression) cexpr {
	if x.Operator == token.PLUS {
		return c.plusChain(x)
	}
	a, b := c.expr(x.Left), c.expr(x.Right)
	switch x.Operator {
	case token.LOGICAL_AND:
		return func(f *cframe) goja.Value {
			if v := a(f); !v.ToBoolean() {
				return v
			}
			return b(f)
		}
	case token.LOGICAL_OR:
		return func(f *cframe) goja.Value {
			if v := a(f); v.ToBoolean() {
				return v
			}
			return b(f)
		}
	case token.STRICT_EQUAL:
		return func(f *cframe) goja.Value { return boolJS(a(f).StrictEquals(b(f))) }
	case token.STRICT_NOT_EQUAL:
		return func(f *cframe) goja.Value { return boolJS(!a(f).StrictEquals(b(f))) }
	case token.EQUAL:
		return func(f *cframe) goja.Value { return boolJS(looseEq(a(f), b(f))) }
	case token.NOT_EQUAL:
		return func(f *cframe) goja.Value { return boolJS(!looseEq(a(f), b(f))) }
	case token.LESS:
		return func(f *cframe) goja.Value { return boolJS(less(a(f), b(f), false)) }
	case token.GREATER:
		return func(f *cframe) goja.Value { l := a(f); return boolJS(less(b(f), l, false)) }
	case token.LESS_OR_EQUAL:
		return func(f *cframe) goja.Value { l := a(f); return boolJS(less(b(f), l, true)) }
	case token.GREATER_OR_EQUAL:
		return func(f *cframe) goja.Value { return boolJS(less(a(f), b(f), true)) }
	}
	op := binOp(x.Operator)
	if op == nil {
		refuse("the operator %s", x.Operator)
	}
	return func(f *cframe) goja.Value { l := a(f); return op(f.in.e, l, b(f)) }
}

// call compiles ctx.collect(value), the one call that compiles.
func (c *compiler) call(x *ast.CallExpression) cexpr {
	dx, ok := x.Callee.(*ast.DotExpression)
	if !ok {
		if id, isID := x.Callee.(*ast.Identifier); isID {
			refuse("a call of %s", id.Name)
		}
		refuse("a call of %s", nodeName(x.Callee))
	}
	if dx.Identifier.Name == "push" && len(x.ArgumentList) == 1 {
		if id, isID := dx.Left.(*ast.Identifier); !isID || c.ident(id).kind == symLocal {
			arr, arg := c.expr(dx.Left), c.expr(x.ArgumentList[0])
			return func(f *cframe) goja.Value {
				a := arr(f)
				return f.in.push(a, arg(f))
			}
		}
	}
	id, ok := dx.Left.(*ast.Identifier)
	if !ok {
		if inner, isCall := dx.Left.(*ast.CallExpression); isCall {
			if idx, isDot := inner.Callee.(*ast.DotExpression); isDot {
				if cid, isID := idx.Left.(*ast.Identifier); isID && c.ident(cid).kind == symCtx {
					refuse("ctx.%s", idx.Identifier.Name)
				}
			}
		}
		refuse("a call of a method (%s)", dx.Identifier.Name)
	}
	if c.ident(id).kind != symCtx {
		refuse("a call of a method (%s)", dx.Identifier.Name)
	}
	if m := dx.Identifier.Name.String(); m != "collect" {
		refuse("ctx.%s", m)
	}
	if len(x.ArgumentList) != 1 {
		refuse("ctx.collect with a row kind")
	}
	if ol, ok := x.ArgumentList[0].(*ast.ObjectLiteral); ok {
		keys := make([]string, len(ol.Value))
		vals := make([]cexpr, len(ol.Value))
		seen := map[string]bool{}
		for i, p := range ol.Value {
			var k string
			switch p := p.(type) {
			case *ast.PropertyKeyed:
				if p.Computed || p.Kind != ast.PropertyKindValue {
					refuse("a computed key, getter or method in collect's object")
				}
				switch kx := p.Key.(type) {
				case *ast.StringLiteral:
					k = kx.Value.String()
				case *ast.Identifier:
					k = kx.Name.String()
				default:
					refuse("a number key in collect's object")
				}
				vals[i] = c.expr(p.Value)
			case *ast.PropertyShort:
				if p.Initializer != nil {
					refuse("a shorthand with a default")
				}
				k = p.Name.Name.String()
				vals[i] = c.expr(&p.Name)
			default:
				refuse("a spread in collect's object")
			}
			if k == "__proto__" || seen[k] || isIndexKey(k) {
				refuse("the key %q in collect's object", k)
			}
			seen[k] = true
			keys[i] = k
		}
		site := &collectSite{keys: keys}
		return func(f *cframe) goja.Value {
			f.in.collectFields(site, vals, f)
			return goja.Undefined()
		}
	}
	if _, isArr := x.ArgumentList[0].(*ast.ArrayLiteral); isArr {
		refuse("ctx.collect of an array")
	}
	arg := c.expr(x.ArgumentList[0])
	return func(f *cframe) goja.Value {
		f.in.collectValue(arg(f))
		return goja.Undefined()
	}
}

// plusChain compiles a + b + c ...: left to right, each + as goja's, and
// once the running value is a string, the rest appended to one buffer
// (string + primitive is their texts joined) instead of a string made at
// every step.
func (c *compiler) plusChain(x *ast.BinaryExpression) cexpr {
	var ops []ast.Expression
	var walk func(e ast.Expression)
	walk = func(e ast.Expression) {
		if b, ok := e.(*ast.BinaryExpression); ok && b.Operator == token.PLUS {
			walk(b.Left)
			ops = append(ops, b.Right)
			return
		}
		ops = append(ops, e)
	}
	walk(x)
	es := make([]cexpr, len(ops))
	for i, o := range ops {
		es[i] = c.expr(o)
	}
	return func(f *cframe) goja.Value {
		e := f.in.e
		acc := es[0](f)
		var buf [128]byte
		var sb []byte
		inStr := false
		for _, op := range es[1:] {
			v := op(f)
			if inStr {
				sb = append(sb, primString(v)...)
				continue
			}
			if (goja.IsString(acc) || goja.IsString(v)) && isPrim(acc) && isPrim(v) {
				sb = append(append(buf[:0], acc.String()...), v.String()...)
				inStr = true
				continue
			}
			acc = addJS(e, acc, v)
		}
		if inStr {
			return e.strJS(string(sb))
		}
		return acc
	}
}
