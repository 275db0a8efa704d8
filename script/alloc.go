package script

import (
	"fmt"
	"math"

	"github.com/dop251/goja"
)

// The memory guard samples the heap between instructions; a single
// built-in call that allocates at once ("x".repeat(2 ** 30), a fill of a
// huge sparse array) runs to the end before it can act, and the guard
// cannot make Go give the memory back. The built-ins whose size is known
// from their arguments are checked before they run: one asking for more
// than the memory limit ('ptf.max-memory', or maxConvert without one)
// stops the call with a limit error instead. Others (string
// concatenation, JSON.stringify, Array.prototype.join, typed array
// constructors) are not: their allocation stays the guard's.

// wrapAllocators wraps String.prototype.repeat, padStart and padEnd and
// Array.prototype.fill. It runs when the realm is made.
func (e *realm) wrapAllocators() {
	vm := e.vm
	str := vm.Get("String").ToObject(vm).Get("prototype").ToObject(vm)
	e.checkedMethod(str, "repeat", func(c goja.FunctionCall) (float64, string) {
		n := float64(stringLength(c.This)) * c.Argument(0).ToFloat()
		return 2 * n, fmt.Sprintf("a string of %.0f characters", n)
	})
	for _, m := range []string{"padStart", "padEnd"} {
		e.checkedMethod(str, m, func(c goja.FunctionCall) (float64, string) {
			n := c.Argument(0).ToFloat()
			return 2 * n, fmt.Sprintf("a string of %.0f characters", n)
		})
	}
	arr := vm.Get("Array").ToObject(vm).Get("prototype").ToObject(vm)
	e.checkedMethod(arr, "fill", func(c goja.FunctionCall) (float64, string) {
		o, ok := c.This.(*goja.Object)
		if !ok {
			return 0, ""
		}
		n := o.Get("length").ToFloat()
		return 16 * n, fmt.Sprintf("an array of %.0f elements", n)
	})
}

// checkedMethod replaces method name of proto with one that first asks
// size for the bytes the call would allocate (and what it makes, for the
// error), and stops the function's call when that is more than it may
// have.
func (e *realm) checkedMethod(proto *goja.Object, name string, size func(goja.FunctionCall) (float64, string)) {
	orig, ok := goja.AssertFunction(proto.Get(name))
	if !ok {
		return
	}
	wrapped := e.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if n, what := size(c); !math.IsNaN(n) && n > float64(e.convBudget()) {
			e.interrupt(e.tooLarge(what, "make", ""))
			return goja.Undefined() // the call stops at its next instruction
		}
		res, err := orig(c.This, c.Arguments...)
		if err != nil {
			panic(err)
		}
		return res
	})
	_ = proto.DefineDataProperty(name, wrapped, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

// stringLength is the length of a string this, without converting an
// object (its toString runs in the original method, once).
func stringLength(v goja.Value) int {
	if s, ok := v.(goja.String); ok {
		return s.Length()
	}
	return 1
}
