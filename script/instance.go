package script

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// instance is one call site of a loaded function: [ptf.PTF] and
// [ptf.StateCodec]. The objects eval receives (ctx, state, args) are
// made once per instance and reused for every call; each is a view of the
// current call and must not be used after it returns.
type instance struct {
	e    *realm
	d    *decl
	spec ptf.CallSpec

	cur      *ptf.Context // the current call's context; nil between calls
	curInput int          // declaration index of the table argument being processed, or -1
	curRow   goja.Value   // its row object, made when the function first reads it
	goRow    types.Row    // the row being processed
	inTimer  bool         // the current call is onTimer: scalar arguments are not there

	argVals []goja.Value // scalar arguments, converted once; nil for table arguments
	tables  []*rowSchema // table arguments' row schemas by declaration index

	ctxObj, stateObj, argsObj *goja.Object
	stateVals                 []goja.Value   // state values fetched in the current call
	stateCleared              []bool         // entries the current call cleared (clearState)
	views                     []*goja.Object // list and map view objects by state entry (views.go)

	out      []types.Column // output columns
	outRow   bool           // the output type is a ROW
	outBuf   []any          // reused field slice for collect
	semCache map[int]goja.Value
	timeCtx  *goja.Object
	stop     func() bool
	callArgs [3]goja.Value // ctx, state, args: passed without allocating a slice per call
	rows     int64         // rows collected by the current call
	c        compiledState // compiled calls (compiled.go)
	// typedRows: an entry is typed as a ROW, checked after each call
	// (typedstate.go).
	typedRows bool
}

var (
	_ ptf.PTF        = (*instance)(nil)
	_ ptf.StateCodec = (*instance)(nil)
	_ ptf.Loader     = (*Engine)(nil)
)

func (e *realm) newInstance(d *decl, spec ptf.CallSpec) (*instance, error) {
	in := &instance{e: e, d: d, spec: spec, curInput: -1}
	if spec.Ctx == nil {
		in.spec.Ctx = context.Background()
	}
	in.argVals = make([]goja.Value, len(d.args))
	in.tables = make([]*rowSchema, len(d.args))
	for i, a := range d.args {
		if a.IsTable() {
			switch {
			case a.Type != nil: // a typed table: the declared fields, mapped by position
				in.tables[i] = schemaOfType(a.Type)
			case i < len(spec.Tables):
				in.tables[i] = schemaOfTable(spec.Tables[i])
			default:
				in.tables[i] = newRowSchema(nil, nil)
			}
			continue
		}
		var v any
		if i < len(spec.Args) {
			v = spec.Args[i]
		}
		in.argVals[i] = e.toJS(v, a.Type)
	}
	in.out = spec.Output.Columns
	in.outRow = d.output.Kind == types.KindRow
	if len(in.out) == 0 { // a spec without an output schema: derive it
		if in.outRow {
			in.out = types.SchemaOf(d.output).Columns
		} else {
			in.out = []types.Column{{Name: "EXPR$0", Type: d.output}}
		}
	}
	in.outBuf = make([]any, len(in.out))
	in.stateVals = make([]goja.Value, len(d.state))
	for _, sd := range d.state {
		if sd.Kind == ptf.ValueState && sd.Type != nil && sd.Type.Kind == types.KindRow {
			in.typedRows = true
		}
	}
	in.stateCleared = make([]bool, len(d.state))
	in.argsObj = e.vm.NewDynamicObject(&argsView{in})
	in.stateObj = e.vm.NewDynamicObject(&stateView{in})
	in.ctxObj = in.newCtxObject()
	in.callArgs = [3]goja.Value{in.ctxObj, in.stateObj, in.argsObj}
	eng := e.Engine
	in.stop = context.AfterFunc(in.spec.Ctx, func() {
		eng.mu.Lock()
		defer eng.mu.Unlock()
		if s, ok := eng.claimLocked(0); ok {
			if eng.active == in {
				eng.deliverLocked(errCancelled)
			} else {
				eng.unclaimLocked(s)
			}
		}
	})
	return in, nil
}

// Close releases the instance: its context no longer interrupts the
// runtime. The runtime's operator calls it when the statement ends.
func (in *instance) Close() error {
	if in.stop != nil {
		in.stop()
	}
	return nil
}

