package script

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// All conversions between Go row values (runtime/value.go) and JavaScript
// live in this file (docs/design.md §11):
//
//	SQL type                       Go (runtime)     JavaScript
//	BOOLEAN                        bool             boolean
//	TINYINT … BIGINT               int64            number (BigInt beyond ±2^53)
//	FLOAT, DOUBLE                  float64          number
//	DECIMAL(p, s)                  Decimal          number
//	CHAR, VARCHAR, STRING          string           string
//	BINARY, VARBINARY, BYTES       []byte           Uint8Array
//	DATE                           Date             Date (midnight UTC)
//	TIME                           TimeOfDay        number: milliseconds since midnight
//	TIMESTAMP(p)                   LocalDateTime    Date (the wall-clock time read as UTC)
//	TIMESTAMP_LTZ(p)               Instant          Date
//	INTERVAL DAY TO SECOND         Duration         number: milliseconds
//	INTERVAL YEAR TO MONTH         Period           number: months
//	ARRAY<T>                       []any            Array
//	MAP<K, V>                      *Map             Map
//	ROW<...>                       Row              row object
//	DESCRIPTOR                     Descriptor       Array of column names
//	NULL (any type)                nil              null (undefined also converts to NULL)

const maxSafeInt = 1<<53 - 1

// toJS converts a Go value of SQL type t (nil when unknown) to JavaScript.
func (e *realm) toJS(v any, t *types.Type) goja.Value {
	vm := e.vm
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case bool:
		return vm.ToValue(x)
	case int64:
		return e.intToJS(x)
	case int:
		return e.intToJS(int64(x))
	case int32:
		return vm.ToValue(x)
	case float64:
		if t != nil && t.Kind == types.KindFloat {
			// A Java float reaches JavaScript as its double: 0.1 is
			// 0.10000000149011612 in Flink's bridge too.
			return vm.ToValue(float64(float32(x)))
		}
		return vm.ToValue(x)
	case float32:
		return vm.ToValue(float64(x))
	case string:
		return e.str(x)
	case []byte:
		return e.bytesToJS(x)
	case types.Decimal:
		return vm.ToValue(decimalFloat(x))
	case types.Date:
		return e.dateToJS(float64(int64(x) * 86400000))
	case types.TimeOfDay:
		return vm.ToValue(float64(x) / 1e6)
	case types.LocalDateTime:
		return e.dateToJS(float64(x.Millis))
	case types.Instant:
		return e.dateToJS(float64(x.Millis))
	case types.Duration:
		return e.intToJS(int64(x))
	case types.Period:
		return vm.ToValue(int64(x))
	case []any:
		var et *types.Type
		if t != nil && t.Kind == types.KindArray {
			et = t.Elem
		}
		items := make([]any, len(x))
		for i, el := range x {
			items[i] = e.toJS(el, et)
		}
		return vm.NewArray(items...)
	case *types.Map:
		var kt, vt *types.Type
		if t != nil && t.Kind == types.KindMap {
			kt, vt = t.Key, t.Elem
		}
		m, err := vm.New(e.js.mapCtor)
		if err != nil {
			panic(err)
		}
		for i := range x.Keys {
			var val any
			if i < len(x.Values) {
				val = x.Values[i]
			}
			if _, err := e.js.mapSet(m, e.toJS(x.Keys[i], kt), e.toJS(val, vt)); err != nil {
				panic(err)
			}
		}
		return m
	case types.Row:
		return e.newRowObject(e.schemaFor(t, len(x.Fields)), x)
	case types.Descriptor:
		items := make([]any, len(x))
		for i, n := range x {
			items[i] = n
		}
		return vm.NewArray(items...)
	}
	return vm.ToValue(v)
}

func (e *realm) intToJS(i int64) goja.Value {
	if i > maxSafeInt || i < -maxSafeInt {
		return e.vm.ToValue(big.NewInt(i))
	}
	return e.intJS(i)
}

// dateToJS makes a Date of ms. Times repeat (rows of the same minute):
// the number last boxed for the constructor is boxed once, and its
// argument slice is the realm's.
func (e *realm) dateToJS(ms float64) goja.Value {
	if e.dateMsV == nil || ms != e.dateMs {
		e.dateMs, e.dateMsV = ms, e.vm.ToValue(ms)
	}
	e.dateArg[0] = e.dateMsV
	d, err := e.vm.New(e.js.dateCtor, e.dateArg[:]...)
	if err != nil {
		panic(err)
	}
	return d
}

func (e *realm) bytesToJS(b []byte) goja.Value {
	buf := e.vm.NewArrayBuffer(append([]byte(nil), b...))
	u, err := e.vm.New(e.js.u8Ctor, e.vm.ToValue(buf))
	if err != nil {
		panic(err)
	}
	return u
}

