package script

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// State values are live JS objects between calls; they become bytes only
// at checkpoints. A value is first taken as a node tree (a snapshot that
// belongs to no runtime), which is then written in the binary encoding of
// statecodec_bin.go. The same trees keep a state entry's declared default,
// so that every new key gets a fresh deep copy of it.
//
// The encoding written before the binary one, still read, is one version
// byte (stateVersion) and a JSON value in which plain JSON stands for itself (null, booleans, finite numbers,
// strings, arrays, objects) and tagged objects stand for the rest:
//
//	{"$u":1}                 undefined
//	{"$n":"NaN"}             NaN, Infinity, -Infinity, -0
//	{"$b":"123"}             BigInt
//	{"$d":1735693200000}     Date ({"$d":null}: an invalid Date)
//	{"$y":"AQI="}            Uint8Array (base64)
//	{"$m":[[k,v],...]}       Map
//	{"$s":[...]}             Set
//	{"$k":"UPDATE_AFTER"}    a RowKind
//	{"$r":{"k":0,"t":"T","v":[...]}}  a row object: kind, ROW type (JSON of types.Type), fields
//	{"$o":{...}}             a plain object with a key starting with "$"
//
// Objects keep their key order. Class instances become plain objects (their
// prototype is not kept); functions, symbols and cycles are errors.
const stateVersion = 1

type (
	undefNode struct{}
	numNode   float64 // NaN, ±Inf, -0 (other numbers are float64)
	bigNode   struct{ v *big.Int }
	dateNode  struct {
		ms    float64
		valid bool
	}
	bytesNode []byte
	arrNode   []node
	objNode   struct {
		keys []string
		vals []node
	}
	mapNode  struct{ keys, vals []node }
	setNode  []node
	kindNode types.RowKind
	rowNode  struct {
		kind types.RowKind
		typ  types.Type
		vals []node
	}
)

// node is a snapshot of a JS value: nil, bool, float64, string or one of
// the node types above.
type node any

const maxDepth = 1000

// snapshot takes a JS value as a node tree. The tree may take at most the
// conversion budget (convBudget): a sparse array of 2^32-1 elements costs
// goja nothing, but a node per element would end the process with Go's
// out-of-memory error. Its errors name where in the value they happened:
// "a.b[3]: cannot keep a function in state".
func (e *realm) snapshot(v goja.Value) (node, error) {
	sn := snapper{e: e, onPath: make([]*goja.Object, 0, 8), budget: e.convBudget()}
	return sn.snap(v, 0)
}

type snapper struct {
	e *realm
	// onPath are the objects from the root to the one being taken: a
	// value met again among them is a cycle (a shared one elsewhere is
	// not). A slice, as values are shallow far more often than deep.
	onPath []*goja.Object
	budget int64 // bytes the tree may still take (an estimate)
	steps  int
}

// charge takes n bytes for what (described in the error) from the budget.
func (sn *snapper) charge(n int64, what string) error {
	if n > sn.budget {
		return sn.e.tooLarge(what, "keep", "in state")
	}
	sn.budget -= n
	return nil
}

// chargef is charge with the description made only when it is needed.
func (sn *snapper) chargef(n int64, format string, arg int64) error {
	if n > sn.budget {
		return sn.charge(n, fmt.Sprintf(format, arg))
	}
	sn.budget -= n
	return nil
}

func (sn *snapper) onPathHas(o *goja.Object) bool {
	for _, p := range sn.onPath {
		if p == o {
			return true
		}
	}
	return false
}

// tick counts a step of a loop over a value and reports whether the call
// was interrupted (goja checks interrupts between instructions only, and
// these loops are Go code).
func (sn *snapper) tick() error {
	if sn.steps++; sn.steps&1023 == 0 && sn.e.stopping.Load() {
		return errors.New("interrupted")
	}
	return nil
}

// pathError is an error at a place inside a value: path holds the keys,
// indexes and entries leading to it, innermost first.
type pathError struct {
	path []string
	err  error
}

// maxPathShown is how many outer steps of a path an error shows.
const maxPathShown = 8

func (p *pathError) Error() string {
	var b strings.Builder
	for i := len(p.path) - 1; i >= 0; i-- {
		if len(p.path)-i > maxPathShown {
			b.WriteString("...")
			break
		}
		seg := p.path[i]
		if i < len(p.path)-1 && !strings.HasPrefix(seg, "[") {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String() + ": " + p.err.Error()
}

func (p *pathError) Unwrap() error { return p.err }

// at puts err at step seg of a path (an object key, "[3]").
func at(seg string, err error) error {
	if pe, ok := err.(*pathError); ok {
		pe.path = append(pe.path, seg)
		return pe
	}
	return &pathError{path: []string{seg}, err: err}
}

// pathKey renders an object key as a step of a path.
func pathKey(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}) < 0 {
		return k
	}
	return "[" + strconv.Quote(k) + "]"
}

