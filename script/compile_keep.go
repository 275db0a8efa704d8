package script

import (
	"strconv"
	"unsafe"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// Keeping an emptied array of state.
//
// A function that resets a buffer of its state on most rows
// (`streak.delays = []` in DelayStreak, on every departure on time) makes
// a goja array, with its property map, each time. When the array the
// field holds is already empty and no reference to it can exist outside
// the field, putting a new empty array there changes nothing the code
// can observe, and the compiled assignment leaves the old one in place.
// For the same reason an array that is not empty (a short one) is emptied
// in place, its storage kept for the pushes that follow, instead of
// being replaced by a new one.
//
// No reference can exist outside the field when neither eval nor onTimer
// lets the field's value out. keptFields finds that from the source: every
// use of S.f, S a destructured state entry, must be one of
//
//   - S.f = e, as a statement of its own (the assignment's value unused),
//     e an array literal or another literal (a value no one else holds);
//   - S.f.length, read;
//   - S.f.push(e) (e is a use of its own);
//   - a property value of the object literal given to ctx.collect, which
//     converts it to the output row at once;
//
// and S itself is used only as the object of S.f. Any other use (a local
// that takes S.f, S.g = S.f, an identity comparison, a template, a name
// that shadows S, a construct the walk does not know) lets the field's
// value out, or every field's. The arrays of a state value are its own:
// a default is made anew for each key, and a value read from the store
// is decoded anew.

// fieldKey is a field of a value state entry.
type fieldKey struct {
	state int
	name  string
}

// keepSite is an assignment S.f = [] compiled to leave an empty array in
// place; ok is set once both eval and onTimer are analysed (compileDecl).
type keepSite struct {
	key fieldKey
	ok  bool
}

// escapes is what a function body lets out of its state's fields.
type escapes struct {
	states map[string]int // the destructured state names: entry index
	ctx    string         // the ctx parameter's name
	fields map[fieldKey]bool
	all    bool // a use the walk does not follow: every field
}

// keptFields analyses the body of fl; states maps the destructured state
// names to their entries, ctx is the name of the first parameter ("" if
// none).
func keptFields(fl *ast.FunctionLiteral, states map[string]int, ctx string) *escapes {
	e := &escapes{states: states, ctx: ctx, fields: map[fieldKey]bool{}}
	if _, shadow := states[ctx]; shadow {
		e.all = true
	}
	e.walk(fl.Body, nil)
	return e
}

func (e *escapes) walk(n ast.Node, path []ast.Node) {
	if e.all || n == nil {
		return
	}
	path = append(path, n)
	switch x := n.(type) {
	case *ast.BlockStatement:
		for _, s := range x.List {
			e.walk(s, path)
		}
	case *ast.EmptyStatement, *ast.BranchStatement, *ast.NumberLiteral, *ast.StringLiteral,
		*ast.BooleanLiteral, *ast.NullLiteral:
	case *ast.ExpressionStatement:
		e.walk(x.Expression, path)
	case *ast.IfStatement:
		e.walk(x.Test, path)
		e.walk(x.Consequent, path)
		e.walk(x.Alternate, path)
	case *ast.ReturnStatement:
		e.walk(x.Argument, path)
	case *ast.WhileStatement:
		e.walk(x.Test, path)
		e.walk(x.Body, path)
	case *ast.DoWhileStatement:
		e.walk(x.Test, path)
		e.walk(x.Body, path)
	case *ast.ForStatement:
		e.walk(x.Initializer, path)
		e.walk(x.Test, path)
		e.walk(x.Update, path)
		e.walk(x.Body, path)
	case *ast.ForLoopInitializerExpression:
		e.walk(x.Expression, path)
	case *ast.ForLoopInitializerVarDeclList:
		e.bindings(x.List, path)
	case *ast.ForLoopInitializerLexicalDecl:
		e.bindings(x.LexicalDeclaration.List, path)
	case *ast.VariableStatement:
		e.bindings(x.List, path)
	case *ast.LexicalDeclaration:
		e.bindings(x.List, path)
	case *ast.Identifier:
		if _, ok := e.states[x.Name.String()]; ok {
			e.all = true // the state object itself, not as S.f
		}
	case *ast.DotExpression:
		if id, ok := x.Left.(*ast.Identifier); ok {
			if si, ok := e.states[id.Name.String()]; ok {
				if !keptUse(path, e.ctx) {
					e.fields[fieldKey{si, x.Identifier.Name.String()}] = true
				}
				return
			}
		}
		e.walk(x.Left, path)
	case *ast.AssignExpression:
		e.walk(x.Left, path)
		e.walk(x.Right, path)
	case *ast.UnaryExpression:
		e.walk(x.Operand, path)
	case *ast.BinaryExpression:
		e.walk(x.Left, path)
		e.walk(x.Right, path)
	case *ast.ConditionalExpression:
		e.walk(x.Test, path)
		e.walk(x.Consequent, path)
		e.walk(x.Alternate, path)
	case *ast.CallExpression:
		e.walk(x.Callee, path)
		for _, a := range x.ArgumentList {
			e.walk(a, path)
		}
	case *ast.ArrayLiteral:
		for _, v := range x.Value {
			e.walk(v, path)
		}
	case *ast.ObjectLiteral:
		for _, p := range x.Value {
			e.walk(p, path)
		}
	case *ast.PropertyKeyed:
		if x.Computed {
			e.walk(x.Key, path)
		}
		e.walk(x.Value, path)
	case *ast.PropertyShort:
		e.walk(&x.Name, path)
		e.walk(x.Initializer, path)
	case *ast.TemplateLiteral:
		for _, v := range x.Expressions {
			e.walk(v, path)
		}
	case *ast.SequenceExpression:
		for _, v := range x.Sequence {
			e.walk(v, path)
		}
	default:
		e.all = true
	}
}

// bindings walks declarations: a name that shadows a state entry or ctx,
// or a pattern, ends the analysis.
func (e *escapes) bindings(list []*ast.Binding, path []ast.Node) {
	for _, b := range list {
		id, ok := b.Target.(*ast.Identifier)
		if !ok {
			e.all = true
			return
		}
		if _, shadow := e.states[id.Name.String()]; shadow || id.Name.String() == e.ctx {
			e.all = true
			return
		}
		e.walk(b.Initializer, path)
	}
}

// keptUse reports whether S.f, the last node of path, is used in one of
// the ways that keep its value in the field.
func keptUse(path []ast.Node, ctx string) bool {
	n := len(path)
	x := path[n-1]
	up := func(i int) ast.Node { // the i-th ancestor of x
		if n-1-i < 0 {
			return nil
		}
		return path[n-1-i]
	}
	switch p := up(1).(type) {
	case *ast.AssignExpression:
		// A value that may be held elsewhere (S.f = S.g, = a local)
		// would put an array of another's in the field.
		_, stmt := up(2).(*ast.ExpressionStatement)
		return p.Operator == token.ASSIGN && p.Left == x && stmt && fresh(p.Right)
	case *ast.DotExpression:
		if p.Left != x {
			return false
		}
		switch p.Identifier.Name {
		case "length":
			// Read: not the target of an assignment or of ++ and --.
			switch g := up(2).(type) {
			case *ast.AssignExpression:
				return g.Left != p
			case *ast.UnaryExpression:
				return g.Operator != token.INCREMENT && g.Operator != token.DECREMENT && g.Operator != token.DELETE
			}
			return true
		case "push":
			call, ok := up(2).(*ast.CallExpression)
			return ok && call.Callee == p
		}
	case *ast.PropertyKeyed:
		if p.Value != x || p.Computed {
			return false
		}
		ol, _ := up(2).(*ast.ObjectLiteral)
		call, _ := up(3).(*ast.CallExpression)
		if ol == nil || call == nil || len(call.ArgumentList) != 1 || call.ArgumentList[0] != ol {
			return false
		}
		dx, ok := call.Callee.(*ast.DotExpression)
		if !ok || dx.Identifier.Name != "collect" {
			return false
		}
		id, ok := dx.Left.(*ast.Identifier)
		return ok && ctx != "" && id.Name.String() == ctx
	}
	return false
}

// keepArray makes v, the array a field holds, the field's empty array:
// an empty one stays as it is, and one of at most maxTruncate elements is
// emptied in place (length 0, its storage kept for the next pushes),
// logged with its elements for a bail-out. It reports false for another
// value, or a longer array: the assignment then puts a new array there.
func (in *instance) keepArray(v goja.Value) bool {
	if o, ok := v.(*goja.Object); ok && in.c.empties.has(o) {
		return true
	}
	o, ok := in.isArray(v)
	if !ok {
		return false
	}
	n := o.Get("length").ToInteger()
	if n == 0 {
		in.c.empties.add(o)
		return true
	}
	if n > maxTruncate {
		return false
	}
	c := &in.c
	start := len(c.undoVals)
	for i := range n {
		x := o.Get(strconv.FormatInt(i, 10))
		if x == nil { // a hole: no array the compiled code makes has one
			c.undoVals = c.undoVals[:start]
			return false
		}
		c.undoVals = append(c.undoVals, x)
	}
	if err := o.Set("length", in.e.intJS(0)); err != nil {
		c.undoVals = c.undoVals[:start]
		return false
	}
	c.undo = append(c.undo, undoRec{arr: o, n: n, i: start, emptied: true})
	c.empties.add(o)
	return true
}

// emptyArrays remembers, by address, arrays that keepArray found empty or
// emptied, while nothing can have added to them since: the only way to
// an array that keepArray keeps is its field, whose value leaves no
// function (keepEmptyArrays), so only a push onto it (which forgets it),
// a bail-out's undo and goja's run of the function's code (which forget
// them all) change it. A call's S.f = [] or S.f.length of an array known
// empty then reads nothing of the array: with a key per call (PARTITION
// BY), the array is another at each call, and reading it was a cache
// miss, a fifth of the flights' DelayStreak call.
//
// A set is direct-mapped: an array another took the place of is
// checked the usual way, and found empty again.
type emptyArrays struct {
	objs *[emptyArraysSize]*goja.Object
	used bool
}

const emptyArraysSize = 256 // a power of two

func (a *emptyArrays) slot(o *goja.Object) **goja.Object {
	p := uintptr(unsafe.Pointer(o))
	return &a.objs[p*0x9E3779B97F4A7C15>>(64-8)&(emptyArraysSize-1)]
}

// has reports whether o is known to be an empty array.
func (a *emptyArrays) has(o *goja.Object) bool {
	return a.used && *a.slot(o) == o
}

// add notes that o is an empty array.
func (a *emptyArrays) add(o *goja.Object) {
	if a.objs == nil {
		a.objs = new([emptyArraysSize]*goja.Object)
	}
	*a.slot(o) = o
	a.used = true
}

// forget notes that o may no longer be empty.
func (a *emptyArrays) forget(o *goja.Object) {
	if a.used {
		if p := a.slot(o); *p == o {
			*p = nil
		}
	}
}

// reset forgets every array.
func (a *emptyArrays) reset() {
	if a.used {
		clear(a.objs[:])
		a.used = false
	}
}

// maxTruncate bounds the arrays keepArray empties in place: goja keeps
// the storage of an array cut below 16 elements.
const maxTruncate = 15

// keepEmptyArrays lets the sites of S.f = [] in fns leave an empty array
// in place where no function lets S.f's value out.
func keepEmptyArrays(fns ...*cfunc) {
	out, all := map[fieldKey]bool{}, false
	for _, f := range fns {
		if f == nil {
			continue
		}
		all = all || f.esc.all
		for k := range f.esc.fields {
			out[k] = true
		}
	}
	for _, f := range fns {
		if f == nil {
			continue
		}
		for _, s := range f.keep {
			s.ok = !all && !out[s.key]
		}
	}
}

// keepSite returns a site for S.f = [], S a destructured state entry, or
// nil for another assignment.
func (c *compiler) keepSite(target *ast.DotExpression, rhs ast.Expression) *keepSite {
	al, ok := rhs.(*ast.ArrayLiteral)
	if !ok || len(al.Value) != 0 {
		return nil
	}
	id, ok := target.Left.(*ast.Identifier)
	if !ok {
		return nil
	}
	si, ok := c.states[id.Name.String()]
	if !ok {
		return nil
	}
	s := &keepSite{key: fieldKey{si, target.Identifier.Name.String()}}
	c.fn.keep = append(c.fn.keep, s)
	return s
}

// fresh reports whether x makes a value no one else holds: an array
// literal, or a literal of a primitive.
func fresh(x ast.Expression) bool {
	switch x.(type) {
	case *ast.ArrayLiteral, *ast.NullLiteral, *ast.NumberLiteral, *ast.StringLiteral, *ast.BooleanLiteral, *ast.TemplateLiteral:
		return true
	}
	return false
}
