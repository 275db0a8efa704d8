package script

import (
	"fmt"
	"math"
	"reflect"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/file"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// How a compiled call runs (see compile.go for what compiles): in the
// instance, as goja's call would, with the rows it collects held back
// and its changes to state records logged until it returns; a bail-out
// undoes them and the call runs on goja.

// compiledState is what an instance keeps for its compiled calls.
type compiledState struct {
	slots []goja.Value
	frame cframe      // the call's frame, made once: a call never runs inside another
	rows  []types.Row // collected, not yet handed to the runtime
	arena []any       // their fields
	undo  []undoRec
	// undoVals are the elements of the arrays the call emptied
	// (keepArray), for undo.
	undoVals []goja.Value
	// calls and bails count the compiled calls and those that bailed out;
	// a function that bails out often runs on goja from then on.
	calls, bails int
	off          bool
	lastBail     string
	// pending is the interrupt (a timeout, a cancellation, the memory
	// guard) that stopped a compiled call: goja's run of the call starts
	// interrupted by it, so that the call ends with goja's error.
	pending error
	bailAt  int // the program offset of the loop an interrupt stopped, or -1
	// lastObj is the object of the record read last (asRecord), kept
	// for the call.
	lastObj *goja.Object
	lastRec *record
	// rowObjs are the columns of the call's row that became objects
	// (rowField), by column; rowObjsUsed: some are set.
	rowObjs     []goja.Value
	rowObjsUsed bool
	// lastArr is the array checked last in the call (isArray), and
	// lastPush whether its push is Array.prototype.push: nothing a
	// compiled call does changes either.
	lastArr  *goja.Object
	lastPush bool
	// empties are arrays of state fields known to be empty (keepArray).
	empties emptyArrays
}

// compiledInterrupt is the error of a compiled call interrupted in the
// loop at program offset at, as callError makes it of goja's
// InterruptedError.
func (in *instance) compiledInterrupt(cf *cfunc, intr error, at int) error {
	out := &Error{Func: in.d.name, Msg: types.EscapeControls(intr.Error()), Err: intr}
	gp := file.NewFile(cf.prog, cf.code, 1).Position(at)
	m := in.e.maps[cf.prog]
	if fname, l, col, ok := m.original(gp.Line, gp.Column); ok {
		out.Pos = types.Pos{Filename: fname, Line: l, Column: col}
		out.Line = m.lineText(fname, l)
		out.Stack = "    at " + cf.name + " (" + posString(out.Pos) + ")"
	}
	return out
}

// undoRec undoes a change of a compiled call: field i of record r was
// old, property name of obj was old, or array arr was n elements long
// (emptied: its elements are undoVals[i:i+n]).
type undoRec struct {
	r       *record
	i       int
	old     goja.Value
	obj     *goja.Object
	name    string
	arr     *goja.Object
	n       int64
	emptied bool
}

// maxBailShare: after minCallsForBail calls, a function that bailed
// out of more than one call in maxBailShare runs on goja.
const (
	minCallsForBail = 64
	maxBailShare    = 16
)

// compiledFor returns the compiled form of eval (timer false) or onTimer
// to run for the current call, or nil to run goja's.
func (in *instance) compiledFor(timer bool) *cfunc {
	if in.c.off || in.e.noCompile {
		return nil
	}
	if timer {
		return in.d.cTimer
	}
	return in.d.cEval
}

// runCompiled runs a compiled call; ok is false when it bailed out, and
// nothing of it is left: the caller runs the call on goja.
func (in *instance) runCompiled(ctx *ptf.Context, cf *cfunc, input int, what string) (ok bool, err error) {
	e := in.e
	if err := e.enter(e, in); err != nil {
		return true, &Error{Func: in.d.name, Msg: what + ": " + err.Error(), Err: err}
	}
	in.cur, in.curInput, in.curRow, in.rows = ctx, input, nil, 0
	c := &in.c
	c.calls++
	ok = in.runFrame(cf)
	if !ok && c.bailAt >= 0 && cf.prog != "" {
		if intr := e.interrupted(); intr != nil {
			// Stopped in a loop: the call ends here with the interrupt,
			// as goja's would, keeping what it did and collected so far.
			ok, err = true, in.compiledInterrupt(cf, intr, c.bailAt)
			for _, r := range c.rows {
				if ctx.Collect(r) != nil {
					break
				}
			}
			c.rows = c.rows[:0]
			c.undo = c.undo[:0]
		}
	}
	if ok && len(c.rows) > 0 {
		if ferr := ctx.Collect(c.rows[0]); ferr != nil {
			ok = false // nothing handed over yet: goja's call gives the error
			c.lastBail = "collect: " + ferr.Error()
		} else {
			for _, r := range c.rows[1:] {
				if ferr := ctx.Collect(r); ferr != nil {
					// The runtime took the first row of the call and
					// refuses one of the same kind and width.
					err = &Error{Func: in.d.name, Msg: ferr.Error(), Err: ferr}
					break
				}
			}
		}
	}
	if !ok {
		c.empties.reset() // the undo fills arrays again, and goja runs the call
		c.pending = e.interrupted()
		for i := len(c.undo) - 1; i >= 0; i-- {
			u := c.undo[i]
			if u.obj != nil {
				if err := u.obj.Set(u.name, u.old); err != nil {
					panic(err) // an own data property set back
				}
				continue
			}
			if u.r == nil && u.emptied {
				// The elements go back in order, each at the end.
				for j, x := range c.undoVals[u.i : u.i+int(u.n)] {
					if err := e.protect(func() { u.arr.Set(strconv.Itoa(j), x) }); err != nil {
						panic(err) // an array emptied can always be filled again
					}
				}
				continue
			}
			if u.r == nil {
				if err := e.protect(func() { u.arr.Set("length", e.intJS(u.n)) }); err != nil {
					panic(err) // an array push made can always be cut back
				}
				continue
			}
			u.r.Set(u.r.keys[u.i], u.old)
		}
		c.bails++
		if c.calls >= minCallsForBail && c.bails*maxBailShare > c.calls {
			c.off = true
		}
	}
	// Cleared only where used, and by loops: clear of a slice of one or
	// two elements is a call of the runtime's memclr, per call.
	if len(c.undo) > 0 {
		clear(c.undo)
		c.undo = c.undo[:0]
		clear(c.undoVals)
		c.undoVals = c.undoVals[:0]
	}
	if len(c.rows) > 0 {
		clear(c.rows)
		c.rows = c.rows[:0]
		clear(c.arena)
		c.arena = c.arena[:0]
	}
	if c.rowObjsUsed {
		clear(c.rowObjs)
		c.rowObjsUsed = false
	}
	in.cur, in.curInput, in.curRow = nil, -1, nil
	c.lastObj, c.lastRec, c.lastArr = nil, nil, nil
	for i, v := range in.stateVals {
		if v != nil { // not the clear idiom, whose memclr is a call
			in.stateVals[i] = nil
		}
	}
	// in.stateCleared stays as it was: only ctx.clearState and the like
	// set it, which compiled code does not call.
	e.leave()
	return ok, err
}

func (in *instance) runFrame(cf *cfunc) (ok bool) {
	c := &in.c
	c.bailAt = -1
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case bailout:
				c.lastBail, c.bailAt = x.why, x.at
			case goruntime.Error:
				panic(r) // a bug of the compiler's: fail loudly
			default:
				// goja's own panics (a TypeError a runtime object threw):
				// goja's run of the call throws it where the code is.
				c.lastBail = fmt.Sprint(r)
			}
			ok = false
		}
	}()
	if cap(c.slots) < cf.nslots {
		c.slots = make([]goja.Value, cf.nslots)
	}
	slots := c.slots[:cf.nslots]
	for i := range slots {
		slots[i] = goja.Undefined()
	}
	f := &c.frame
	*f = cframe{in: in, slots: slots}
	for _, b := range cf.stateBinds {
		slots[b.slot] = in.cstate(b.idx)
	}
	for _, b := range cf.argBinds {
		slots[b.slot] = in.argVals[b.idx]
	}
	// The slots keep the call's values until the next call sets them
	// all: clearing them cost more than the few values they hold.
	runBlock(f, cf.body)
	return true
}

