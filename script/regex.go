package script

import (
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// Regular expressions. goja runs a pattern on Go's regexp (RE2: linear
// time) when it can, and on dlclark/regexp2, a backtracking engine, when
// the pattern needs one (lookahead, lookbehind, backreferences). A
// backtracking match can take exponential time (/^(?=(a+)+$)/ on
// "aaa…ab"), and goja checks for interrupts only between JavaScript
// instructions, never inside a match: neither the eval timeout nor
// Ctrl-C stopped one.
//
// So every regexp2 match has a deadline, regexMatchTimeout
// (regexp2.DefaultMatchTimeout, set once for the process: regexp2 reads it
// when a pattern is compiled). A match that reaches it ends, and goja
// then answers "no match" (it drops regexp2's timeout error). To keep that
// answer from reaching the function, the realm wraps the methods through
// which JavaScript runs a regular expression (RegExp.prototype.exec, test
// and the Symbol.match, matchAll, replace, search and split methods that
// String.prototype's methods call, and the matchAll iterator's next): a
// call that took the deadline or longer on a backtracking pattern stops
// the function's call with a limit error it cannot catch. A match that
// runs while the call is interrupted (the eval timeout, Ctrl-C) thus ends
// within regexMatchTimeout and the call stops right after it.

// regexMatchTimeout is how long one backtracking match may run. regexp2
// notices its deadline on a clock that ticks every 100 ms and adds a tick
// of slack, so a match ends 0.1 to 0.2 s after it: about a second.
const regexMatchTimeout = 800 * time.Millisecond

// regexTimedOut is how long a call must have taken for the wrappers to
// take its answer for regexp2's timeout: less than regexMatchTimeout, as
// regexp2's clock is read from a goroutine that a loaded machine may run
// late, so that its deadline can fall before regexMatchTimeout has passed
// (a "no match" in 0.75 s once reached a function as an answer).
const regexTimedOut = regexMatchTimeout - 250*time.Millisecond

func init() {
	regexp2.DefaultMatchTimeout = regexMatchTimeout
}

func regexError() error {
	return &limitError{fmt.Sprintf("a regular expression ran longer than %v (catastrophic backtracking?); ptfsh stops one call of a regular expression that needs backtracking (lookahead, lookbehind, backreferences) after %v: simplify the pattern or the input", regexMatchTimeout+200*time.Millisecond, regexMatchTimeout+200*time.Millisecond)}
}

// wrapRegExp wraps the realm's RegExp methods (see above). It runs when
// the realm is made, before any code of the function.
func (e *realm) wrapRegExp() {
	vm := e.vm
	proto := vm.Get("RegExp").ToObject(vm).Get("prototype").ToObject(vm)
	for _, sym := range []*goja.Symbol{goja.SymMatch, goja.SymMatchAll, goja.SymReplace, goja.SymSearch, goja.SymSplit} {
		orig, ok := goja.AssertFunction(proto.GetSymbol(sym))
		if !ok {
			continue
		}
		_ = proto.DefineDataPropertySymbol(sym, e.timedRegExp(orig), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	if orig, ok := goja.AssertFunction(proto.Get("test")); ok {
		_ = proto.DefineDataProperty("test", e.timedRegExp(orig), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	// The iterator matchAll returns runs the matches as next() is called.
	if it, err := vm.RunString(`Object.getPrototypeOf(/(?:)/[Symbol.matchAll](""))`); err == nil {
		if ip, ok := it.(*goja.Object); ok {
			if orig, ok := goja.AssertFunction(ip.Get("next")); ok {
				_ = ip.DefineDataProperty("next", e.timedRegExpIter(orig), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
			}
		}
	}
	// exec last: changing it trips goja's guard on RegExp.prototype, after
	// which every regular-expression operation takes goja's slow path (a
	// JavaScript-level exec call per match, about 20 times slower).
	// keepFastPath puts the guard back.
	if orig, ok := goja.AssertFunction(proto.Get("exec")); ok {
		restore, ok := keepFastPath(proto)
		if ok {
			_ = proto.DefineDataProperty("exec", e.timedRegExp(orig), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
			restore()
		}
		// Without the guard trick (another goja), exec stays goja's own: a
		// backtracking exec that reaches the deadline answers null.
	}
}

// keepFastPath saves the implementation of goja's RegExp.prototype object
// (Object.self: goja's guardedObject), and returns a function that puts it
// back after exec was redefined. The property itself lives in the
// guarded object's embedded baseObject and stays. This reaches into
// goja's unexported fields (of the version go.mod pins): false when they
// are not as expected, and then the caller leaves exec alone.
// TestRegExp_fastPath checks that the fast path survives.
func keepFastPath(proto *goja.Object) (restore func(), ok bool) {
	f := reflect.ValueOf(proto).Elem().FieldByName("self")
	if !f.IsValid() || f.Kind() != reflect.Interface || f.IsNil() {
		return nil, false
	}
	self := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	saved := reflect.New(f.Type()).Elem()
	saved.Set(self)
	if saved.Elem().Type().String() != "*goja.guardedObject" {
		return nil, false
	}
	return func() { self.Set(saved) }, true
}

// timedRegExp wraps a RegExp method: this is the regular expression.
func (e *realm) timedRegExp(orig goja.Callable) goja.Value {
	return e.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		start := time.Now()
		res, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err) // rethrown as it came: an exception, an interrupt
		}
		if time.Since(start) >= regexTimedOut && e.backtracks(c.This) {
			e.interrupt(regexError())
		}
		return res
	})
}

// timedRegExpIter wraps the next method of matchAll's iterator, whose
// regular expression is internal to it: any slow next() counts.
func (e *realm) timedRegExpIter(orig goja.Callable) goja.Value {
	return e.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		start := time.Now()
		res, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err)
		}
		if time.Since(start) >= regexTimedOut {
			e.interrupt(regexError())
		}
		return res
	})
}

// backtracks reports whether goja runs the regular expression rx on its
// backtracking engine: its pattern is not one RE2 takes. It is asked only
// after a slow call.
func (e *realm) backtracks(rx goja.Value) bool {
	o, ok := rx.(*goja.Object)
	if !ok {
		return false
	}
	var source, flags string
	if err := e.protect(func() {
		source, flags = o.Get("source").String(), o.Get("flags").String()
	}); err != nil {
		return true
	}
	dotAll, unicode := false, false
	for _, f := range flags {
		dotAll = dotAll || f == 's'
		unicode = unicode || f == 'u'
	}
	_, err := parser.TransformRegExp(source, dotAll, unicode)
	var incompatible parser.RegexpErrorIncompatible
	return errors.As(err, &incompatible)
}
