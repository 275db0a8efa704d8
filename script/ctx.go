package script

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/internal/spell"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// newCtxObject makes the ctx object of an instance: Flink's Context
// methods, each delegating to the current call's [*ptf.Context].
func (in *instance) newCtxObject() *goja.Object {
	vm := in.e.vm
	o := vm.NewObject()
	set := func(name string, fn func(goja.FunctionCall) goja.Value) {
		in.e.define(o, name, fn)
	}
	set("collect", in.collect)
	set("clearState", func(c goja.FunctionCall) goja.Value {
		cur := in.mustCur("ctx.clearState")
		name := c.Argument(0).String()
		i := (&stateView{in}).index(name)
		if i < 0 {
			panic(vm.NewTypeError("clearState: no state entry %q is declared (declared: %s)", name, strings.Join(in.stateNames(), ", ")))
		}
		cur.ClearState(i)
		in.stateCleared[i] = true
		return goja.Undefined()
	})
	set("clearAllState", func(goja.FunctionCall) goja.Value {
		in.mustCur("ctx.clearAllState").ClearAllState()
		for i := range in.stateCleared {
			in.stateCleared[i] = true
		}
		return goja.Undefined()
	})
	set("clearAllTimers", func(goja.FunctionCall) goja.Value {
		in.throw(in.mustCur("ctx.clearAllTimers").ClearAllTimers())
		return goja.Undefined()
	})
	set("clearAll", func(goja.FunctionCall) goja.Value {
		cur := in.mustCur("ctx.clearAll")
		cur.ClearAllState()
		for i := range in.stateCleared {
			in.stateCleared[i] = true
		}
		in.throw(cur.ClearAllTimers())
		return goja.Undefined()
	})
	set("currentTimer", func(goja.FunctionCall) goja.Value {
		if name, ok := in.mustCur("ctx.currentTimer").CurrentTimer(); ok {
			return in.e.str(name)
		}
		return goja.Null()
	})
	set("noteDropped", func(c goja.FunctionCall) goja.Value {
		cur := in.mustCur("ctx.noteDropped")
		reason := "no reason given"
		if a := c.Argument(0); !goja.IsUndefined(a) && !goja.IsNull(a) {
			reason = a.String()
			if r := []rune(reason); len(r) > 80 {
				reason = string(r[:80]) + "…"
			}
		}
		cur.NoteDropped(reason)
		return goja.Undefined()
	})
	set("getChangelogMode", func(goja.FunctionCall) goja.Value {
		return in.e.modeToJS(in.mustCur("ctx.getChangelogMode").ChangelogMode())
	})
	set("tableSemanticsFor", in.tableSemanticsFor)
	set("timeContext", func(goja.FunctionCall) goja.Value {
		in.mustCur("ctx.timeContext")
		if in.timeCtx == nil {
			in.timeCtx = in.newTimeContext()
		}
		return in.timeCtx
	})
	return o
}

// throw raises err in JavaScript as a GoError, which the function may
// catch; uncaught, the call fails with err (errors.Is works on the result).
func (in *instance) throw(err error) {
	if err != nil {
		panic(in.e.vm.NewGoError(err))
	}
}

// collect is ctx.collect(value[, kind]): an object by field name, an
// array in declared order, or a bare value for a scalar output.
func (in *instance) collect(c goja.FunctionCall) goja.Value {
	vm := in.e.vm
	cur := in.mustCur("ctx.collect")
	if !in.countRow() {
		return goja.Undefined() // the call is stopped
	}
	kind := types.Insert
	if len(c.Arguments) > 1 && !goja.IsUndefined(c.Arguments[1]) {
		k, ok := in.e.kindOf(c.Arguments[1])
		if !ok {
			panic(vm.NewTypeError("collect: the second argument must be a RowKind (RowKind.INSERT, ...), not %s", describe(c.Arguments[1])))
		}
		kind = k
	}
	if err := in.toOutput(c.Argument(0)); err != nil {
		if errors.Is(err, ptf.ErrLimit) {
			// A value too large to convert: a limit, which the function
			// cannot catch, not a TypeError.
			in.e.interrupt(&limitError{"collect: " + err.Error()})
			return goja.Undefined()
		}
		panic(vm.NewTypeError("collect: %s", err.Error()))
	}
	in.throw(cur.Collect(types.Row{Kind: kind, Fields: in.outBuf}))
	return goja.Undefined()
}