// cstate is state entry i's live value, as stateView.Get gives it.
func (in *instance) cstate(i int) goja.Value {
	if v := in.stateVals[i]; v != nil {
		return v
	}
	v, err := in.cur.State(i)
	if err != nil {
		bail("state: " + err.Error())
	}
	var jv goja.Value
	switch x := v.(type) {
	case *record:
		jv = x.object(in.e.vm)
		in.c.lastObj, in.c.lastRec = jv.(*goja.Object), x
	case goja.Value:
		jv = x
	case nil:
		jv = goja.Null()
	default:
		bail("state holds a Go value")
	}
	in.stateVals[i] = jv
	return jv
}

// setField sets field i of a state record, logged for a bail-out. A
// field that already holds v (null, undefined, the same object) is left
// as it is: streak.start = null on most rows of DelayStreak.
func (in *instance) setField(r *record, i int, v goja.Value) {
	old := r.vals[i]
	if sameSingleton(old, v) {
		return
	}
	in.c.undo = append(in.c.undo, undoRec{r: r, i: i, old: old})
	if v == nil {
		v = goja.Undefined()
	}
	r.vals[i] = v
}

// sameSingleton reports whether a and b are the same object, or both
// null or both undefined: values whose replacement by the other no code
// can tell. (Comparing goja values with == would panic on strings of
// UTF-16, which are slices.)
func sameSingleton(a, b goja.Value) bool {
	if o, ok := a.(*goja.Object); ok {
		p, ok := b.(*goja.Object)
		return ok && o == p
	}
	return a != nil && b != nil && (goja.IsNull(a) && goja.IsNull(b) || goja.IsUndefined(a) && goja.IsUndefined(b))
}