// schemaFor returns the row schema of a ROW type, cached by its fields;
// without a ROW type the fields are named f0, f1, ... as Flink names them.
func (e *Engine) schemaFor(t *types.Type, arity int) *rowSchema {
	if t != nil && t.Kind == types.KindRow && len(t.Fields) > 0 {
		key := &t.Fields[0]
		if s, ok := e.schemas[key]; ok && len(s.names) == len(t.Fields) {
			return s
		}
		s := schemaOfType(t)
		if e.schemas == nil {
			e.schemas = map[*types.Field]*rowSchema{}
		}
		e.schemas[key] = s
		return s
	}
	names := make([]string, arity)
	types := make([]types.Type, arity)
	for i := range names {
		names[i] = "f" + strconv.Itoa(i)
	}
	return newRowSchema(names, types)
}

func decimalFloat(d types.Decimal) float64 {
	if d.Unscaled == nil {
		return 0
	}
	f, _ := strconv.ParseFloat(d.Unscaled.String()+"e"+strconv.Itoa(-d.Scale), 64)
	return f
}

// convError is a conversion failure: cannot use <value> [as <type>][: why].
// path names the field, element or entry it happened in, from the outside
// in; the type is shown only inside a path (the caller names the
// outermost type itself).
type convError struct {
	path  []string
	what  string
	typ   string
	why   string
	cause error // a limit the value passed (errors.Is(err, ptf.ErrLimit))
}

func (c *convError) Unwrap() error { return c.cause }

func (c *convError) Error() string {
	var b strings.Builder
	for _, p := range c.path {
		b.WriteString(p + ": ")
	}
	if c.what == "" {
		b.WriteString(c.why)
		return b.String()
	}
	b.WriteString("cannot use " + c.what)
	if len(c.path) > 0 {
		b.WriteString(" as " + c.typ)
	}
	if c.why != "" {
		b.WriteString(": " + c.why)
	}
	return b.String()
}

func (c *convError) in(p string) *convError {
	c.path = append([]string{p}, c.path...)
	return c
}

func cannotUse(v goja.Value, t *types.Type) *convError {
	return &convError{what: describe(v), typ: t.String()}
}

func cannotUseWhy(v goja.Value, t *types.Type, why string) *convError {
	return &convError{what: describe(v), typ: t.String(), why: why}
}

// fromJS converts a JavaScript value to a Go value of SQL type t. It is
// strict: a number is not a string, a fraction is not an integer, and a
// value out of the type's range is an error.
func (e *realm) fromJS(v goja.Value, t *types.Type) (any, *convError) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		if t.NotNull {
			return nil, cannotUse(v, t)
		}
		return nil, nil
	}
	if o, ok := v.(*goja.Object); ok {
		return e.objectFromJS(o, t)
	}
	switch t.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		if v.ExportType() == typeInt { // no Export: it boxes the int64
			i := v.ToInteger()
			lo, hi := t.Kind.IntegerRange()
			if i >= lo && i <= hi {
				return boxInt(i), nil
			}
			return nil, cannotUseWhy(v, t, "out of range")
		}
	case types.KindChar, types.KindVarChar:
		if goja.IsString(v) {
			return e.goString(v), nil
		}
		return nil, cannotUse(v, t) // only a string is one
	}
	x := v.Export()
	switch t.Kind {
	case types.KindBoolean:
		if b, ok := x.(bool); ok {
			return b, nil
		}
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		if i, ok := exactInt(x); ok {
			lo, hi := t.Kind.IntegerRange()
			if i >= lo && i <= hi {
				return i, nil
			}
			return nil, cannotUseWhy(v, t, "out of range")
		}
	case types.KindFloat, types.KindDouble:
		switch n := x.(type) {
		case int64:
			return float64(n), nil
		case float64:
			if t.Kind == types.KindFloat {
				return float64(float32(n)), nil
			}
			return n, nil
		case *big.Int:
			f, _ := new(big.Float).SetInt(n).Float64()
			return f, nil
		}
	case types.KindDecimal:
		if d, ok := decimalFromJS(x, t); ok {
			return d, nil
		}
	case types.KindDate:
		if ms, ok := numberMillis(x); ok {
			return types.Date(floorDiv(ms, 86400000)), nil
		}
		if isNumber(x) {
			return nil, cannotUseWhy(v, t, "epoch milliseconds out of the range of a Date (±8.64e15)")
		}
	case types.KindTime:
		if f, ok := x.(float64); ok && f >= 0 && f < 86400000 {
			return types.TimeOfDay(math.Round(f * 1e6)), nil
		}
		if i, ok := x.(int64); ok && i >= 0 && i < 86400000 {
			return types.TimeOfDay(i * 1e6), nil
		}
	case types.KindTimestamp, types.KindTimestampLTZ:
		// Epoch milliseconds within a JavaScript Date's range (NaN and
		// infinities are not): a larger number would wrap around in Go.
		if f, ok := x.(float64); ok && f >= -maxDateMillis && f <= maxDateMillis {
			ms := math.Floor(f)
			return timeValue(t, int64(ms), int32(math.Round((f-ms)*1e6))), nil
		}
		if i, ok := exactInt(x); ok && i >= -maxDateMillis && i <= maxDateMillis {
			return timeValue(t, i, 0), nil
		}
		if isNumber(x) {
			return nil, cannotUseWhy(v, t, "epoch milliseconds out of the range of a Date (±8.64e15)")
		}
	case types.KindIntervalDayTime:
		if i, ok := exactInt(x); ok {
			return types.Duration(i), nil
		}
	case types.KindIntervalYearMonth:
		if i, ok := exactInt(x); ok && i >= math.MinInt32 && i <= math.MaxInt32 {
			return types.Period(i), nil
		}
	}
	return nil, cannotUse(v, t)
}