// toOutput converts a collected value into in.outBuf.
func (in *instance) toOutput(v goja.Value) error {
	e := in.e
	col := func(i int, cv goja.Value) error {
		x, err := e.fromJS(cv, &in.out[i].Type)
		if err != nil {
			return fmt.Errorf("column %q (%s): %w", in.out[i].Name, in.out[i].Type, err)
		}
		in.outBuf[i] = x
		return nil
	}
	if !in.outRow {
		return col(0, v)
	}
	o, isObj := v.(*goja.Object)
	if !isObj {
		if len(in.out) == 1 && v != nil && !goja.IsNull(v) && !goja.IsUndefined(v) {
			return col(0, v) // ROW<out STRING>: collect("x")
		}
		return fmt.Errorf("cannot use %s: the output is %s; pass an object by column name or an array of %d values",
			describe(v), in.d.output, len(in.out))
	}
	et := o.ExportType()
	switch {
	case et == typeSlice && o.ClassName() == "Array":
		n := int(o.Get("length").ToInteger())
		if n != len(in.out) {
			return fmt.Errorf("an array of %d values for %d columns (%s)", n, len(in.out), strings.Join(colNames(in.out), ", "))
		}
		for i := range in.out {
			if err := col(i, o.Get(index(i))); err != nil {
				return err
			}
		}
	case et == typeRow || o.ClassName() == "Object":
		var missing []string
		for i := range in.out {
			cv := o.Get(in.out[i].Name)
			if cv == nil || goja.IsUndefined(cv) {
				missing = append(missing, in.out[i].Name)
			}
			if err := col(i, cv); err != nil {
				return err
			}
		}
		if len(missing) > 0 && et != typeRow {
			// A column left out is NULL; but a key spelt nearly as the
			// column left out is a misspelt column, which Flink's typed
			// rows would not compile: say so rather than write NULL.
			return in.misspeltColumn(o, missing)
		}
	default:
		if len(in.out) == 1 {
			return col(0, v)
		}
		return fmt.Errorf("cannot use %s: pass an object by column name or an array of %d values", describe(v), len(in.out))
	}
	return nil
}

// misspeltColumn reports an own key of o that is no output column but is
// spelt nearly as a column left out (missing), as a misspelling; nil when
// there is none (other keys are let by: an object may carry more).
func (in *instance) misspeltColumn(o *goja.Object, missing []string) error {
	for _, k := range o.Keys() {
		known := false
		for _, c := range in.out {
			if c.Name == k {
				known = true
				break
			}
		}
		if known {
			continue
		}
		if near := spell.Closest(k, missing, len(k)/3+1); near != "" {
			return fmt.Errorf("unknown column %q (did you mean %q? it is left out, and would be NULL); the output's columns are %s",
				k, near, strings.Join(colNames(in.out), ", "))
		}
	}
	return nil
}

func colNames(cols []types.Column) []string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.Name
	}
	return n
}