// colSite caches the column a row field read found.
type colSite struct {
	schema *rowSchema
	idx    int
}

// rowField is a column of table argument arg's row, as the row object's
// property read gives it.
func (in *instance) rowField(arg int, name string, site *colSite) goja.Value {
	if arg != in.curInput {
		bail("a row that is null")
	}
	s := in.tables[arg]
	if site.schema != s {
		site.schema, site.idx = s, s.lookup(name)
	}
	i := site.idx
	if i < 0 {
		bail("no column " + name)
	}
	row := in.goRow
	if i >= len(row.Fields) {
		return goja.Null()
	}
	switch v := row.Fields[i].(type) {
	case nil:
		return goja.Null()
	case string:
		return in.e.str(v)
	case int64:
		if v >= -maxSafeInt && v <= maxSafeInt {
			return in.e.intJS(v)
		}
	case bool, float64:
		return in.e.vm.ToValue(v)
	}
	// A value that becomes an object (a TIMESTAMP's Date): converted as
	// the row object converts it, once per call, so that it is the same
	// object at every read, as goja's path gives it. No row object is
	// made: compiled code reads the row only by its columns.
	c := &in.c
	if len(c.rowObjs) < len(s.names) {
		c.rowObjs = make([]goja.Value, len(s.names))
	}
	if v := c.rowObjs[i]; v != nil {
		return v
	}
	var t *types.Type
	if i < len(s.types) {
		t = &s.types[i]
	}
	v := in.e.toJS(row.Fields[i], t)
	c.rowObjs[i] = v
	c.rowObjsUsed = true
	return v
}

// collectSite is a ctx.collect({ ... }) of an object literal: its keys,
// and where each goes in the output of the instance that last ran it.
type collectSite struct {
	keys []string
	mu   sync.Mutex
	for_ *instance
	plan []int
}