func (sn *snapper) snap(v goja.Value, depth int) (node, error) {
	e := sn.e
	if depth > maxDepth {
		return nil, fmt.Errorf("cannot keep a value nested deeper than %d levels in state", maxDepth)
	}
	if err := sn.charge(16, "a value"); err != nil {
		return nil, err
	}
	switch {
	case v == nil || goja.IsUndefined(v):
		return undefNode{}, nil
	case goja.IsNull(v):
		return nil, nil
	}
	o, ok := v.(*goja.Object)
	if !ok {
		if _, ok := v.(*goja.Symbol); ok {
			return nil, errors.New("cannot keep a symbol in state")
		}
		if str, ok := v.(goja.String); ok {
			// Charged before Export, which copies a non-ASCII string.
			if err := sn.chargef(2*int64(str.Length()), "a string of %d characters", int64(str.Length())); err != nil {
				return nil, err
			}
		}
		switch x := v.Export().(type) {
		case bool, string:
			return x, nil
		case int64:
			return float64(x), nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) || (x == 0 && math.Signbit(x)) {
				return numNode(x), nil
			}
			return x, nil
		case *big.Int:
			return bigNode{x}, nil
		}
		return nil, fmt.Errorf("cannot keep %s in state", describe(v))
	}
	if sn.onPathHas(o) {
		return nil, errors.New("cannot keep a cyclic value in state")
	}
	if _, ok := goja.AssertFunction(o); ok {
		return nil, errors.New("cannot keep a function in state")
	}
	if k, ok := e.kindOf(o); ok {
		return kindNode(k), nil
	}
	sn.onPath = append(sn.onPath, o)
	defer func() { sn.onPath = sn.onPath[:len(sn.onPath)-1] }()
	child := func(c goja.Value) (node, error) { return sn.snap(c, depth+1) }
	switch et := o.ExportType(); {
	case et == typeTime:
		tm, ok := o.Export().(time.Time)
		if !ok {
			return dateNode{}, nil
		}
		return dateNode{ms: float64(tm.UnixMilli()), valid: true}, nil
	case et == typeBig:
		return bigNode{o.Export().(*big.Int)}, nil
	case et == typeBytes:
		b := o.Export().([]byte) // the array's own bytes, not a copy
		if err := sn.chargef(2*int64(len(b)), "a Uint8Array of %d bytes", int64(len(b))); err != nil {
			return nil, err
		}
		return bytesNode(append([]byte(nil), b...)), nil
	case et == typeRow:
		r := o.Export().(*rowObject)
		n := rowNode{kind: r.row.Kind, typ: types.NewRowType()}
		for i, name := range r.schema.names {
			n.typ.Fields = append(n.typ.Fields, types.Field{Name: name, Type: r.schema.types[i]})
			c, err := child(r.field(i))
			if err != nil {
				return nil, at(pathKey(name), err)
			}
			n.vals = append(n.vals, c)
		}
		return n, nil
	case et == typeMap:
		var n mapNode
		var err error
		e.forEachEntry(o, func(k, v goja.Value) {
			if err != nil {
				return
			}
			if err = sn.tick(); err != nil {
				return
			}
			var kn, vn node
			if kn, err = child(k); err != nil {
				err = at("(a map key)", err)
				return
			}
			if vn, err = child(v); err != nil {
				err = at("["+describeKey(k)+"]", err)
				return
			}
			n.keys, n.vals = append(n.keys, kn), append(n.vals, vn)
		})
		return n, err
	case et == typeSlice && o.ClassName() == "Array":
		l := o.Get("length").ToInteger()
		if err := sn.chargef(16*l, "an array of %d elements", l); err != nil {
			return nil, err
		}
		n := make(arrNode, l)
		for i := range n {
			if err := sn.tick(); err != nil {
				return nil, err
			}
			c, err := child(o.Get(index(i)))
			if err != nil {
				return nil, at("["+strconv.Itoa(i)+"]", err)
			}
			n[i] = c
		}
		return n, nil
	case et == typeSlice:
		var n setNode
		var err error
		e.forEachElem(o, func(v goja.Value) {
			if err != nil {
				return
			}
			if err = sn.tick(); err != nil {
				return
			}
			var c node
			if c, err = child(v); err != nil {
				err = at("(a set element)", err)
			}
			n = append(n, c)
		})
		return n, err
	}
	switch o.ClassName() {
	case "Object", "Error":
	default:
		return nil, fmt.Errorf("cannot keep %s in state", describe(o))
	}
	keys := o.Keys()
	if err := sn.chargef(32*int64(len(keys)), "an object of %d keys", int64(len(keys))); err != nil {
		return nil, err
	}
	n := objNode{keys: keys, vals: make([]node, len(keys))}
	for i, k := range keys {
		if err := sn.tick(); err != nil {
			return nil, err
		}
		c, err := child(o.Get(k))
		if err != nil {
			return nil, at(pathKey(k), err)
		}
		n.vals[i] = c
	}
	return n, nil
}