// tableSemanticsFor is ctx.tableSemanticsFor(name): Flink's TableSemantics
// of a table argument, as an object of methods.
func (in *instance) tableSemanticsFor(c goja.FunctionCall) goja.Value {
	vm := in.e.vm
	cur := in.mustCur("ctx.tableSemanticsFor")
	name := c.Argument(0).String()
	arg := -1
	for i, a := range in.d.args {
		if a.Name == name && a.IsTable() {
			arg = i
		}
	}
	if arg < 0 {
		panic(vm.NewTypeError("tableSemanticsFor: %q is not a table argument of %s", name, in.d.name))
	}
	if v, ok := in.semCache[arg]; ok {
		return v
	}
	ts, ok := cur.TableSemantics(arg)
	if !ok {
		return goja.Null()
	}
	e := in.e
	o := vm.NewObject()
	dataType := vm.NewObject()
	typeString := ts.DataType.String()
	in.e.define(dataType, "toString", func(goja.FunctionCall) goja.Value { return vm.ToValue(typeString) })
	var fields []any
	for _, f := range ts.DataType.Fields {
		fo := vm.NewObject()
		in.e.define(fo, "name", f.Name)
		in.e.define(fo, "type", f.Type.String())
		fields = append(fields, fo)
	}
	in.e.define(dataType, "fields", vm.NewArray(fields...))
	ints := func(xs []int) []any {
		out := make([]any, len(xs))
		for i, x := range xs {
			out[i] = x
		}
		return out
	}
	in.e.define(o, "dataType", func(goja.FunctionCall) goja.Value { return dataType })
	in.e.define(o, "partitionByColumns", func(goja.FunctionCall) goja.Value { return e.listToJS(ints(ts.PartitionBy)) })
	in.e.define(o, "orderByColumns", func(goja.FunctionCall) goja.Value { return e.listToJS(ints(ts.OrderBy)) })
	in.e.define(o, "orderByDirections", func(goja.FunctionCall) goja.Value {
		dirs := make([]any, len(ts.OrderBy))
		for i := range dirs {
			dirs[i] = "ASCENDING"
			if i < len(ts.Descending) && ts.Descending[i] {
				dirs[i] = "DESCENDING"
			}
		}
		return e.listToJS(dirs)
	})
	in.e.define(o, "timeColumn", func(goja.FunctionCall) goja.Value { return vm.ToValue(ts.TimeColumn) })
	in.e.define(o, "changelogMode", func(goja.FunctionCall) goja.Value { return e.modeToJS(ts.Changelog) })
	if in.semCache == nil {
		in.semCache = map[int]goja.Value{}
	}
	in.semCache[arg] = o
	return o
}

// newTimeContext makes ctx.timeContext(): Flink's TimeContext in epoch
// milliseconds.
func (in *instance) newTimeContext() *goja.Object {
	vm := in.e.vm
	o := vm.NewObject()
	// The last time converted, kept: a call reads its time more than once
	// (time() to compare and to compute), calls in a row often share a
	// watermark, and a JS number is immutable.
	var lastMs int64
	var last goja.Value
	timeOf := func(ts int64, ok bool) goja.Value {
		if !ok {
			return goja.Null()
		}
		if last == nil || ts != lastMs {
			lastMs, last = ts, timeToJS(vm, ts)
		}
		return last
	}
	in.e.define(o, "time", func(goja.FunctionCall) goja.Value { return timeOf(in.mustCur("time").Time()) })
	in.e.define(o, "currentWatermark", func(goja.FunctionCall) goja.Value {
		return timeOf(in.mustCur("currentWatermark").CurrentWatermark())
	})
	in.e.define(o, "tableWatermark", func(goja.FunctionCall) goja.Value {
		return timeOf(in.mustCur("tableWatermark").TableWatermark())
	})
	in.e.define(o, "registerOnTime", func(c goja.FunctionCall) goja.Value {
		cur := in.mustCur("registerOnTime")
		switch len(c.Arguments) {
		case 1:
			in.throw(cur.RegisterOnTimeUnnamed(in.timeArg("registerOnTime", c.Arguments[0])))
		case 2:
			if !goja.IsString(c.Arguments[0]) {
				panic(vm.NewTypeError("registerOnTime: the timer name must be a string, not %s", describe(c.Arguments[0])))
			}
			in.throw(cur.RegisterOnTime(c.Arguments[0].String(), in.timeArg("registerOnTime", c.Arguments[1])))
		default:
			panic(vm.NewTypeError("registerOnTime takes (time) or (name, time)"))
		}
		return goja.Undefined()
	})
	in.e.define(o, "clearTimer", func(c goja.FunctionCall) goja.Value {
		cur := in.mustCur("clearTimer")
		a := c.Argument(0)
		if goja.IsString(a) {
			in.throw(cur.ClearTimer(a.String()))
		} else {
			in.throw(cur.ClearTimerAt(in.timeArg("clearTimer", a)))
		}
		return goja.Undefined()
	})
	in.e.define(o, "clearAllTimers", func(goja.FunctionCall) goja.Value {
		in.throw(in.mustCur("clearAllTimers").ClearAllTimers())
		return goja.Undefined()
	})
	return o
}

// timeToJS converts epoch milliseconds to a JS number; times beyond ±2^53
// (Long.MAX_VALUE, the end-of-input watermark) become ±Number.MAX_SAFE_INTEGER.
func timeToJS(vm *goja.Runtime, ms int64) goja.Value {
	switch {
	case ms >= maxSafeInt:
		return vm.ToValue(int64(maxSafeInt))
	case ms <= -maxSafeInt:
		return vm.ToValue(int64(-maxSafeInt))
	}
	return vm.ToValue(ms)
}

