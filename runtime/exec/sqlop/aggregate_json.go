package sqlop

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// JSON_ARRAYAGG and JSON_OBJECTAGG, as Flink 2.3 computes them: their
// argument (expr.CompileJSONAggArg) is each row's value as JSON text
// already, nil for NULL, and for JSON_OBJECTAGG ROW(key, text).

// jsonArrayAggAcc is JSON_ARRAYAGG(v): the values in the order they came,
// NULLs as null with NULL ON NULL, else left out; a retraction takes out
// the first equal value. With no value it is [].
type jsonArrayAggAcc struct {
	null bool
	vals []any
}

func (a *jsonArrayAggAcc) Add(v any) {
	if v != nil || a.null {
		a.vals = append(a.vals, v)
	}
}

func (a *jsonArrayAggAcc) Retract(v any) {
	for i, x := range a.vals {
		if x == v {
			a.vals = append(a.vals[:i], a.vals[i+1:]...)
			return
		}
	}
}

func (a *jsonArrayAggAcc) Value() any {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range a.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		if v == nil {
			b.WriteString("null")
		} else {
			b.WriteString(v.(string))
		}
	}
	b.WriteByte(']')
	return b.String()
}

func (a *jsonArrayAggAcc) AppendState(b []byte) ([]byte, error) { return appendValues(b, a.vals) }
func (a *jsonArrayAggAcc) ReadState(b []byte) (rest []byte, err error) {
	a.vals, rest, err = readValues(b)
	return rest, err
}

// jsonObjectAggAcc is JSON_OBJECTAGG(k VALUE v): an object of the pairs,
// sorted by key; a NULL value is null with NULL ON NULL (the default), else
// the pair is left out. A key given again takes the later value (Flink
// fails the query there). A retraction takes the key out.
type jsonObjectAggAcc struct {
	null bool
	keys []string
	vals []any
}

func (a *jsonObjectAggAcc) pair(v any) (string, any, bool) {
	r, ok := v.(types.Row)
	if !ok || len(r.Fields) != 2 {
		return "", nil, false
	}
	k, ok := r.Fields[0].(string)
	return k, r.Fields[1], ok
}

func (a *jsonObjectAggAcc) Add(v any) {
	k, val, ok := a.pair(v)
	if !ok || val == nil && !a.null {
		return
	}
	i := a.find(k)
	if i < len(a.keys) && a.keys[i] == k {
		a.vals[i] = val
		return
	}
	a.keys = append(a.keys[:i], append([]string{k}, a.keys[i:]...)...)
	a.vals = append(a.vals[:i], append([]any{val}, a.vals[i:]...)...)
}

// find is the index of k in the sorted keys, or where it goes.
func (a *jsonObjectAggAcc) find(k string) int {
	i := 0
	for i < len(a.keys) && a.keys[i] < k {
		i++
	}
	return i
}

func (a *jsonObjectAggAcc) Retract(v any) {
	k, _, ok := a.pair(v)
	if !ok {
		return
	}
	if i := a.find(k); i < len(a.keys) && a.keys[i] == k {
		a.keys = append(a.keys[:i], a.keys[i+1:]...)
		a.vals = append(a.vals[:i], a.vals[i+1:]...)
	}
}

func (a *jsonObjectAggAcc) Value() any {
	b := []byte{'{'}
	for i, k := range a.keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = types.AppendJSONString(b, k)
		b = append(b, ':')
		if v := a.vals[i]; v == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, v.(string)...)
		}
	}
	return string(append(b, '}'))
}

func (a *jsonObjectAggAcc) AppendState(b []byte) ([]byte, error) {
	vs := make([]any, 0, 2*len(a.keys))
	for i, k := range a.keys {
		vs = append(vs, k, a.vals[i])
	}
	return appendValues(b, vs)
}

func (a *jsonObjectAggAcc) ReadState(b []byte) ([]byte, error) {
	vs, rest, err := readValues(b)
	if err != nil {
		return nil, err
	}
	a.keys, a.vals = a.keys[:0], a.vals[:0]
	for i := 0; i+1 < len(vs); i += 2 {
		k, _ := vs[i].(string)
		a.keys, a.vals = append(a.keys, k), append(a.vals, vs[i+1])
	}
	return rest, nil
}