func (s *collectSite) planFor(in *instance) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.for_ == in {
		return s.plan
	}
	plan := make([]int, len(s.keys))
	if len(s.keys) != len(in.out) || !in.outRow {
		plan = nil
	} else {
		for i, k := range s.keys {
			plan[i] = -1
			for j, col := range in.out {
				if col.Name == k {
					plan[i] = j
				}
			}
			if plan[i] < 0 {
				plan = nil
				break
			}
		}
	}
	s.for_, s.plan = in, plan
	return plan
}

// collectFields is ctx.collect({ k: v, ... }) when the keys are the
// output's columns: each value converts by its column's type, as
// toOutput converts the object's properties.
func (in *instance) collectFields(site *collectSite, vals []cexpr, f *cframe) {
	var buf [8]goja.Value
	vs := buf[:0]
	for _, v := range vals {
		vs = append(vs, v(f))
	}
	in.countCompiled()
	plan := site.planFor(in)
	if plan == nil {
		bail("collect's keys are not the output's columns")
	}
	c := &in.c
	start := len(c.arena)
	for range in.out {
		c.arena = append(c.arena, nil)
	}
	fields := c.arena[start:len(c.arena):len(c.arena)]
	for i, v := range vs {
		if o, isObj := v.(*goja.Object); isObj && !in.plainValue(o) {
			bail("an object in a column")
		}
		col := plan[i]
		x, err := in.e.fromJS(v, &in.out[col].Type)
		if err != nil {
			bail("collect: " + err.Error())
		}
		fields[col] = x
	}
	c.rows = append(c.rows, types.Row{Kind: types.Insert, Fields: fields})
}

// collectValue is ctx.collect(v) of a primitive value.
func (in *instance) collectValue(v goja.Value) {
	in.countCompiled()
	if _, isObj := v.(*goja.Object); isObj {
		bail("collect of an object")
	}
	if err := in.toOutput(v); err != nil {
		bail("collect: " + err.Error())
	}
	c := &in.c
	start := len(c.arena)
	c.arena = append(c.arena, in.outBuf...)
	c.rows = append(c.rows, types.Row{Kind: types.Insert, Fields: c.arena[start:len(c.arena):len(c.arena)]})
}

func (in *instance) countCompiled() {
	in.rows++
	if m := in.e.maxRows; m > 0 && in.rows > m {
		bail("rows per call")
	}
}

// --- values, by goja's rules

// gojaMaxInt bounds the integers goja keeps as integers (its maxInt).
const gojaMaxInt = 1 << 53

var (
	typeBool        = reflect.TypeOf(false)
	typeObject      = reflect.TypeOf(map[string]any(nil)) // a plain object's ExportType
	jsTrue, jsFalse goja.Value
	boolOnce        sync.Once
)

func initBools(vm *goja.Runtime) {
	boolOnce.Do(func() { jsTrue, jsFalse = vm.ToValue(true), vm.ToValue(false) })
}

func boolJS(b bool) goja.Value {
	if b {
		return jsTrue
	}
	return jsFalse
}

// strJS is a string made by a compiled call. One that holds U+FFFD or
// invalid UTF-8 may stand for a lone surrogate, which a Go string cannot
// hold: goja's path makes it.
func (e *realm) strJS(s string) goja.Value {
	if hasRuneError(s) {
		bail("a string with U+FFFD")
	}
	return e.vm.ToValue(s)
}

// hasRuneError is strings.ContainsRune(s, utf8.RuneError), which decodes
// rune by rune (6 % of the instructions of a keyed greeting): invalid
// UTF-8 decodes to U+FFFD, and valid UTF-8 holds it as its three bytes.
func hasRuneError(s string) bool {
	return !utf8.ValidString(s) || strings.Contains(s, "\uFFFD")
}

