package script

import (
	"errors"
	"fmt"
	"math"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// List and map state reach JavaScript as view objects with the methods of
// Flink's ListView and MapView. Each method calls the runtime's ListView
// or MapView of the current call's key ([ptf.Context].List and Map), so
// elements and entries are read and written one at a time in the state
// store and never loaded whole, except by getList and getMap, which
// return a plain Array or Map as Flink's do. Values convert by the
// declared ARRAY<T> and MAP<K, V> types (convert.go).
//
// One view object per state entry is made for an instance and reused for
// every call; like ctx and state it is valid only during a call.
//
// list view:  get() (an iterable), get(i), getList(), setList(items),
//             add(v), addAll(items), clear(), size(), isEmpty(), for..of
// map view:   get(k), put(k, v), putAll(map), remove(k), contains(k),
//             keys(), values(), entries() (iterators in key order),
//             getMap(), setMap(map), clear(), size(), isEmpty(), for..of
//
// A null (or undefined) list element and a null map key throw a TypeError
// with Flink's message ("List views don't support null values.", "Map
// views don't support null keys."); map values may be null. get(k) of an
// absent key returns null, as Flink's MapView.get does.

// viewBatch is how many elements or entries an iteration reads at a time.
const viewBatch = 256

// viewObject returns the view object of list or map entry i.
func (in *instance) viewObject(i int) goja.Value {
	if in.views == nil {
		in.views = make([]*goja.Object, len(in.d.state))
	}
	if o := in.views[i]; o != nil {
		return o
	}
	var o *goja.Object
	if in.d.state[i].Kind == ptf.ListState {
		o = in.newListView(i)
	} else {
		o = in.newMapView(i)
	}
	in.views[i] = o
	return o
}

// method defines a non-enumerable method on o.
func (in *instance) method(o *goja.Object, name string, fn func(goja.FunctionCall) goja.Value) {
	_ = o.DefineDataProperty(name, in.e.vm.ToValue(fn), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// viewThrow raises a runtime error of a view method in JavaScript: the
// null errors as TypeErrors with Flink's message, an index out of range
// as a RangeError, the rest as a GoError.
func (in *instance) viewThrow(what string, err error) {
	if err == nil {
		return
	}
	vm := in.e.vm
	var ie *ptf.IndexError
	switch {
	case errors.Is(err, ptf.ErrNullElement), errors.Is(err, ptf.ErrNullKey):
		panic(vm.NewTypeError(err.Error()))
	case errors.As(err, &ie):
		ctor := vm.Get("RangeError")
		obj, cerr := vm.New(ctor, vm.ToValue(what+": "+err.Error()))
		if cerr != nil {
			panic(vm.NewTypeError(what + ": " + err.Error()))
		}
		panic(obj)
	}
	panic(vm.NewGoError(fmt.Errorf("%s: %w", what, err)))
}

func isNullish(v goja.Value) bool { return v == nil || goja.IsNull(v) || goja.IsUndefined(v) }

// fromJSAs converts v to a value of type t for a view method, throwing a
// TypeError that names the method and the role of the value.
func (in *instance) fromJSAs(v goja.Value, t *types.Type, what, role string) any {
	x, cerr := in.e.fromJS(v, t)
	if cerr != nil {
		msg := fmt.Sprintf("%s: %s (%s): %s", what, role, t, cerr.Error())
		if errors.Is(cerr, ptf.ErrLimit) {
			in.e.interrupt(&limitError{msg}) // too large to convert: a limit
		}
		panic(in.e.vm.NewTypeError("%s", msg))
	}
	return x
}

// forEachJS calls fn for each element of an Array or any iterable.
func (in *instance) forEachJS(v goja.Value, what string, fn func(goja.Value)) {
	vm := in.e.vm
	o, ok := v.(*goja.Object)
	if !ok {
		panic(vm.NewTypeError("%s: %s is not iterable", what, describe(v)))
	}
	if o.ExportType() == typeSlice && o.ClassName() == "Array" {
		n := int(o.Get("length").ToInteger())
		for j := 0; j < n; j++ {
			fn(o.Get(index(j)))
		}
		return
	}
	iterFn, ok := goja.AssertFunction(o.GetSymbol(goja.SymIterator))
	if !ok {
		panic(vm.NewTypeError("%s: %s is not iterable", what, describe(v)))
	}
	itv, err := iterFn(o)
	if err != nil {
		panic(err)
	}
	it := itv.ToObject(vm)
	next, ok := goja.AssertFunction(it.Get("next"))
	if !ok {
		panic(vm.NewTypeError("%s: the iterator has no next()", what))
	}
	for {
		r, err := next(it)
		if err != nil {
			panic(err)
		}
		ro := r.ToObject(vm)
		if ro.Get("done").ToBoolean() {
			return
		}
		fn(ro.Get("value"))
	}
}

// newIterator makes a JS iterator (also iterable) over values pulled by
// pull, which returns false at the end; done, if not nil, runs when the
// iteration ends or is left early (return()).
func (in *instance) newIterator(pull func() (goja.Value, bool), done func()) *goja.Object {
	vm := in.e.vm
	it := vm.NewObject()
	finished := false
	finish := func() {
		if !finished {
			finished = true
			if done != nil {
				done()
			}
		}
	}
	result := func(v goja.Value, isDone bool) goja.Value {
		r := vm.NewObject()
		in.e.define(r, "value", v)
		in.e.define(r, "done", isDone)
		return r
	}
	call := in.e.seq()
	in.method(it, "next", func(goja.FunctionCall) goja.Value {
		if in.cur == nil || in.e.seq() != call {
			panic(vm.NewTypeError("an iterator of list or map state is valid only during the call that made it"))
		}
		if !finished {
			if v, ok := pull(); ok {
				return result(v, false)
			}
			finish()
		}
		return result(goja.Undefined(), true)
	})
	in.method(it, "return", func(c goja.FunctionCall) goja.Value {
		finish()
		return result(c.Argument(0), true)
	})
	_ = it.DefineDataPropertySymbol(goja.SymIterator, vm.ToValue(func(c goja.FunctionCall) goja.Value { return c.This }),
		goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return it
}

// ---- list views

func (in *instance) newListView(i int) *goja.Object {
	vm := in.e.vm
	name := in.d.state[i].Name
	var elem *types.Type
	if t := in.d.state[i].Type; t != nil {
		elem = t.Elem
	}
	if elem == nil {
		elem = &types.Type{}
	}
	o := vm.NewObject()
	list := func(method string) (ptf.ListView, string) {
		what := name + "." + method
		return in.mustCur(what).List(i), what
	}
	// values converts JS elements, refusing nulls before anything is added.
	values := func(what string, v goja.Value) []any {
		var out []any
		in.forEachJS(v, what, func(x goja.Value) {
			if isNullish(x) {
				panic(vm.NewTypeError(ptf.ErrNullElement.Error()))
			}
			out = append(out, in.fromJSAs(x, elem, what, "element"))
		})
		return out
	}
	iterate := func(what string) *goja.Object {
		pos, buf := 0, []any(nil)
		return in.newIterator(func() (goja.Value, bool) {
			if len(buf) == 0 {
				var err error
				buf, err = in.mustCur(what).List(i).Slice(pos, viewBatch)
				in.viewThrow(what, err)
				if len(buf) == 0 {
					return nil, false
				}
			}
			v := buf[0]
			buf = buf[1:]
			pos++
			return in.e.toJS(v, elem), true
		}, nil)
	}
	iterable := func(what string) *goja.Object {
		obj := vm.NewObject()
		_ = obj.DefineDataPropertySymbol(goja.SymIterator, vm.ToValue(func(goja.FunctionCall) goja.Value {
			in.mustCur(what)
			return iterate(what)
		}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		return obj
	}
	in.method(o, "get", func(c goja.FunctionCall) goja.Value {
		l, what := list("get")
		if len(c.Arguments) == 0 || goja.IsUndefined(c.Arguments[0]) {
			return iterable(what) // Flink's get(): an Iterable
		}
		idx := c.Arguments[0]
		f := idx.ToFloat()
		if !goja.IsNumber(idx) || f != math.Trunc(f) {
			panic(vm.NewTypeError("%s: the index must be an integer, not %s", what, describe(idx)))
		}
		if f < 0 || f > math.MaxInt32 {
			n, _ := l.Size()
			in.viewThrow(what, &ptf.IndexError{Index: int(max(min(f, math.MaxInt32), math.MinInt32)), Size: n})
		}
		v, err := l.Get(int(f))
		in.viewThrow(what, err)
		return in.e.toJS(v, elem)
	})
	in.method(o, "getList", func(goja.FunctionCall) goja.Value {
		l, what := list("getList")
		var items []any
		err := l.Range(func(_ int, v any) bool {
			items = append(items, in.e.toJS(v, elem))
			return true
		})
		in.viewThrow(what, err)
		return vm.NewArray(items...)
	})
	in.method(o, "setList", func(c goja.FunctionCall) goja.Value {
		l, what := list("setList")
		vs := values(what, c.Argument(0))
		in.viewThrow(what, l.Clear())
		in.viewThrow(what, l.AddAll(vs))
		return goja.Undefined()
	})
	in.method(o, "add", func(c goja.FunctionCall) goja.Value {
		l, what := list("add")
		v := c.Argument(0)
		if isNullish(v) {
			panic(vm.NewTypeError(ptf.ErrNullElement.Error()))
		}
		in.viewThrow(what, l.Add(in.fromJSAs(v, elem, what, "element")))
		return goja.Undefined()
	})
	in.method(o, "addAll", func(c goja.FunctionCall) goja.Value {
		l, what := list("addAll")
		in.viewThrow(what, l.AddAll(values(what, c.Argument(0))))
		return goja.Undefined()
	})
	in.method(o, "clear", func(goja.FunctionCall) goja.Value {
		l, what := list("clear")
		in.viewThrow(what, l.Clear())
		return goja.Undefined()
	})
	in.method(o, "size", func(goja.FunctionCall) goja.Value {
		l, what := list("size")
		n, err := l.Size()
		in.viewThrow(what, err)
		return vm.ToValue(n)
	})
	in.method(o, "isEmpty", func(goja.FunctionCall) goja.Value {
		l, what := list("isEmpty")
		n, err := l.Size()
		in.viewThrow(what, err)
		return vm.ToValue(n == 0)
	})
	_ = o.DefineDataPropertySymbol(goja.SymIterator, vm.ToValue(func(goja.FunctionCall) goja.Value {
		_, what := list("[Symbol.iterator]")
		return iterate(what)
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return o
}

// ---- map views

func (in *instance) newMapView(i int) *goja.Object {
	vm := in.e.vm
	name := in.d.state[i].Name
	mt := in.d.state[i].Type
	if mt == nil {
		mt = &types.Type{Kind: types.KindMap}
	}
	kt, vt := mt.Key, mt.Elem
	if kt == nil {
		kt = &types.Type{}
	}
	if vt == nil {
		vt = &types.Type{}
	}
	o := vm.NewObject()
	view := func(method string) (ptf.MapView, string) {
		what := name + "." + method
		return in.mustCur(what).Map(i), what
	}
	key := func(what string, k goja.Value) any {
		if isNullish(k) {
			panic(vm.NewTypeError(ptf.ErrNullKey.Error()))
		}
		return in.fromJSAs(k, kt, what, "key")
	}
	// entries converts a JS Map or object, refusing null keys before
	// anything is put.
	entries := func(what string, v goja.Value) *types.Map {
		if mo, ok := v.(*goja.Object); ok && mo.ExportType() == typeMap {
			in.e.forEachEntry(mo, func(k, _ goja.Value) {
				if isNullish(k) {
					panic(vm.NewTypeError(ptf.ErrNullKey.Error()))
				}
			})
		}
		m, ok := in.fromJSAs(v, mt, what, "map").(*types.Map)
		if !ok {
			panic(vm.NewTypeError("%s: %s is not a Map", what, describe(v)))
		}
		return m
	}
	iterate := func(m ptf.MapView, what, kind string) *goja.Object {
		it, err := m.Iterator()
		in.viewThrow(what, err)
		return in.newIterator(func() (goja.Value, bool) {
			in.mustCur(what)
			k, v, ok, err := it.Next()
			in.viewThrow(what, err)
			if !ok {
				return nil, false
			}
			switch kind {
			case "keys":
				return in.e.toJS(k, kt), true
			case "values":
				return in.e.toJS(v, vt), true
			}
			return vm.NewArray(in.e.toJS(k, kt), in.e.toJS(v, vt)), true
		}, it.Close)
	}
	in.method(o, "get", func(c goja.FunctionCall) goja.Value {
		m, what := view("get")
		v, ok, err := m.Get(key(what, c.Argument(0)))
		in.viewThrow(what, err)
		if !ok {
			return goja.Null()
		}
		return in.e.toJS(v, vt)
	})
	in.method(o, "contains", func(c goja.FunctionCall) goja.Value {
		m, what := view("contains")
		ok, err := m.Contains(key(what, c.Argument(0)))
		in.viewThrow(what, err)
		return vm.ToValue(ok)
	})
	in.method(o, "put", func(c goja.FunctionCall) goja.Value {
		m, what := view("put")
		k := key(what, c.Argument(0))
		in.viewThrow(what, m.Put(k, in.fromJSAs(c.Argument(1), vt, what, "value")))
		return goja.Undefined()
	})
	in.method(o, "putAll", func(c goja.FunctionCall) goja.Value {
		m, what := view("putAll")
		in.viewThrow(what, m.PutAll(entries(what, c.Argument(0))))
		return goja.Undefined()
	})
	in.method(o, "remove", func(c goja.FunctionCall) goja.Value {
		m, what := view("remove")
		in.viewThrow(what, m.Remove(key(what, c.Argument(0))))
		return goja.Undefined()
	})
	in.method(o, "clear", func(goja.FunctionCall) goja.Value {
		m, what := view("clear")
		in.viewThrow(what, m.Clear())
		return goja.Undefined()
	})
	in.method(o, "size", func(goja.FunctionCall) goja.Value {
		m, what := view("size")
		n, err := m.Size()
		in.viewThrow(what, err)
		return vm.ToValue(n)
	})
	in.method(o, "isEmpty", func(goja.FunctionCall) goja.Value {
		m, what := view("isEmpty")
		empty, err := m.IsEmpty()
		in.viewThrow(what, err)
		return vm.ToValue(empty)
	})
	for _, kind := range []string{"keys", "values", "entries"} {
		in.method(o, kind, func(goja.FunctionCall) goja.Value {
			m, what := view(kind)
			return iterate(m, what, kind)
		})
	}
	in.method(o, "getMap", func(goja.FunctionCall) goja.Value {
		m, what := view("getMap")
		jm, err := vm.New(in.e.js.mapCtor)
		if err != nil {
			panic(err)
		}
		err = m.Range(func(k, v any) bool {
			if _, err := in.e.js.mapSet(jm, in.e.toJS(k, kt), in.e.toJS(v, vt)); err != nil {
				panic(err)
			}
			return true
		})
		in.viewThrow(what, err)
		return jm
	})
	in.method(o, "setMap", func(c goja.FunctionCall) goja.Value {
		m, what := view("setMap")
		es := entries(what, c.Argument(0))
		in.viewThrow(what, m.Clear())
		in.viewThrow(what, m.PutAll(es))
		return goja.Undefined()
	})
	_ = o.DefineDataPropertySymbol(goja.SymIterator, vm.ToValue(func(goja.FunctionCall) goja.Value {
		m, what := view("[Symbol.iterator]")
		return iterate(m, what, "entries")
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return o
}
