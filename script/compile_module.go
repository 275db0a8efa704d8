package script

import (
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// Module constants. A name declared once at the module's top level with
// a literal value (const LATE = 30, which esbuild bundles as var LATE =
// 30) and assigned nowhere in the module compiles to that value: eval
// runs after the module's code, so the name holds it.

// moduleConsts returns the constants of a bundle's code, by name.
func moduleConsts(vm *goja.Runtime, code string) map[string]goja.Value {
	prg, err := parser.ParseFile(nil, "", code, 0)
	if err != nil {
		return nil
	}
	declared := map[string]int{}
	assigned := map[string]bool{}
	dynamic := false
	walkAST(prg, func(n ast.Node) {
		switch x := n.(type) {
		case *ast.Binding:
			bindingNames(x.Target, declared)
		case *ast.FunctionLiteral:
			if x.Name != nil {
				declared[x.Name.Name.String()]++
			}
		case *ast.ClassLiteral:
			if x.Name != nil {
				declared[x.Name.Name.String()]++
			}
		case *ast.CatchStatement:
			if x.Parameter != nil {
				bindingNames(x.Parameter, declared)
			}
		case *ast.ForDeclaration:
			bindingNames(x.Target, declared)
		case *ast.AssignExpression:
			// Any name inside a target (a destructuring assignment too).
			bindingNames(x.Left, nil, assigned)
		case *ast.UnaryExpression:
			if x.Operator == token.INCREMENT || x.Operator == token.DECREMENT {
				bindingNames(x.Operand, nil, assigned)
			}
		case *ast.ForInStatement:
			if fi, ok := x.Into.(*ast.ForIntoExpression); ok {
				bindingNames(fi.Expression, nil, assigned)
			}
		case *ast.ForOfStatement:
			if fi, ok := x.Into.(*ast.ForIntoExpression); ok {
				bindingNames(fi.Expression, nil, assigned)
			}
		case *ast.WithStatement:
			dynamic = true
		case *ast.CallExpression:
			if id, ok := x.Callee.(*ast.Identifier); ok && id.Name == "eval" {
				dynamic = true // a direct eval can assign any name in scope
			}
		}
	})
	if dynamic {
		return nil
	}
	out := map[string]goja.Value{}
	for _, list := range topLevel(prg) {
		for _, s := range list {
			var bs []*ast.Binding
			switch x := s.(type) {
			case *ast.VariableStatement:
				bs = x.List
			case *ast.LexicalDeclaration:
				bs = x.List
			}
			for _, b := range bs {
				id, ok := b.Target.(*ast.Identifier)
				if !ok {
					continue
				}
				name := id.Name.String()
				if declared[name] != 1 || assigned[name] {
					continue
				}
				if v, ok := literalValue(vm, b.Initializer); ok {
					out[name] = v
				}
			}
		}
	}
	return out
}

// topLevel is the statement lists of the module's top level: the
// program's, and the body of the function esbuild wraps a bundle in
// (var __ptfsh_module = (() => { ... })()).
func topLevel(prg *ast.Program) [][]ast.Statement {
	lists := [][]ast.Statement{prg.Body}
	for _, s := range prg.Body {
		vs, ok := s.(*ast.VariableStatement)
		if !ok || len(vs.List) != 1 {
			continue
		}
		call, ok := vs.List[0].Initializer.(*ast.CallExpression)
		if !ok || len(call.ArgumentList) != 0 {
			continue
		}
		if af, ok := call.Callee.(*ast.ArrowFunctionLiteral); ok {
			if body, ok := af.Body.(*ast.BlockStatement); ok {
				lists = append(lists, body.List)
			}
		}
	}
	return lists
}

// literalValue is the value of a number, string, boolean or null literal
// (or a negated number).
func literalValue(vm *goja.Runtime, e ast.Expression) (goja.Value, bool) {
	switch x := e.(type) {
	case *ast.NumberLiteral:
		return vm.ToValue(x.Value), true
	case *ast.StringLiteral:
		s := x.Value.String()
		if !validText(s) {
			return nil, false
		}
		return vm.ToValue(s), true
	case *ast.BooleanLiteral:
		return vm.ToValue(x.Value), true
	case *ast.NullLiteral:
		return goja.Null(), true
	case *ast.UnaryExpression:
		if x.Operator == token.MINUS {
			if n, ok := x.Operand.(*ast.NumberLiteral); ok {
				switch v := n.Value.(type) {
				case int64:
					if v == 0 {
						return vm.ToValue(math.Copysign(0, -1)), true
					}
					return vm.ToValue(-v), true
				case float64:
					return vm.ToValue(-v), true
				}
			}
		}
	}
	return nil, false
}

// bindingNames counts the names a binding target (or an assignment
// target) declares into declared, or marks them in assigned.
func bindingNames(n ast.Node, declared map[string]int, assigned ...map[string]bool) {
	walkAST(n, func(n ast.Node) {
		id, ok := n.(*ast.Identifier)
		if !ok {
			return
		}
		if declared != nil {
			declared[id.Name.String()]++
		}
		for _, a := range assigned {
			a[id.Name.String()] = true
		}
	})
}

var typeNode = reflect.TypeOf((*ast.Node)(nil)).Elem()

// walkAST calls fn for n and every node under it, by reflection over the
// AST's structs (goja's ast has no walker).
func walkAST(n ast.Node, fn func(ast.Node)) {
	var visit func(v reflect.Value)
	visit = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if v.IsNil() {
				return
			}
			if v.Kind() == reflect.Pointer && v.Type().Implements(typeNode) {
				if node, ok := v.Interface().(ast.Node); ok {
					fn(node)
				}
			}
			visit(v.Elem())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				// DeclarationList repeats a function's var statements.
				if f := v.Type().Field(i); f.IsExported() && f.Name != "DeclarationList" {
					visit(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				visit(v.Index(i))
			}
		}
	}
	visit(reflect.ValueOf(n))
}

// validText reports whether a string of the source holds text a Go
// string keeps as goja does: valid UTF-8 without U+FFFD, which stands for
// a lone surrogate.
func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, utf8.RuneError)
}

// objectProtoIntact reports whether Object.prototype has the properties
// it had before the module's code ran, with the same values.
func (rt *realm) objectProtoIntact() bool {
	intact := false
	err := rt.protect(func() {
		names := rt.js.objectProto.GetOwnPropertyNames()
		if len(names) != len(rt.js.objectProtoVals) {
			return
		}
		for i, k := range names {
			if !rt.js.objectProtoNames[k] || !rt.js.objectProto.Get(k).SameAs(rt.js.objectProtoVals[i]) {
				return
			}
		}
		intact = true
	})
	return err == nil && intact
}