// primString is ToString of a primitive (a template's substitution, the
// other side of a string +).
func primString(v goja.Value) string {
	if goja.IsString(v) || goja.IsNumber(v) || goja.IsNull(v) || goja.IsUndefined(v) || v.ExportType() == typeBool {
		return v.String()
	}
	bail("ToString of an object, symbol or BigInt")
	return ""
}

// num is a number as goja's arithmetic takes it (toNumeric): an integer
// within ±2^53 other than -0 is an int, anything else a float.
func num(v goja.Value) (i int64, f float64, isInt bool) {
	if !goja.IsNumber(v) {
		bail("arithmetic on a non-number")
	}
	if v.ExportType() == typeInt {
		i = v.ToInteger()
		return i, float64(i), true
	}
	f = v.ToFloat()
	if (f != 0 || !math.Signbit(f)) && !math.IsInf(f, 0) && f == math.Trunc(f) && f >= -gojaMaxInt && f <= gojaMaxInt {
		return int64(f), f, true
	}
	return 0, f, false
}

// numJS is goja's value of an integer (intToValue).
func (e *realm) numJS(i int64) goja.Value { return e.intJS(i) }

// floatJS is goja's value of a float (floatToValue).
func (e *realm) floatJS(f float64) goja.Value { return e.vm.ToValue(f) }

type binFn func(e *realm, a, b goja.Value) goja.Value

func binOp(t interface{ String() string }) binFn {
	switch t.String() {
	case "+", "+=":
		return addJS
	case "-", "-=":
		return func(e *realm, a, b goja.Value) goja.Value {
			ai, af, aInt := num(a)
			bi, bf, bInt := num(b)
			if aInt && bInt {
				return e.numJS(ai - bi)
			}
			return e.floatJS(af - bf)
		}
	case "*", "*=":
		return func(e *realm, a, b goja.Value) goja.Value {
			ai, af, aInt := num(a)
			bi, bf, bInt := num(b)
			if aInt && bInt {
				if ai == 0 && bi == -1 || ai == -1 && bi == 0 {
					return e.floatJS(math.Copysign(0, -1))
				}
				res := ai * bi
				if ai == 0 || bi == 0 || res/ai == bi {
					return e.numJS(res)
				}
			}
			return e.floatJS(af * bf)
		}
	case "/", "/=":
		return func(e *realm, a, b goja.Value) goja.Value {
			_, af, _ := num(a)
			_, bf, _ := num(b)
			return e.floatJS(af / bf)
		}
	case "%", "%=":
		return func(e *realm, a, b goja.Value) goja.Value {
			ai, af, aInt := num(a)
			bi, bf, bInt := num(b)
			if aInt && bInt {
				if bi == 0 {
					return e.floatJS(math.NaN())
				}
				r := ai % bi
				if r == 0 && ai < 0 {
					return e.floatJS(math.Copysign(0, -1))
				}
				return e.numJS(r)
			}
			return e.floatJS(math.Mod(af, bf))
		}
	}
	return nil
}

func isPrim(v goja.Value) bool {
	_, isObj := v.(*goja.Object)
	return !isObj && (goja.IsString(v) || goja.IsNumber(v) || goja.IsNull(v) || goja.IsUndefined(v) || v.ExportType() == typeBool)
}

func addJS(e *realm, a, b goja.Value) goja.Value {
	if goja.IsNumber(a) && goja.IsNumber(b) {
		ai, af, aInt := num(a)
		bi, bf, bInt := num(b)
		if aInt && bInt {
			return e.numJS(ai + bi)
		}
		return e.floatJS(af + bf)
	}
	if (goja.IsString(a) || goja.IsString(b)) && isPrim(a) && isPrim(b) {
		return e.strJS(a.String() + b.String())
	}
	bail("+ of other than numbers and strings")
	return nil
}

func incNum(e *realm, v goja.Value, d int64) goja.Value {
	i, f, isInt := num(v)
	if isInt {
		return e.numJS(i + d)
	}
	return e.floatJS(f + float64(d))
}

