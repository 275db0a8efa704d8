package script

import (
	"errors"
	"fmt"

	"github.com/dop251/goja"
)

// Scalar functions (kind: "scalar"), Flink's ScalarFunction: typed scalar
// arguments in, one value out, called wherever an expression stands:
//
//	export default {
//	  kind: "scalar",
//	  args: [{ name: "price", type: "DOUBLE" }, { name: "rate", type: "DOUBLE" }],
//	  output: "DOUBLE",
//	  eval(price, rate) { return price === null ? null : price * rate; },
//	};
//
// eval takes the arguments in declared order, NULL as null, and returns
// the result, which converts to the output type as ctx.collect converts a
// value. A call runs under the function's limits (eval timeout, memory,
// call depth) as a PTF's call does; a scalar function has no state, no
// timers and no table arguments.

// parseKind reads kind: "scalar" (or "process-table", the default) and
// checks what a scalar function may declare.
func (d *decl) parseKind(v goja.Value, errAt errAtFunc) error {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	if !goja.IsString(v) {
		return errAt("kind", "kind must be \"scalar\" (a scalar function) or \"process-table\" (a PTF, the default), not %s", jsTypeOf(v))
	}
	switch v.String() {
	case "process-table":
		return nil
	case "scalar":
	default:
		return errAt(v.String(), "kind must be \"scalar\" (a scalar function) or \"process-table\" (a PTF, the default), not %q", v.String())
	}
	d.scalar = true
	switch {
	case d.onTimer != nil:
		return errAt("onTimer", "a scalar function has no timers: drop onTimer, or make it a PTF (no kind)")
	case len(d.state) > 0:
		return errAt("state", "a scalar function keeps no state: drop state, or make it a PTF (no kind)")
	case d.changelog.Mode != "" || d.changelog.Func:
		return errAt("changelog", "a scalar function emits one value, no changelog: drop changelog")
	}
	for _, a := range d.args {
		if a.IsTable() {
			return errAt(a.Name, "a scalar function takes no table arguments: argument %q has table traits", a.Name)
		}
	}
	return nil
}

// newScalar makes the caller of a scalar function for one statement.
//
// The call and the conversion of its result run as one protected call
// (realm.protect): eval is called from it, nested, and its result
// converted in it, so that the result's getters, a Proxy's traps and its
// toString, which are the function's code, run inside the call: what they
// throw is the call's error, positioned in the function's file, and the
// eval timeout and Ctrl-C stop them. A promise job queued by a function
// whose source names no Promise, async, await or then stops the call
// where it is queued, and is dropped (jobTracker), as a PTF's is. One
// that names them is called at the top level, so that its jobs run as the
// call returns, within its limits, before its result is converted.
func (rt *realm) newScalar(d *decl) (func(args []any) (any, error), error) {
	jsArgs := make([]goja.Value, len(d.args))
	var (
		v    goja.Value
		out  any
		cerr *convError
		ferr error
	)
	convert := func() { out, cerr = rt.fromJS(v, &d.output) }
	both := func() {
		if v, ferr = d.eval(d.obj, jsArgs...); ferr == nil {
			convert()
		}
	}
	return func(args []any) (any, error) {
		if len(args) != len(d.args) {
			return nil, fmt.Errorf("%s: %d arguments for %d", d.name, len(args), len(d.args))
		}
		if err := rt.enter(rt, nil); err != nil {
			return nil, &Error{Func: d.name, Msg: err.Error(), Err: err}
		}
		for i := range d.args {
			jsArgs[i] = rt.toJS(args[i], d.args[i].Type)
		}
		out, cerr, ferr = nil, nil, nil
		var err error
		if d.jobs {
			if v, err = d.eval(d.obj, jsArgs...); err == nil {
				err = rt.protect(convert)
			}
		} else {
			rt.batch.noJobs = true
			err = rt.protect(both)
			rt.batch.noJobs = false
			if err == nil {
				err = ferr
			}
		}
		clear(jsArgs)
		v = nil
		if err != nil {
			err = rt.callError(d.name, err)
		}
		rt.leave()
		if err != nil {
			return nil, err
		}
		if cerr != nil {
			return nil, &Error{Func: d.name, Msg: fmt.Sprintf("eval returned a value that is no %s: %v", d.output, cerr), Err: cerr}
		}
		return out, nil
	}, nil
}

// errJobInScalar is the error of a scalar function's call that queued a
// promise job although its source names no Promise, async, await or then.
var errJobInScalar = errors.New("the function queued a promise job through code that names no Promise, async, await or then, " +
	"so the job could only run after its call; write Promise, async or await in the function's own source")