// timeArg reads a time given to a timer method: epoch milliseconds as a
// number or a BigInt, or a Date. ±Number.MAX_SAFE_INTEGER and beyond mean
// Long.MAX_VALUE / Long.MIN_VALUE.
func (in *instance) timeArg(method string, v goja.Value) int64 {
	vm := in.e.vm
	if o, ok := v.(*goja.Object); ok && o.ExportType() == typeTime {
		if tm, ok := o.Export().(time.Time); ok {
			return tm.UnixMilli()
		}
		panic(vm.NewTypeError("%s: invalid Date", method))
	}
	if v != nil && goja.IsBigInt(v) {
		b := v.Export().(*big.Int)
		switch {
		case b.IsInt64():
			return clampTime(float64(b.Int64()), b.Int64())
		case b.Sign() > 0:
			return math.MaxInt64
		default:
			return math.MinInt64
		}
	}
	if v != nil && goja.IsNumber(v) {
		f := v.ToFloat()
		if !math.IsNaN(f) {
			return clampTime(f, int64(math.Floor(f)))
		}
	}
	panic(vm.NewTypeError("%s: a time must be epoch milliseconds (a number) or a Date, not %s", method, describe(v)))
}

func clampTime(f float64, i int64) int64 {
	switch {
	case f >= maxSafeInt:
		return math.MaxInt64
	case f <= -maxSafeInt:
		return math.MinInt64
	}
	return i
}

// Changelog returns the changelog declaration of a function this Engine
// loaded; false if def is not one of its functions.
func (e *Engine) Changelog(def *ptf.FuncDef) (Changelog, bool) {
	d, ok := e.decls[def]
	if !ok {
		return Changelog{}, false
	}
	return d.changelog, true
}

// ChangelogMode resolves the output changelog mode of a call of def, as
// Flink's ChangelogFunction.getChangelogMode: tables are the changelog
// modes of its table arguments (by table position) and required the mode
// the consumer requires. Without a declaration the output is insert-only;
// "upsert" deletes by key when the consumer accepts that.
func (e *Engine) ChangelogMode(def *ptf.FuncDef, tables []types.ChangelogMode, required types.ChangelogMode) (types.ChangelogMode, error) {
	d, ok := e.decls[def]
	if !ok {
		return types.ChangelogMode{}, fmt.Errorf("%s is not a JavaScript function", def.Name)
	}
	return d.rt.changelogMode(d, tables, required)
}

func (e *realm) changelogMode(d *decl, tables []types.ChangelogMode, required types.ChangelogMode) (types.ChangelogMode, error) {
	if d.clFunc == nil {
		if d.changelog.Mode == "" {
			return types.InsertOnly, nil
		}
		m, err := e.modeFromJS(e.vm.ToValue(d.changelog.Mode))
		if err != nil {
			return types.ChangelogMode{}, &Error{Func: d.name, Msg: "changelog: " + err.Error()}
		}
		if m.Contains(types.Delete) && !m.Contains(types.UpdateBefore) {
			m.KeyOnlyDeletes = required.KeyOnlyDeletes // "upsert": deletes as the consumer needs them
		}
		return m, nil
	}
	// The function form runs as a call, and so does reading what it
	// returns (the result is the function's object: a getter, a Proxy).
	var m types.ChangelogMode
	err := e.guard(d.name, nil, func() error {
		vm := e.vm
		cctx := vm.NewObject()
		e.define(cctx, "getTableChangelogMode", func(c goja.FunctionCall) goja.Value {
			i := int(c.Argument(0).ToInteger())
			if i < 0 || i >= len(tables) {
				panic(vm.NewTypeError("getTableChangelogMode: no table argument %d", i))
			}
			return e.modeToJS(tables[i])
		})
		e.define(cctx, "getRequiredChangelogMode", func(goja.FunctionCall) goja.Value { return e.modeToJS(required) })
		res, err := d.clFunc(d.obj, cctx)
		if err != nil {
			return e.callError(d.name, err)
		}
		if m, err = e.modeFromJS(res); err != nil {
			return &Error{Func: d.name, Msg: "changelog: " + err.Error()}
		}
		return nil
	})
	return m, err
}