// Eval implements [ptf.PTF]: eval(ctx, state, args) with the row as the
// property of the table argument ctx.Input() names.
func (in *instance) Eval(ctx *ptf.Context, row types.Row) error {
	input := ctx.Input()
	if input < 0 || input >= len(in.tables) || in.tables[input] == nil {
		input = -1
	}
	in.goRow = row
	if cf := in.compiledFor(false); cf != nil {
		if ok, err := in.runCompiled(ctx, cf, input, "eval"); ok {
			in.goRow = types.Row{}
			return err
		}
	}
	err := in.call(ctx, in.d.eval, input, "eval")
	in.goRow = types.Row{}
	return err
}

// OnTimer implements [ptf.PTF]: onTimer(ctx, state, args), every table
// argument null, and reading a scalar argument an error: Flink's onTimer
// takes the context and the state entries only ("onTimer( <on timer
// context>? , <state entry>* )", Flink's PTF docs), so a function that
// reads eval's arguments there would not run on Flink. A function
// without onTimer ignores its timers.
func (in *instance) OnTimer(ctx *ptf.Context) error {
	if in.d.onTimer == nil {
		return nil
	}
	in.inTimer = true
	defer func() { in.inTimer = false }()
	if cf := in.compiledFor(true); cf != nil {
		if ok, err := in.runCompiled(ctx, cf, -1, "onTimer"); ok {
			return err
		}
	}
	return in.call(ctx, in.d.onTimer, -1, "onTimer")
}

func (in *instance) call(ctx *ptf.Context, fn goja.Callable, input int, what string) error {
	e := in.e
	if err := e.enter(e, in); err != nil {
		return &Error{Func: in.d.name, Msg: what + ": " + err.Error(), Err: err}
	}
	in.c.empties.reset() // goja's run of the function's code may push
	if p := in.c.pending; p != nil {
		// The compiled call was interrupted (compiled.go): this one stops
		// at its first instruction, with goja's error.
		in.c.pending = nil
		e.interrupt(p)
	}
	in.cur, in.curInput, in.curRow, in.rows = ctx, input, nil, 0
	ret, err := fn(in.d.obj, in.callArgs[:]...)
	if err == nil {
		err = in.settled(ret, what)
	}
	var terr error
	if err == nil && in.typedRows {
		// Typed entries as Flink's conversion takes them (typedstate.go):
		// still within the call, since reading the values may run its code.
		if ex := e.vm.Try(func() { terr = in.checkTypedState() }); ex != nil {
			err = ex
		}
	}
	in.cur, in.curInput, in.curRow = nil, -1, nil
	clear(in.stateVals)
	clear(in.stateCleared)
	if err == nil && terr == nil && e.batch.active && e.batch.jobs {
		// A promise job queued in a batch: stop now (batch.go).
		e.leave()
		return &Error{Func: in.d.name, Msg: what + ": " + errJobInBatch.Error(), Err: ptf.ErrLimit}
	}
	if err != nil {
		// Before leaving: rendering a thrown value runs its toString, which
		// is the function's code and counts against the call's limits.
		err = e.callError(in.d.name, err)
	}
	e.leave()
	if terr != nil {
		return terr
	}
	return err
}

// settled turns what an async eval or onTimer returned into its error:
// its jobs ran when the call returned (goja runs them before a top-level
// call returns), so its promise is settled unless it waits for something
// that never comes. A rejection is the call's error, as a throw is: it
// must not vanish with the promise.
var typePromise = reflect.TypeOf((*goja.Promise)(nil))

func (in *instance) settled(ret goja.Value, what string) error {
	o, ok := ret.(*goja.Object)
	if !ok || o.ExportType() != typePromise { // Export would copy an object
		return nil
	}
	p := o.Export().(*goja.Promise)
	switch p.State() {
	case goja.PromiseStateRejected:
		// Thrown again, so that the error is rendered (and positioned) as
		// any thrown value is.
		_, err := in.e.rethrow(goja.Undefined(), p.Result())
		return err
	case goja.PromiseStatePending:
		return fmt.Errorf("%s returned a promise that did not settle in the call: it awaits something that nothing resolves (ptfsh runs promise jobs before the call ends)", what)
	}
	return nil
}

