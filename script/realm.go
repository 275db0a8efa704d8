package script

import (
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
}

// newRealm makes a fresh realm with the Engine's current settings.
func (e *Engine) newRealm() *realm {
	vm := goja.New()
	vm.SetFieldNameMapper(goja.UncapFieldNameMapper())
	rt := &realm{Engine: e, vm: vm}
	rt.strings.init()
	rt.initJS()
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