func negNum(e *realm, v goja.Value) goja.Value {
	i, f, isInt := num(v)
	if isInt {
		if i == 0 {
			return e.floatJS(math.Copysign(0, -1))
		}
		return e.numJS(-i)
	}
	return e.floatJS(-f)
}

func looseEq(a, b goja.Value) bool {
	_, aObj := a.(*goja.Object)
	_, bObj := b.(*goja.Object)
	switch {
	case aObj && bObj:
		return a.StrictEquals(b)
	case aObj || bObj:
		bail("== of an object and a primitive")
	}
	if !isPrim(a) || !isPrim(b) {
		bail("== of a symbol or BigInt")
	}
	return a.Equals(b)
}

// less is x < y (orEqual false), or x >= y as !(x < y) (orEqual true),
// false when either is NaN, as goja compares numbers and strings.
func less(x, y goja.Value, orEqual bool) bool {
	r, undef := jsLess(x, y)
	if undef {
		return false
	}
	if orEqual {
		return !r
	}
	return r
}

func jsLess(x, y goja.Value) (r, undef bool) {
	if goja.IsString(x) && goja.IsString(y) {
		xs, ys := x.String(), y.String()
		if !isASCII(xs) || !isASCII(ys) {
			bail("comparing non-ASCII strings")
		}
		return xs < ys, false
	}
	xi, xf, xInt := num(x)
	yi, yf, yInt := num(y)
	if xInt && yInt {
		return xi < yi, false
	}
	if math.IsNaN(xf) || math.IsNaN(yf) {
		return false, true
	}
	return xf < yf, false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// plainValue reports whether o converts without running the function's
// code: a Date, or an Array (its elements are its own: arrays made by
// literals, push and state, see compileDecl).
func (in *instance) plainValue(o *goja.Object) bool {
	et := o.ExportType()
	return et == typeTime || in.d.objectsOK && et == typeSlice && o.ClassName() == "Array"
}

// isArray reports whether v is an Array (its ExportType and ClassName,
// as goja's arrays give them), with the answer for the array checked
// last in the call kept.
func (in *instance) isArray(v goja.Value) (*goja.Object, bool) {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil, false
	}
	c := &in.c
	if o == c.lastArr {
		return o, true
	}
	if o.ExportType() != typeSlice || o.ClassName() != "Array" {
		return nil, false
	}
	c.lastArr, c.lastPush = o, false
	return o, true
}

// lengthOf is v.length of an array or an ASCII string.
func (in *instance) lengthOf(v goja.Value) goja.Value {
	e := in.e
	if o, ok := v.(*goja.Object); ok && in.c.empties.has(o) {
		return e.intJS(0)
	}
	if o, ok := in.isArray(v); ok {
		return o.Get("length") // an array's own, not configurable
	}
	if goja.IsString(v) {
		if s := v.String(); isASCII(s) {
			return e.intJS(int64(len(s)))
		}
	}
	bail("length of other than an array or an ASCII string")
	return nil
}

// push is a.push(v) of an array whose push is Array.prototype.push as
// the realm began with it; logged for a bail-out.
func (in *instance) push(a, v goja.Value) goja.Value {
	o, ok := in.isArray(a)
	if !ok {
		bail("push on other than an array")
	}
	e := in.e
	if !in.c.lastPush {
		if !o.Get("push").StrictEquals(e.js.arrayPushV) {
			bail("a push of another than Array.prototype.push")
		}
		in.c.lastPush = true
	}
	in.c.empties.forget(o)
	n := o.Get("length").ToInteger()
	in.c.undo = append(in.c.undo, undoRec{arr: o, n: n})
	// What Array.prototype.push does (its generic_push): [[Set]] of
	// index n, which makes an array n+1 long, then of length, which
	// then changes nothing; without the call of a function.
	if err := o.Set(strconv.FormatInt(n, 10), v); err != nil {
		bail("push: " + err.Error())
	}
	return e.intJS(n + 1)
}
