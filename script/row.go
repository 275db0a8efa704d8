package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// rowSchema is the shape of the rows of one table argument or ROW type:
// field names and types, looked up by name.
type rowSchema struct {
	names []string
	types []types.Type
	index map[string]int // nil for few fields: a linear scan is faster
	table types.Schema
}

func newRowSchema(names []string, fieldTypes []types.Type) *rowSchema {
	s := &rowSchema{names: names, types: fieldTypes}
	s.table.Columns = make([]types.Column, len(names))
	for i, n := range names {
		s.table.Columns[i] = types.Column{Name: n, Type: fieldTypes[i]}
	}
	if len(names) > 8 {
		s.index = make(map[string]int, len(names))
		for i, n := range names {
			if _, dup := s.index[n]; !dup {
				s.index[n] = i
			}
		}
	}
	return s
}

func schemaOfTable(sc types.Schema) *rowSchema {
	names := make([]string, len(sc.Columns))
	types := make([]types.Type, len(sc.Columns))
	for i, c := range sc.Columns {
		names[i], types[i] = c.Name, c.Type
	}
	return newRowSchema(names, types)
}

func schemaOfType(t *types.Type) *rowSchema {
	names := make([]string, len(t.Fields))
	types := make([]types.Type, len(t.Fields))
	for i, f := range t.Fields {
		names[i], types[i] = f.Name, f.Type
	}
	return newRowSchema(names, types)
}

func (s *rowSchema) lookup(name string) int {
	if s.index != nil {
		if i, ok := s.index[name]; ok {
			return i
		}
		return -1
	}
	for i, n := range s.names {
		if n == name {
			return i
		}
	}
	return -1
}

// rowObject is a row as JavaScript sees it: a goja DynamicObject whose
// properties are the row's fields by column name, read from the Go row on
// access, with Flink's Row methods on its prototype.
//
// The Row methods are not on a prototype of their own (setting one costs
// each row object a guarded call into goja): Get hands them out for any
// name that is not a column, and the prototype is Object.prototype.
//
// A rowObject is made per call and holds the Go row it was made for, not a
// copy: rows are immutable once the runtime hands them to a PTF (see
// [types.Row]), so a rowObject stays valid, with the same values, after
// the call returns (when the function kept it in state or a variable).
// Field values that convert to JS objects (Date, Array, Map, nested rows)
// are converted once, on first access, so input.ts === input.ts.
type rowObject struct {
	e      *realm
	schema *rowSchema
	row    types.Row
	cache  []goja.Value
}

// newRowObject wraps a Go row.
func (e *realm) newRowObject(s *rowSchema, row types.Row) *goja.Object {
	ro := &rowObject{e: e, schema: s, row: row}
	return e.vm.NewDynamicObject(ro)
}

func (r *rowObject) String() string { return r.e.formatRow(r.row, r.schema.table) }

// field returns field i as JS.
func (r *rowObject) field(i int) goja.Value {
	if i >= len(r.row.Fields) {
		return goja.Null()
	}
	switch v := r.row.Fields[i].(type) {
	case nil:
		return goja.Null()
	case string:
		return r.e.str(v)
	case int64:
		if v >= -maxSafeInt && v <= maxSafeInt {
			return r.e.intJS(v)
		}
	case bool, float64:
		return r.e.vm.ToValue(v)
	}
	if r.cache == nil {
		r.cache = make([]goja.Value, len(r.schema.names))
	} else if c := r.cache[i]; c != nil {
		return c
	}
	var t *types.Type
	if i < len(r.schema.types) {
		t = &r.schema.types[i]
	}
	c := r.e.toJS(r.row.Fields[i], t)
	r.cache[i] = c
	return c
}

// Get implements goja.DynamicObject.
func (r *rowObject) Get(key string) goja.Value {
	i := r.schema.lookup(key)
	if i < 0 {
		if m, ok := r.e.js.rowMethods[key]; ok {
			return m
		}
		if rowProbes[key] || r.e.js.objectProto.Get(key) != nil {
			return nil // undefined, or Object.prototype's
		}
		// A misspelt column: an error, as Flink's Row.getFieldAs is (the
		// bridge's rows throw the same, export/flink).
		panic(r.e.vm.NewTypeError("%s", unknownColumn(key, r.schema.names)))
	}
	return r.field(i)
}