// enter marks in, running in realm rt, as the running instance, so that
// a cancellation of its context or the eval timeout interrupts it and
// nothing else. in is nil for code that runs for no instance (loading).
//
// A call is entered and left without e.mu (two locks per row were a
// tenth of a compiled call's cost): the goroutine that runs the calls
// alone writes active, activeRT and the run word, and what interrupts a
// call from another goroutine claims it first (claimLocked), which a
// call that is leaving sees and waits for (leave).
func (e *Engine) enter(rt *realm, in *instance) error {
	if e.stopping.Load() {
		e.clearInterrupt() // an interrupt that came after its call: none now
	}
	rt.apply()
	e.active, e.activeRT = in, rt
	if in == nil {
		e.active = &loading
	}
	e.run.Store((e.run.Load()>>runShift+1)<<runShift | runIn)
	// After the run word: a cancellation before it is seen here, one
	// after it interrupts the call.
	if in != nil && in.c.pending == nil && in.spec.Ctx.Err() != nil {
		e.leave()
		return errCancelled
	}
	return nil
}

func (e *Engine) leave() {
	if s := e.run.Load(); s&runClaimed == 0 && e.run.CompareAndSwap(s, s&^runIn) {
		e.active, e.activeRT = nil, nil
		return
	}
	// Claimed: an interrupt is on its way, or arrived (it holds e.mu
	// until it has).
	e.clearInterrupt()
	e.active, e.activeRT = nil, nil
}

// clearInterrupt ends a call's interrupt: the call is left.
func (e *Engine) clearInterrupt() {
	e.mu.Lock()
	if e.activeRT != nil {
		e.activeRT.vm.ClearInterrupt()
	}
	e.intr = nil
	e.stopping.Store(false)
	e.run.Store(e.run.Load() &^ (runIn | runClaimed))
	e.mu.Unlock()
}

// The run word (Engine.run): the sequence number of the last call
// entered, above runShift bits, and whether it runs and whether an
// interrupt claimed it.
const (
	runIn      = 1
	runClaimed = 2
	runShift   = 2
)

// seq is the sequence number of the call running, or of the last one.
func (e *Engine) seq() uint64 { return e.run.Load() >> runShift }

// claimLocked claims the running call for an interrupt: the call of
// sequence number seq, or any when seq is 0. ok is false when no call
// runs, another runs, or an interrupt claimed it already (the first
// wins). A call claimed cannot be left until e.mu is released. e.mu must
// be held.
func (e *Engine) claimLocked(seq uint64) (s uint64, ok bool) {
	for {
		s = e.run.Load()
		if s&runIn == 0 || s&runClaimed != 0 || seq != 0 && s>>runShift != seq {
			return 0, false
		}
		if e.run.CompareAndSwap(s, s|runClaimed) {
			return s, true
		}
	}
}

// unclaimLocked gives a claim back: the call was not the one to stop.
func (e *Engine) unclaimLocked(s uint64) { e.run.CompareAndSwap(s|runClaimed, s) }

// interruptLocked stops the running call with err (which wraps
// [ptf.ErrLimit] or [ptf.ErrInterrupted]): call seq, or any when seq is
// 0. The first interrupt of a call wins: a timeout that fires while a
// cancelled call unwinds does not turn it into a timeout. Go code that
// loops over JavaScript values (conversions, state encoding) polls
// e.stopping, since goja checks for interrupts only between JavaScript
// instructions. e.mu must be held.
func (e *Engine) interruptLocked(seq uint64, err error) {
	if _, ok := e.claimLocked(seq); ok {
		e.deliverLocked(err)
	}
}

// deliverLocked interrupts the call claimed.
func (e *Engine) deliverLocked(err error) {
	e.intr = err
	e.stopping.Store(true)
	e.activeRT.vm.Interrupt(interruptValue{err})
}

// interrupt is interruptLocked for the goroutine that runs the call.
func (e *Engine) interrupt(err error) {
	e.mu.Lock()
	e.interruptLocked(0, err)
	e.mu.Unlock()
}

// interrupted returns the interrupt of the running call, if any.
func (e *Engine) interrupted() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.intr
}

// errCancelled is the error of a call whose statement was cancelled
// (Ctrl-C in the shell).
var errCancelled = fmt.Errorf("%w: the statement was cancelled", ptf.ErrInterrupted)

// loading stands for the top-level code of a function being loaded, so
// that the eval timeout applies to it too.
var loading instance

// argsView is the args object: one property per declared argument.
type argsView struct{ in *instance }

