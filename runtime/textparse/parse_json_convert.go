package textparse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// ConvertJSON converts a decoded JSON value to the Go value of SQL type t
// (see value.go). It takes what encoding/json produces with UseNumber (nil,
// bool, json.Number, string, []any, map[string]any) and also float64, Go
// integers and []byte. Numbers keep their exact text, so json.Number
// "9007199254740993" is exactly that BIGINT; a float64 is read from its
// shortest text. Conversions are those of the JSON file reader: strings
// are read as Value reads text (base64 for BYTES), numbers give
// integers, floats, decimals, or epoch milliseconds for timestamps; a
// string type takes any value as its JSON text; ROW takes an object (by
// field name) or an array (by position); MAP takes an object, its keys
// converted to the key type, in sorted key order as map[string]any has no
// order, or an array of [key, value] pairs. nil is NULL, an error for a NOT NULL type.
func ConvertJSON(v any, t types.Type, opts Options) (any, error) {
	vp, err := Compile(opts)
	if err != nil {
		return nil, err
	}
	return vp.convert(v, &t, 0)
}

func (vp *Parser) convert(v any, t *types.Type, depth int) (any, error) {
	if depth > MaxJSONDepth {
		return nil, fmt.Errorf("nesting deeper than %d", MaxJSONDepth)
	}
	if v == nil {
		if t.NotNull {
			return nil, fmt.Errorf("null value for %s", t)
		}
		return nil, nil
	}
	switch x := v.(type) {
	case string:
		if t.IsString() {
			return x, nil
		}
		return vp.Parse(x, t)
	case json.Number:
		return vp.convertNumber(string(x), t)
	case float64:
		return vp.convertFloat(x, t)
	case float32:
		return vp.convertFloat(float64(x), t)
	case int:
		return vp.convertNumber(strconv.FormatInt(int64(x), 10), t)
	case int64:
		return vp.convertNumber(strconv.FormatInt(x, 10), t)
	case int32:
		return vp.convertNumber(strconv.FormatInt(int64(x), 10), t)
	case uint64:
		return vp.convertNumber(strconv.FormatUint(x, 10), t)
	case bool:
		switch {
		case t.Kind == types.KindBoolean:
			return x, nil
		case t.IsString():
			return strconv.FormatBool(x), nil
		}
	case []byte:
		if t.Kind == types.KindBinary || t.Kind == types.KindVarBinary {
			return bytes.Clone(x), nil
		}
	case []any:
		return vp.convertSlice(x, t, depth)
	case map[string]any:
		return vp.convertObject(x, t, depth)
	default:
		return nil, fmt.Errorf("cannot convert a Go %T to %s", v, t)
	}
	if t.IsString() {
		return marshalCompact(v), nil
	}
	return nil, fmt.Errorf("cannot parse %s as %s", shortJSON(marshalCompact(v)), t)
}

func (vp *Parser) convertNumber(text string, t *types.Type) (any, error) {
	if t.IsString() {
		return text, nil
	}
	switch t.Kind {
	case types.KindArray, types.KindMap, types.KindRow, types.KindDescriptor, types.KindBoolean:
		return nil, fmt.Errorf("cannot parse %s as %s", text, t)
	}
	return vp.fromNumber([]byte(text), t)
}

func (vp *Parser) convertFloat(f float64, t *types.Type) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if t.Kind == types.KindDouble || t.Kind == types.KindFloat {
			return f, nil
		}
		return nil, fmt.Errorf("cannot parse %v as %s", f, t)
	}
	if t.Kind == types.KindDouble {
		return f, nil
	}
	format := byte('g')
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		format = 'f'
	}
	return vp.convertNumber(strconv.FormatFloat(f, format, -1, 64), t)
}

func (vp *Parser) convertSlice(x []any, t *types.Type, depth int) (any, error) {
	switch t.Kind {
	case types.KindArray, types.KindDescriptor:
		elem := t.Elem
		if t.Kind == types.KindDescriptor {
			elem = &descriptorElem
		}
		out := make([]any, len(x))
		for i, e := range x {
			v, err := vp.convert(e, elem, depth+1)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			out[i] = v
		}
		if t.Kind == types.KindDescriptor {
			d := make(types.Descriptor, len(out))
			for i, v := range out {
				d[i] = v.(string)
			}
			return d, nil
		}
		return out, nil
	case types.KindMap:
		m := &types.Map{Keys: make([]any, len(x)), Values: make([]any, len(x))}
		for i, e := range x {
			pair, ok := e.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("map entry %d: expected a [key, value] pair", i)
			}
			k, err := vp.convert(pair[0], t.Key, depth+1)
			if err != nil {
				return nil, fmt.Errorf("map key %d: %w", i, err)
			}
			v, err := vp.convert(pair[1], t.Elem, depth+1)
			if err != nil {
				return nil, fmt.Errorf("map value %d: %w", i, err)
			}
			m.Keys[i], m.Values[i] = k, v
		}
		return m, nil
	case types.KindRow:
		if len(x) != len(t.Fields) {
			return nil, fmt.Errorf("expected %d fields for %s, found %d", len(t.Fields), t, len(x))
		}
		fields := make([]any, len(x))
		for i, e := range x {
			v, err := vp.convert(e, &t.Fields[i].Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", t.Fields[i].Name, err)
			}
			fields[i] = v
		}
		return types.Row{Kind: types.Insert, Fields: fields}, nil
	}
	if t.IsString() {
		return marshalCompact(x), nil
	}
	return nil, fmt.Errorf("cannot parse %s as %s", shortJSON(marshalCompact(x)), t)
}

func (vp *Parser) convertObject(x map[string]any, t *types.Type, depth int) (any, error) {
	switch t.Kind {
	case types.KindRow:
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			v, err := vp.convert(x[f.Name], &t.Fields[i].Type, depth+1)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.Name, err)
			}
			fields[i] = v
		}
		return types.Row{Kind: types.Insert, Fields: fields}, nil
	case types.KindMap:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := &types.Map{Keys: make([]any, len(keys)), Values: make([]any, len(keys))}
		for i, k := range keys {
			var kv any = k
			if !t.Key.IsString() {
				var err error
				if kv, err = vp.Parse(k, t.Key); err != nil {
					return nil, fmt.Errorf("map key: %w", err)
				}
			}
			v, err := vp.convert(x[k], t.Elem, depth+1)
			if err != nil {
				return nil, fmt.Errorf("map value %q: %w", k, err)
			}
			m.Keys[i], m.Values[i] = kv, v
		}
		return m, nil
	}
	if t.IsString() {
		return marshalCompact(x), nil
	}
	return nil, fmt.Errorf("cannot parse %s as %s", shortJSON(marshalCompact(x)), t)
}

// marshalCompact renders a decoded JSON value as compact JSON text.
func marshalCompact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
