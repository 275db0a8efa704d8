package script

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unique"

	"github.com/dop251/goja"
)

// A record is the live value of a value-state entry whose value is a plain
// object of primitive fields, such as { count: 0 } or { count, last_url }:
// most state is. It keeps the fields as Go values (a name and a JavaScript
// primitive each) instead of a goja object per key, which costs about a
// kilobyte and work for the collector for every live key, and it turns
// into bytes and back without running the interpreter (a keyed function
// with more keys than the live cache encodes and decodes state on every
// eviction).
//
// The function sees a record through a goja DynamicObject made on first
// use and kept while the record lives, so the object is the same one at
// every call for the key, as a plain object's would be. It behaves as a
// plain object for what a state object is used for: reading and assigning
// fields (an object or array too), adding and deleting them, enumerating
// them in a plain object's order (index keys in ascending order first, then
// the others in the order they were added), JSON.stringify, spreading,
// Object.keys/entries, `in` and hasOwnProperty. It cannot be frozen, take
// accessors or symbol keys, or change its prototype (goja's TypeError says
// so); no state object the examples or tests use does.
type record struct {
	keys []string
	vals []goja.Value
	// shared is set while keys is the shape of the declared default,
	// shared by every record made from it: copied before a change.
	shared bool
	obj    *goja.Object // the wrapper, once made
	vm     *goja.Runtime
}

var typeRecord = reflect.TypeOf((*record)(nil))

// recordShape is the field names of a default that records can hold: an
// object node whose values are primitives or arrays of them (no
// "__proto__" or index key, whose behaviour a plain object has and a
// record would not). ok is false for any other default.
func recordShape(n node) (keys []string, ok bool) {
	o, isObj := n.(objNode)
	if !isObj {
		return nil, false
	}
	for i, k := range o.keys {
		if k == "__proto__" || isIndexKey(k) || !primitiveNode(o.vals[i]) && !primitiveArray(o.vals[i]) {
			return nil, false
		}
	}
	return o.keys, true
}

// fieldName is the one copy of a field's name that the records of the
// state defaults and the compiled code's reads and writes share: a record
// finds a name among its keys by comparing strings, which is a comparison
// of their addresses when they are the same copy.
func fieldName(s string) string { return unique.Make(s).Value() }

// primitiveArray reports whether n is an array of primitives ([] in
// { start: null, delays: [] }): made anew for each record, with no code
// of the function's run.
func primitiveArray(n node) bool {
	a, ok := n.(arrNode)
	if !ok {
		return false
	}
	for _, x := range a {
		if !primitiveNode(x) {
			return false
		}
	}
	return true
}

func primitiveNode(n node) bool {
	switch n.(type) {
	case nil, undefNode, bool, float64, numNode, string:
		return true
	}
	return false
}

// newRecord makes a record of an object node that recordShape accepted,
// sharing keys (the default's shape) until a field is added or deleted.
func (e *realm) newRecord(keys []string, o objNode, shared bool) (*record, error) {
	r := &record{keys: keys, vals: make([]goja.Value, len(o.vals)), shared: shared}
	for i, c := range o.vals {
		v, err := e.materialize(c)
		if err != nil {
			return nil, err
		}
		r.vals[i] = v
	}
	return r, nil
}

// object returns the record's JavaScript object in vm.
func (r *record) object(vm *goja.Runtime) *goja.Object {
	if r.obj == nil || r.vm != vm {
		r.obj, r.vm = vm.NewDynamicObject(r), vm
	}
	return r.obj
}

func (r *record) index(key string) int {
	for i, k := range r.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (r *record) own() {
	if r.shared {
		r.keys = slices.Clone(r.keys)
		r.shared = false
	}
}

// Get implements goja.DynamicObject: nil for a missing field, so that the
// lookup goes on to Object.prototype.
func (r *record) Get(key string) goja.Value {
	if i := r.index(key); i >= 0 {
		return r.vals[i]
	}
	return nil
}

// Set implements goja.DynamicObject.
func (r *record) Set(key string, v goja.Value) bool {
	if v == nil {
		v = goja.Undefined()
	}
	if i := r.index(key); i >= 0 {
		r.vals[i] = v
		return true
	}
	r.own()
	r.keys = append(r.keys, key)
	r.vals = append(r.vals, v)
	return true
}

// Has implements goja.DynamicObject.
func (r *record) Has(key string) bool { return r.index(key) >= 0 }

// Delete implements goja.DynamicObject.
func (r *record) Delete(key string) bool {
	i := r.index(key)
	if i < 0 {
		return true
	}
	r.own()
	r.keys = slices.Delete(r.keys, i, i+1)
	r.vals = slices.Delete(r.vals, i, i+1)
	return true
}

// Keys implements goja.DynamicObject: a fresh slice in a plain object's
// order (a loop that adds or deletes fields must not see it change).
func (r *record) Keys() []string {
	keys := slices.Clone(r.keys)
	r.orderKeys(keys, nil)
	return keys
}

// orderKeys puts index keys first, ascending, as a plain object orders
// its own keys; vals, if not nil, moves with keys.
func (r *record) orderKeys(keys []string, vals []goja.Value) {
	n := 0
	for _, k := range keys {
		if isIndexKey(k) {
			n++
		}
	}
	if n == 0 {
		return
	}
	type kv struct {
		k string
		v goja.Value
	}
	all := make([]kv, len(keys))
	for i, k := range keys {
		all[i].k = k
		if vals != nil {
			all[i].v = vals[i]
		}
	}
	slices.SortStableFunc(all, func(a, b kv) int {
		ai, bi := isIndexKey(a.k), isIndexKey(b.k)
		switch {
		case ai && bi:
			x, _ := strconv.ParseUint(a.k, 10, 32)
			y, _ := strconv.ParseUint(b.k, 10, 32)
			return int(int64(x) - int64(y))
		case ai:
			return -1
		case bi:
			return 1
		}
		return 0
	})
	for i := range all {
		keys[i] = all[i].k
		if vals != nil {
			vals[i] = all[i].v
		}
	}
}

// isIndexKey reports whether k is an array index as ECMAScript orders
// them: a canonical decimal below 2^32-1.
func isIndexKey(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	var n uint64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + uint64(c-'0')
	}
	return n < 1<<32-1
}