// rowProbes are the names that JavaScript itself reads on an object to
// learn what it is (await's then, JSON.stringify's toJSON, Array.from's
// length): undefined, not an error.
var rowProbes = map[string]bool{"then": true, "toJSON": true, "length": true}

// unknownColumn is the error of reading a column a row does not have.
func unknownColumn(key string, names []string) string {
	return fmt.Sprintf("the row has no column %q (its columns: %s); Flink's Row.getFieldAs fails on it too; test for an optional one with %q in row",
		key, strings.Join(names, ", "), key)
}

// Set implements goja.DynamicObject: rows are read-only.
func (r *rowObject) Set(key string, _ goja.Value) bool {
	panic(r.e.vm.NewTypeError("cannot set %q: rows are read-only (copy one with {...row})", key))
}

// Has implements goja.DynamicObject: the columns and the Row methods, so
// that "getField" in row holds as it did with the methods on a prototype.
func (r *rowObject) Has(key string) bool {
	if r.schema.lookup(key) >= 0 {
		return true
	}
	_, ok := r.e.js.rowMethods[key]
	return ok
}

// Delete implements goja.DynamicObject: rows are read-only.
func (r *rowObject) Delete(key string) bool {
	panic(r.e.vm.NewTypeError("cannot delete %q: rows are read-only", key))
}

// Keys implements goja.DynamicObject: the column names, in order.
func (r *rowObject) Keys() []string { return r.schema.names }

// initRowMethods makes Flink's Row methods of row objects:
// getField(i | name), getFieldAs(i | name), getKind(), getArity(),
// getFieldNames() and toString() (+I[Bob, 12]).
func (e *realm) initRowMethods() {
	vm := e.vm
	p := map[string]goja.Value{}
	this := func(c goja.FunctionCall, method string) *rowObject {
		if o, ok := c.This.(*goja.Object); ok && o.ExportType() == typeRow {
			return o.Export().(*rowObject)
		}
		panic(vm.NewTypeError("Row.%s called on %s", method, describe(c.This)))
	}
	getField := func(method string) func(goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			r := this(c, method)
			a := c.Argument(0)
			if goja.IsNumber(a) {
				i := a.ToInteger()
				if float64(i) != a.ToFloat() || i < 0 || i >= int64(len(r.schema.names)) {
					panic(vm.NewTypeError("%s: index %s out of range for a row of arity %d", method, a.String(), len(r.schema.names)))
				}
				return r.field(int(i))
			}
			name := a.String()
			i := r.schema.lookup(name)
			if i < 0 {
				panic(vm.NewTypeError("%s: unknown field name %q; the row has %s", method, name, strings.Join(r.schema.names, ", ")))
			}
			return r.field(i)
		}
	}
	p["getField"] = vm.ToValue(getField("getField"))
	p["getFieldAs"] = vm.ToValue(getField("getFieldAs"))
	p["getKind"] = vm.ToValue(func(c goja.FunctionCall) goja.Value {
		return e.js.kinds[this(c, "getKind").row.Kind&3]
	})
	p["getArity"] = vm.ToValue(func(c goja.FunctionCall) goja.Value {
		return vm.ToValue(len(this(c, "getArity").schema.names))
	})
	p["getFieldNames"] = vm.ToValue(func(c goja.FunctionCall) goja.Value {
		names := this(c, "getFieldNames").schema.names
		items := make([]any, len(names))
		for i, n := range names {
			items[i] = n
		}
		return vm.NewArray(items...)
	})
	p["toString"] = vm.ToValue(func(c goja.FunctionCall) goja.Value {
		r := this(c, "toString")
		return vm.ToValue(e.formatRow(r.row, r.schema.table))
	})
	e.js.rowMethods = p
}

// formatRow renders a row as Flink's Row.toString.
func (e *Engine) formatRow(r types.Row, s types.Schema) string {
	if e.opts.FormatRow != nil {
		return e.opts.FormatRow(r, s)
	}
	return defaultFormatRow(r)
}

// defaultFormatRow is a stand-in for [types.FormatRow], used when the
// Engine is given none: kind, then the fields by Java's toString rules
// for the common types.
func defaultFormatRow(r types.Row) string {
	var b strings.Builder
	b.WriteString(r.Kind.ShortString())
	b.WriteByte('[')
	for i, f := range r.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(defaultFormatValue(f))
	}
	b.WriteByte(']')
	return b.String()
}

func defaultFormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case types.Row:
		return defaultFormatRow(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = defaultFormatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case types.Descriptor:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = "`" + n + "`"
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprint(v)
}
