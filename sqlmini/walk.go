package sqlmini

import (
	"reflect"
	"sync"
)

// Walk calls visit for node and for every node of the tree below it, parents
// first and in the order of the fields, as go/ast.Inspect does: when visit
// returns false, the children of that node are not walked. A node is a
// non-nil pointer to a struct of the AST (*Select, *Expr, *FuncCall, ...);
// node itself may be one, or a struct or slice of them.
//
// Walk goes through the grammar's exported fields by reflection, so that a
// node added to the grammar is walked with no change here. It is the one
// walk of the AST: the planner's searches (aggregates, OVER calls, columns
// read), the dialect's checks and the Flink export's all use it.
func Walk(node any, visit func(n any) bool) {
	walk(reflect.ValueOf(node), visit)
}

func walk(v reflect.Value, visit func(any) bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return
		}
		if visit(v.Interface()) {
			walk(v.Elem(), visit)
		}
	case reflect.Struct:
		for _, i := range exportedFields(v.Type()) {
			walk(v.Field(i), visit)
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), visit)
		}
	}
}

// fieldCache holds, per struct type, the indexes of its exported fields that
// can hold nodes (pointers, structs and slices).
var fieldCache sync.Map // reflect.Type -> []int

func exportedFields(t reflect.Type) []int {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]int)
	}
	var f []int
	for i := range t.NumField() {
		sf := t.Field(i)
		switch sf.Type.Kind() {
		case reflect.Pointer, reflect.Struct, reflect.Slice:
			if sf.IsExported() {
				f = append(f, i)
			}
		}
	}
	fieldCache.Store(t, f)
	return f
}

// Inspect is Walk for a visit that looks at every node: f never stops the
// walk.
func Inspect(node any, f func(any)) {
	Walk(node, func(n any) bool { f(n); return true })
}
