package script

import (
	"errors"
	"math/rand"
	"time"

	"github.com/dop251/goja"
)

// realm is one JavaScript realm: a goja runtime, with its own global
// scope and built-ins, and what ptfsh adds to it (RowKind, the row
// prototype, console). Every function an Engine loads gets a realm of its
// own, so that what one function does to its globals or to a built-in
// prototype (Object.prototype, Array.prototype.join) cannot reach
// another, and a function whose load fails leaves nothing behind.
// Instances of one function share its realm.
//
// A realm embeds its Engine: the code of a call reaches the realm's
// runtime (e.vm) and the Engine's limits and bookkeeping through one
// pointer.
type realm struct {
	*Engine
	vm      *goja.Runtime
	js      jsProtos
	strings stringCache

	// The Engine's settings this runtime was last given (applied when a
	// call enters it, see apply).
	seedGen  int
	maxDepth int

	// protectFn is a native function that runs protected, so that Go code
	// calls JavaScript through goja's own call machinery (see protect).
	protectFn goja.Callable
	protected func()

	// The function guard runs and its error (fields, not a closure: guard
	// runs once per key at a checkpoint).
	guarded      func() error
	guardedErr   error
	runGuardedFn func() // rt.runGuarded, bound once

	batch   batcher       // the frame that batches calls (batch.go)
	rethrow goja.Callable // throws its argument (instance.settled)

	// dateToJS's argument, and the time it boxed last.
	dateArg [1]goja.Value
	dateMs  float64
	dateMsV goja.Value
}

func (rt *realm) runGuarded() { rt.guardedErr = rt.guarded() }

// newRealm makes a fresh realm with the Engine's current settings.
func (e *Engine) newRealm() *realm {
	vm := goja.New()
	vm.SetFieldNameMapper(goja.UncapFieldNameMapper())
	initSmallInts(vm)
	rt := &realm{Engine: e, vm: vm}
	rt.strings.init()
	rt.runGuardedFn = rt.runGuarded
	rt.protectFn, _ = goja.AssertFunction(vm.ToValue(func(goja.FunctionCall) goja.Value {
		fn := rt.protected
		rt.protected = nil
		fn()
		return goja.Undefined()
	}))
	rt.initJS()
	rt.initBatch()
	rt.wrapRegExp()
	rt.wrapAllocators()
	if e.opts.Console != nil {
		rt.installConsole(e.opts.Console)
	}
	rt.apply()
	return rt
}

// apply gives the runtime the Engine's current seed and call depth, when
// they changed since it was last given them. The Engine calls it whenever
// JavaScript is about to run in the realm, so that SET 'ptfsh.seed' and
// 'ptf.max-call-depth' reach every function, loaded before or after.
func (rt *realm) apply() {
	e := rt.Engine
	if rt.maxDepth != e.maxDepth {
		rt.maxDepth = e.maxDepth
		rt.vm.SetMaxCallStackSize(e.maxDepth)
	}
	if rt.seedGen != e.seedGen {
		rt.seedGen = e.seedGen
		if e.seed != nil {
			r := rand.New(rand.NewSource(*e.seed))
			rt.vm.SetRandSource(r.Float64)
			rt.vm.SetTimeSource(func() time.Time { return SeededNow })
		}
	}
}

// protect runs fn, Go code that may run the function's JavaScript (a
// getter, a Proxy trap, a toString), as a call of a native function, so
// that what the JavaScript throws, an interrupt (the eval timeout,
// Ctrl-C) and a stack overflow come back as an error (a *goja.Exception,
// *goja.InterruptedError or *goja.StackOverflowError) instead of a Go
// panic that would end the process. protect may be nested.
func (rt *realm) protect(fn func()) error {
	rt.protected = fn
	_, err := rt.protectFn(goja.Undefined())
	return err
}

// guard runs fn on behalf of a function outside its calls of eval and
// onTimer (reading state at a checkpoint, making a default), under the
// limits of a call: fn runs protected, the eval timeout and the memory
// guard watch it, and cancelling the context of instance in (nil for
// none) interrupts it. The error of fn, or of the JavaScript it ran, is
// returned as an *Error of function name. Inside a call of the realm
// (state made or read while eval runs) fn just runs: the call's limits
// already apply.
func (rt *realm) guard(name string, in *instance, fn func() error) error {
	if rt.active != nil { // only this goroutine sets active
		if rt.activeRT == rt {
			return fn()
		}
		// Another function's call is running, under its limits: this
		// one's code runs protected at least.
		var ferr error
		if err := rt.protect(func() { ferr = fn() }); err != nil {
			return rt.callError(name, err)
		}
		return ferr
	}
	if err := rt.enter(rt, in); err != nil {
		return &Error{Func: name, Msg: err.Error(), Err: err}
	}
	rt.guarded, rt.guardedErr = fn, nil
	err := rt.protect(rt.runGuardedFn)
	ferr := rt.guardedErr
	rt.guarded, rt.guardedErr = nil, nil
	if err != nil {
		ferr = rt.callError(name, err)
	} else if ie := rt.interrupted(); ferr != nil && ie != nil && !errors.Is(ferr, ie) {
		// A Go loop saw the interrupt and gave up: report the interrupt.
		ferr = &Error{Func: name, Msg: ie.Error(), Err: ie}
	}
	rt.leave()
	return ferr
}