// maxDateMillis is the largest epoch milliseconds a JavaScript Date holds
// (100,000,000 days).
const maxDateMillis = 8.64e15

func timeValue(t *types.Type, ms int64, nano int32) any {
	if t.Kind == types.KindTimestamp {
		return types.LocalDateTime{Millis: ms, NanoOfMilli: nano}
	}
	return types.Instant{Millis: ms, NanoOfMilli: nano}
}

// objectFromJS converts a JS object (Date, Array, Map, row, plain object,
// Uint8Array, ...) to a value of type t.
func (e *realm) objectFromJS(o *goja.Object, t *types.Type) (any, *convError) {
	et := o.ExportType()
	switch t.Kind {
	case types.KindDate, types.KindTimestamp, types.KindTimestampLTZ:
		if et == typeTime {
			tm, ok := o.Export().(time.Time)
			if !ok {
				return nil, cannotUseWhy(o, t, "invalid Date")
			}
			ms := tm.UnixMilli()
			if t.Kind == types.KindDate {
				return types.Date(floorDiv(ms, 86400000)), nil
			}
			return timeValue(t, ms, 0), nil
		}
	case types.KindBigInt, types.KindInt, types.KindSmallInt, types.KindTinyInt,
		types.KindDouble, types.KindFloat, types.KindDecimal:
		if et == typeBig { // Object(10n)
			return e.fromJS(e.vm.ToValue(o.Export()), t)
		}
	case types.KindBinary, types.KindVarBinary:
		switch et {
		case typeBytes, typeBuffer:
			var b []byte // the array's own bytes, not a copy
			if et == typeBytes {
				b = o.Export().([]byte)
			} else {
				b = o.Export().(goja.ArrayBuffer).Bytes()
			}
			if int64(len(b)) > e.convBudget() {
				err := e.tooLarge(fmt.Sprintf("%d bytes", len(b)), "use", "")
				return nil, &convError{why: err.Error(), cause: err}
			}
			return append([]byte(nil), b...), nil
		}
	case types.KindArray, types.KindDescriptor:
		if et == typeSlice && o.ClassName() == "Array" {
			elem := t.Elem
			if t.Kind == types.KindDescriptor {
				elem = &types.Type{Kind: types.KindVarChar, Length: types.MaxLength, NotNull: true}
			}
			// A sparse array's length costs goja nothing: check it before
			// Go allocates for every element.
			l := o.Get("length").ToInteger()
			if 16*l > e.convBudget() {
				err := e.tooLarge(fmt.Sprintf("an array of %d elements", l), "use", "")
				return nil, &convError{why: err.Error(), cause: err}
			}
			n := int(l)
			out := make([]any, n)
			for i := 0; i < n; i++ {
				if i&4095 == 4095 && e.stopping.Load() {
					return nil, &convError{why: "the call was interrupted"}
				}
				x, err := e.fromJS(o.Get(index(i)), elem)
				if err != nil {
					return nil, err.in("[" + strconv.Itoa(i) + "]")
				}
				out[i] = x
			}
			if t.Kind == types.KindDescriptor {
				d := make(types.Descriptor, n)
				for i, x := range out {
					d[i] = x.(string)
				}
				return d, nil
			}
			return out, nil
		}
	case types.KindMap:
		return e.mapFromJS(o, et, t)
	case types.KindRow:
		return e.rowFromJS(o, et, t)
	}
	return nil, cannotUse(o, t)
}