// Limits of appendRecordBin: a record with more fields or a longer
// string goes through snapRecord, which charges the conversion budget.
const (
	fastRecordFields = 64
	fastRecordString = 1 << 10 // characters
)

// appendRecordBin appends to b what appendBin writes for snapRecord's node
// of r, without the node: when every field holds a number, a boolean, null,
// undefined or a short string, and no key is an index (whose order a
// plain object changes). ok is false otherwise, and b is then unchanged.
// A checkpoint of B with 100k keys spent 0.2 s building nodes that it then
// threw away.
func appendRecordBin(b []byte, r *record) (out []byte, ok bool) {
	if len(r.keys) > fastRecordFields || (!r.shared && slices.ContainsFunc(r.keys, isIndexKey)) {
		return b, false
	}
	start := len(b)
	b = binary.AppendUvarint(append(b, binObject), uint64(len(r.keys)))
	for i, k := range r.keys {
		b = appendBinString(b, k)
		switch v := r.vals[i]; {
		case v == nil || goja.IsUndefined(v):
			b = append(b, binUndef)
		case goja.IsNull(v):
			b = append(b, binNull)
		case goja.IsNumber(v):
			b = appendBinNumber(b, v.ToFloat())
		case goja.IsString(v):
			s := v.(goja.String)
			if s.Length() > fastRecordString {
				return b[:start], false
			}
			b = appendBinString(append(b, binString), s.String())
		default:
			if _, isObj := v.(*goja.Object); isObj {
				// Export would read its properties: getters and Proxy
				// traps run the function's code, under its limits only
				// through snapRecord's fallback.
				return b[:start], false
			}
			x, isBool := v.Export().(bool) // a symbol or a BigInt is not
			if !isBool {
				return b[:start], false
			}
			b = append(b, binFalse)
			if x {
				b[len(b)-1] = binTrue
			}
		}
	}
	return b, true
}

// decodeRecordBin is decodeBin and newRecord in one, for the encoding
// appendRecordBin writes: an object with exactly the fields of keys (the
// declared default's), in their order, each a primitive. It makes the
// values materialize would make from the node, without the node: a key
// evicted from the live cache and used again is decoded this way. ok is
// false for anything else, which the caller decodes the general way.
func (e *realm) decodeRecordBin(data []byte, keys []string) (r *record, ok bool) {
	if len(data) == 0 || data[0] != binObject {
		return nil, false
	}
	p := 1
	n, w := binary.Uvarint(data[p:])
	if w <= 0 || n != uint64(len(keys)) {
		return nil, false
	}
	p += w
	vals := make([]goja.Value, len(keys))
	for i, k := range keys {
		l, w := binary.Uvarint(data[p:])
		if w <= 0 || l != uint64(len(k)) || len(data)-p-w < len(k)+1 || string(data[p+w:p+w+len(k)]) != k {
			return nil, false
		}
		p += w + len(k)
		tag := data[p]
		p++
		switch tag {
		case binNull:
			vals[i] = goja.Null()
		case binUndef:
			vals[i] = goja.Undefined()
		case binFalse:
			vals[i] = e.vm.ToValue(false)
		case binTrue:
			vals[i] = e.vm.ToValue(true)
		case binInt:
			v, w := binary.Varint(data[p:])
			if w <= 0 || v > maxExact || v < -maxExact {
				return nil, false
			}
			p += w
			vals[i] = e.intJS(v)
		case binFloat:
			if len(data)-p < 8 {
				return nil, false
			}
			vals[i] = e.vm.ToValue(math.Float64frombits(binary.LittleEndian.Uint64(data[p:])))
			p += 8
		case binString:
			l, w := binary.Uvarint(data[p:])
			if w <= 0 || l > uint64(len(data)-p-w) {
				return nil, false
			}
			p += w
			vals[i] = e.strBytes(data[p : p+int(l)])
			p += int(l)
		default:
			return nil, false
		}
	}
	if p != len(data) {
		return nil, false
	}
	return &record{keys: keys, vals: vals, shared: true}, true
}

// snapRecord takes the record as an object node without running the
// interpreter, when every field holds a primitive; ok is false when one
// holds an object (or a value the snapshot refuses), which the caller then
// takes through the record's object under the function's limits.
func (e *realm) snapRecord(r *record) (n node, ok bool) {
	sn := snapper{e: e, budget: e.convBudget()}
	keys, vals := r.keys, r.vals
	if slices.ContainsFunc(keys, isIndexKey) {
		keys, vals = slices.Clone(keys), slices.Clone(vals)
		r.orderKeys(keys, vals)
	}
	o := objNode{keys: keys, vals: make([]node, len(vals))}
	for i, v := range vals {
		if _, isObj := v.(*goja.Object); isObj {
			return nil, false
		}
		c, err := sn.snap(v, 1)
		if err != nil {
			return nil, false
		}
		o.vals[i] = c
	}
	return o, true
}