// describeKey renders a map key in a path: a string quoted, a number as
// it is, an object by its class.
func describeKey(k goja.Value) string {
	if _, ok := k.(*goja.Object); ok || k == nil {
		return describe(k)
	}
	if goja.IsString(k) {
		return strconv.Quote(k.String())
	}
	return k.String()
}

// materialize makes a fresh JS value of a node tree.
func (e *realm) materialize(n node) (goja.Value, error) {
	vm := e.vm
	switch x := n.(type) {
	case nil:
		return goja.Null(), nil
	case undefNode:
		return goja.Undefined(), nil
	case bool:
		return vm.ToValue(x), nil
	case float64:
		return vm.ToValue(x), nil
	case numNode:
		return vm.ToValue(float64(x)), nil
	case string:
		return e.str(x), nil
	case bigNode:
		return vm.ToValue(x.v), nil
	case dateNode:
		ms := math.NaN()
		if x.valid {
			ms = x.ms
		}
		return e.dateToJS(ms), nil
	case bytesNode:
		return e.bytesToJS(x), nil
	case kindNode:
		return e.js.kinds[x&3], nil
	case arrNode:
		items := make([]any, len(x))
		for i, c := range x {
			v, err := e.materialize(c)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return vm.NewArray(items...), nil
	case objNode:
		// Defined, not set: as an object literal or JSON.parse makes them,
		// so that no setter of Object.prototype runs and a "__proto__" key
		// stays a key.
		o := vm.NewObject()
		for i, k := range x.keys {
			v, err := e.materialize(x.vals[i])
			if err != nil {
				return nil, err
			}
			if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		return o, nil
	case mapNode:
		m, err := vm.New(e.js.mapCtor)
		if err != nil {
			return nil, err
		}
		for i := range x.keys {
			k, err := e.materialize(x.keys[i])
			if err != nil {
				return nil, err
			}
			v, err := e.materialize(x.vals[i])
			if err != nil {
				return nil, err
			}
			if _, err := e.js.mapSet(m, k, v); err != nil {
				return nil, err
			}
		}
		return m, nil
	case setNode:
		s, err := vm.New(e.js.setCtor)
		if err != nil {
			return nil, err
		}
		for _, c := range x {
			v, err := e.materialize(c)
			if err != nil {
				return nil, err
			}
			if _, err := e.js.setAdd(s, v); err != nil {
				return nil, err
			}
		}
		return s, nil
	case rowNode:
		fields := make([]any, len(x.vals))
		for i, c := range x.vals {
			v, err := e.materialize(c)
			if err != nil {
				return nil, err
			}
			var ft types.Type
			if i < len(x.typ.Fields) {
				ft = x.typ.Fields[i].Type
			}
			g, cerr := e.fromJS(v, &ft)
			if cerr != nil {
				return nil, cerr
			}
			fields[i] = g
		}
		return e.newRowObject(schemaOfType(&x.typ), types.Row{Kind: x.kind, Fields: fields}), nil
	}
	return nil, fmt.Errorf("script: unknown state node %T", n)
}

// NewState implements [ptf.StateCodec]: a fresh value of state entry i
// for a new key. It is a deep copy of the declared default; without one,
// an object with the fields of the entry's ROW type set to null, or {};
// a list entry starts as [] and a map entry as a new Map.
func (in *instance) NewState(i int) (any, error) {
	if i < 0 || i >= len(in.d.state) {
		return nil, fmt.Errorf("%s: no state entry %d", in.d.name, i)
	}
	e := in.e
	if init := in.d.initial[i]; init.record != nil {
		// Primitives only: no code of the function runs.
		return e.newRecord(init.record, init.def.(objNode), true)
	}
	var v goja.Value
	err := e.guard(in.d.name, in, func() error {
		var err error
		if def := in.d.initial[i].def; def != nil {
			v, err = e.materialize(def)
			return err
		}
		sd := in.d.state[i]
		switch sd.Kind {
		case ptf.ListState:
			v = e.vm.NewArray()
			return nil
		case ptf.MapState:
			v, err = e.vm.New(e.js.mapCtor)
			return err
		}
		o := e.vm.NewObject()
		if sd.Type != nil {
			for _, f := range sd.Type.Fields {
				_ = o.DefineDataProperty(f.Name, goja.Null(), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
			}
		}
		v = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// AppendState implements [ptf.StateCodec].
func (in *instance) AppendState(b []byte, i int, v any) ([]byte, error) {
	if o, ok := v.(*goja.Object); ok && o.ExportType() == typeRecord {
		v = o.Export() // a record's object assigned to the entry
	}
	if r, ok := v.(*record); ok {
		if out, ok := appendRecordBin(append(b, stateBinary), r); ok {
			return out, nil
		}
		if n, ok := in.e.snapRecord(r); ok {
			return appendBin(append(b, stateBinary), n)
		}
		v = r.object(in.e.vm) // a field holds an object: taken as one
	}
	jv, ok := v.(goja.Value)
	if !ok && v != nil {
		return nil, fmt.Errorf("%s: state %s: not a JavaScript value: %T", in.d.name, in.stateName(i), v)
	}
	// Reading the value runs the function's code (a getter, a Proxy trap):
	// as a call, under its limits.
	var n node
	err := in.e.guard(in.d.name, in, func() error {
		var err error
		n, err = in.e.snapshot(jv)
		return err
	})
	if err != nil {
		// Bare: the runtime names the function, the entry and the key.
		return nil, err
	}
	return appendBin(append(b, stateBinary), n)
}

// DescribeState implements [ptf.StateDescriber]: the value as the JSON
// encoding writes it (tagged objects for what JSON lacks), for either
// encoding.
func (in *instance) DescribeState(data []byte) (string, bool) { return describeState(data) }

// DescribeState implements [ptf.StateDescriber] for the state of every
// function the engine loads.
func (e *Engine) DescribeState(data []byte) (string, bool) { return describeState(data) }

func describeState(data []byte) (string, bool) {
	if len(data) == 0 {
		return "", false
	}
	var n node
	var err error
	switch data[0] {
	case stateBinary:
		n, err = decodeBin(data[1:])
	case stateVersion:
		n, err = decodeNode(data[1:])
	default:
		return "", false
	}
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	if err := encodeNode(&b, n); err != nil {
		return "", false
	}
	return b.String(), true
}

// DecodeState implements [ptf.StateCodec].
func (in *instance) DecodeState(i int, data []byte) (any, error) {
	if len(data) > 0 && data[0] == stateBinary && i >= 0 && i < len(in.d.initial) && in.d.initial[i].record != nil {
		if r, ok := in.e.decodeRecordBin(data[1:], in.d.initial[i].record); ok {
			return r, nil
		}
	}
	var n node
	var err error
	switch {
	case len(data) > 0 && data[0] == stateBinary:
		n, err = decodeBin(data[1:])
	case len(data) > 0 && data[0] == stateVersion: // written before the binary encoding
		n, err = decodeNode(data[1:])
	default:
		return nil, fmt.Errorf("%s: state %s: unknown encoding", in.d.name, in.stateName(i))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: state %s: %w", in.d.name, in.stateName(i), err)
	}
	if i >= 0 && i < len(in.d.initial) && in.d.initial[i].record != nil {
		if keys, ok := recordShape(n); ok {
			// A record with the default's fields, in its order, shares
			// the default's keys, as a record made from the default does:
			// it keeps no slice of keys of its own, and is not searched
			// for index keys when it is encoded again.
			if def := in.d.initial[i].record; slices.Equal(keys, def) {
				return in.e.newRecord(def, n.(objNode), true)
			}
			return in.e.newRecord(keys, n.(objNode), false)
		}
	}
	var v goja.Value
	err = in.e.guard(in.d.name, in, func() error {
		var err error
		v, err = in.e.materialize(n)
		return err
	})
	if err != nil {
		return nil, in.stateError(i, err)
	}
	return v, nil
}

// stateError names the state entry in an error of encoding or decoding
// it: an *Error of the function's JavaScript (positioned in its source)
// gets the entry's name in its message, any other error both names.
func (in *instance) stateError(i int, err error) error {
	var se *Error
	if errors.As(err, &se) && se.Func == in.d.name {
		c := *se
		c.Msg = "state " + in.stateName(i) + ": " + se.Msg
		return &c
	}
	return fmt.Errorf("%s: state %s: %w", in.d.name, in.stateName(i), err)
}

func (in *instance) stateName(i int) string {
	if i >= 0 && i < len(in.d.state) {
		return strconv.Quote(in.d.state[i].Name)
	}
	return strconv.Itoa(i)
}