func (a *argsView) Get(key string) goja.Value {
	in := a.in
	for i, arg := range in.d.args {
		if arg.Name != key {
			continue
		}
		if in.tables[i] == nil {
			if in.inTimer && in.cur != nil {
				panic(in.e.vm.NewTypeError("args.%s: onTimer gets no scalar arguments, as on Flink, whose onTimer takes only the context and the state entries; keep what onTimer needs in state in eval (state.x = args.%s)", key, key))
			}
			return in.argVals[i]
		}
		if i == in.curInput {
			// The row object is made on first use: a function that does
			// not read its row costs none.
			if in.curRow == nil {
				in.curRow = in.e.newRowObject(in.tables[i], in.goRow)
			}
			return in.curRow
		}
		return goja.Null()
	}
	return nil
}

func (a *argsView) Set(key string, _ goja.Value) bool {
	panic(a.in.e.vm.NewTypeError("cannot set args.%s: arguments are read-only", key))
}

func (a *argsView) Has(key string) bool {
	for _, arg := range a.in.d.args {
		if arg.Name == key {
			return true
		}
	}
	return false
}

func (a *argsView) Delete(key string) bool {
	panic(a.in.e.vm.NewTypeError("cannot delete args.%s: arguments are read-only", key))
}

func (a *argsView) Keys() []string {
	keys := make([]string, len(a.in.d.args))
	for i, arg := range a.in.d.args {
		keys[i] = arg.Name
	}
	return keys
}

// stateView is the state object: one property per declared state entry,
// the live value of the current key. Assigning a property replaces the
// entry's value (ctx.SetState).
type stateView struct{ in *instance }

func (s *stateView) index(key string) int {
	for i, sd := range s.in.d.state {
		if sd.Name == key {
			return i
		}
	}
	return -1
}

func (s *stateView) Get(key string) goja.Value {
	i := s.index(key)
	if i < 0 {
		return nil
	}
	in := s.in
	if v := in.stateVals[i]; v != nil {
		return v
	}
	if in.cur == nil {
		in.mustCur("state." + key) // throws
	}
	if in.d.state[i].Kind != ptf.ValueState {
		return in.viewObject(i)
	}
	cur := in.cur
	v, err := cur.State(i)
	if err != nil {
		// The state could not be read (a damaged value, a store error): not
		// the function's to catch. The interrupt stops the call with it.
		in.e.interrupt(err)
		panic(in.e.vm.NewGoError(err))
	}
	jv, ok := v.(goja.Value)
	if r, isRecord := v.(*record); isRecord {
		jv, ok = r.object(in.e.vm), true
	}
	if !ok {
		if v != nil {
			panic(in.e.vm.NewGoError(fmt.Errorf("state %q holds a %T, not a JavaScript value", key, v)))
		}
		jv = goja.Null()
	}
	in.stateVals[i] = jv
	return jv
}

func (s *stateView) Set(key string, v goja.Value) bool {
	in := s.in
	i := s.index(key)
	if i < 0 {
		panic(in.e.vm.NewTypeError("cannot set state.%s: no state entry %q is declared (declared: %s)", key, key, strings.Join(in.stateNames(), ", ")))
	}
	if v == nil {
		v = goja.Undefined()
	}
	if in.cur == nil {
		in.mustCur("state." + key) // throws
	}
	if k := in.d.state[i].Kind; k != ptf.ValueState {
		panic(in.e.vm.NewTypeError("cannot set state.%s: it is a %s view; change it with its methods (clear, %s)", key, kindName(k), map[ptf.StateKind]string{ptf.ListState: "add, addAll, setList", ptf.MapState: "put, putAll, setMap"}[k]))
	}
	in.cur.SetState(i, v)
	in.stateVals[i] = v
	return true
}

func (s *stateView) Has(key string) bool { return s.index(key) >= 0 }

func (s *stateView) Delete(key string) bool {
	panic(s.in.e.vm.NewTypeError("cannot delete state.%s: use ctx.clearState(%q)", key, key))
}

func (s *stateView) Keys() []string { return s.in.stateNames() }

func (in *instance) stateNames() []string {
	names := make([]string, len(in.d.state))
	for i, sd := range in.d.state {
		names[i] = sd.Name
	}
	return names
}

// mustCur returns the current call's context, or throws when the function
// uses ctx, state or args after its call returned.
func (in *instance) mustCur(what string) *ptf.Context {
	if in.cur == nil {
		panic(in.e.vm.NewTypeError("%s used outside of a call of eval or onTimer", what))
	}
	return in.cur
}