func (e *realm) mapFromJS(o *goja.Object, et reflect.Type, t *types.Type) (any, *convError) {
	m := &types.Map{}
	var cerr *convError
	switch {
	case et == typeMap:
		e.forEachEntry(o, func(k, v goja.Value) {
			if cerr != nil {
				return
			}
			kk, err := e.fromJS(k, t.Key)
			if err != nil {
				cerr = err.in("key " + e.formatJS(k))
				return
			}
			vv, err := e.fromJS(v, t.Elem)
			if err != nil {
				cerr = err.in("[" + e.formatJS(k) + "]")
				return
			}
			m.Keys = append(m.Keys, kk)
			m.Values = append(m.Values, vv)
		})
	case o.ClassName() == "Object" && et != typeRow && t.Key.IsString():
		for _, k := range o.Keys() {
			vv, err := e.fromJS(o.Get(k), t.Elem)
			if err != nil {
				return nil, err.in("[" + k + "]")
			}
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, vv)
		}
	default:
		return nil, cannotUse(o, t)
	}
	if cerr != nil {
		return nil, cerr
	}
	return m, nil
}

// rowFromJS converts an object by field name, an array by position, or a
// row object by field name.
func (e *realm) rowFromJS(o *goja.Object, et reflect.Type, t *types.Type) (any, *convError) {
	fields := make([]any, len(t.Fields))
	kind := types.Insert
	switch {
	case et == typeSlice && o.ClassName() == "Array":
		n := int(o.Get("length").ToInteger())
		if n != len(t.Fields) {
			return nil, cannotUseWhy(o, t, fmt.Sprintf("%d values for %d fields", n, len(t.Fields)))
		}
		for i := range t.Fields {
			x, err := e.fromJS(o.Get(index(i)), &t.Fields[i].Type)
			if err != nil {
				return nil, err.in("field " + strconv.Quote(t.Fields[i].Name))
			}
			fields[i] = x
		}
	case et == typeRow || o.ClassName() == "Object":
		if et == typeRow {
			kind = o.Export().(*rowObject).row.Kind
		}
		for i := range t.Fields {
			x, err := e.fromJS(o.Get(t.Fields[i].Name), &t.Fields[i].Type)
			if err != nil {
				return nil, err.in("field " + strconv.Quote(t.Fields[i].Name))
			}
			fields[i] = x
		}
	default:
		return nil, cannotUse(o, t)
	}
	return types.Row{Kind: kind, Fields: fields}, nil
}

// exactInt returns an exported JS number or BigInt as an int64 if it is a
// whole number in int64's range.
func exactInt(x any) (int64, bool) {
	switch n := x.(type) {
	case int64:
		return n, true
	case float64:
		if n == math.Trunc(n) && n >= -9.223372036854775e18 && n <= 9.223372036854775e18 {
			return int64(n), true
		}
	case *big.Int:
		if n.IsInt64() {
			return n.Int64(), true
		}
	}
	return 0, false
}

// isNumber reports whether x is an exported JS number or BigInt.
func isNumber(x any) bool {
	switch x.(type) {
	case int64, float64, *big.Int:
		return true
	}
	return false
}

// numberMillis reads epoch milliseconds from an exported JS number within
// a Date's range (maxDateMillis).
func numberMillis(x any) (int64, bool) {
	switch n := x.(type) {
	case int64:
		return n, n >= -maxDateMillis && n <= maxDateMillis
	case float64:
		if n >= -maxDateMillis && n <= maxDateMillis {
			return int64(math.Floor(n)), true
		}
	}
	return 0, false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// decimalFromJS converts a number, a BigInt or a numeric string to
// DECIMAL(p, s), rounding half up to the scale; false when it does not fit.
func decimalFromJS(x any, t *types.Type) (types.Decimal, bool) {
	var s string
	switch n := x.(type) {
	case int64:
		s = strconv.FormatInt(n, 10)
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return types.Decimal{}, false
		}
		s = strconv.FormatFloat(n, 'f', -1, 64)
	case *big.Int:
		s = n.String()
	case string:
		s = strings.TrimSpace(n)
	default:
		return types.Decimal{}, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return types.Decimal{}, false
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)
	r.Mul(r, new(big.Rat).SetInt(scale))
	// round half away from zero
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if t.Length > 0 && len(new(big.Int).Abs(q).String()) > t.Length {
		return types.Decimal{}, false
	}
	return types.Decimal{Unscaled: q, Scale: t.Scale}, true
}

var indexes = func() []string {
	s := make([]string, 256)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

// index returns the property name of array index i.
func index(i int) string {
	if i < len(indexes) {
		return indexes[i]
	}
	return strconv.Itoa(i)
}
