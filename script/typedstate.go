package script

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Typed value state (an entry declared with type: "ROW<...>") is a
// Java Row or POJO on Flink: after each call Flink converts it to its
// declared type, and a field of the wrong type (a string in a BIGINT
// field) or a field the type does not declare fails there. ptfsh keeps the
// JavaScript object as it is, so it checks the same after each call that
// read or set the entry: every own key of the object must be a declared
// field, and every field's value must convert to the field's type as
// ctx.collect converts a column (fromJS; NULL is allowed in every field,
// since a new key starts with all fields null). The exported bridge
// (export/flink) checks the same before it writes the entry back.

// checkTypedState checks the typed value entries that the call read or set
// and did not clear; the error names the entry and the field (the runtime
// adds the call's position and key).
func (in *instance) checkTypedState() error {
	for i, v := range in.stateVals {
		sd := in.d.state[i]
		if v == nil || sd.Kind != ptf.ValueState || sd.Type == nil || sd.Type.Kind != types.KindRow || in.stateCleared[i] {
			continue
		}
		if msg := in.e.typedStateMismatch(v, sd.Type); msg != "" {
			return &Error{Func: in.d.name, Msg: fmt.Sprintf("state %s (%s): %s; Flink converts a typed state entry to its declared type after each call and would fail here", sd.Name, sd.Type, msg)}
		}
	}
	return nil
}

// typedStateMismatch returns why v does not fit the ROW type t as a typed
// state value, "" when it does.
func (e *realm) typedStateMismatch(v goja.Value, t *types.Type) string {
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return "cannot use " + describe(v) + ": the entry holds an object of its fields"
	}
	if o.ExportType() == typeSlice && o.ClassName() == "Array" {
		// An array gives the fields by position, as ctx.collect takes one.
		if _, err := e.fromJS(v, nullableFields(t)); err != nil {
			return err.Error()
		}
		return ""
	}
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	for _, k := range o.Keys() {
		declared := false
		for _, n := range names {
			declared = declared || n == k
		}
		if !declared {
			return fmt.Sprintf("field %s is not declared (the type has %s): declare it in the entry's type, or keep it in another entry", strconv.Quote(k), strings.Join(names, ", "))
		}
	}
	for _, f := range t.Fields {
		ft := f.Type.Nullable()
		if _, err := e.fromJS(o.Get(f.Name), &ft); err != nil {
			return fmt.Sprintf("field %s is %s: %v", strconv.Quote(f.Name), ft, err)
		}
	}
	return ""
}

// nullableFields is the ROW type t with each field nullable.
func nullableFields(t *types.Type) *types.Type {
	c := *t
	c.NotNull = false
	c.Fields = make([]types.Field, len(t.Fields))
	for i, f := range t.Fields {
		f.Type = f.Type.Nullable()
		c.Fields[i] = f
	}
	return &c
}
