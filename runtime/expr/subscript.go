package expr

import (
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// subscript compiles x[i]: the i-th element of an ARRAY (1-based; NULL
// past its end, and an index below 1 an error, as in Flink) or the value
// of a MAP's key i (NULL when the key is absent). The result is nullable.
func subscript(x, i Expr, pos sqlmini.Pos) (Expr, error) {
	t, it := x.Type(), i.Type()
	switch t.Kind {
	case types.KindArray:
		if !it.IsInteger() && !isNull(it) {
			return nil, sqlmini.Errorf(pos, "an ARRAY's subscript is an integer (a[1] is the first element), not %s", it)
		}
		et := t.Elem.Nullable()
		return strict(et, true, []Expr{x, i}, func(v []any) (any, error) {
			a := v[0].([]any)
			n := v[1].(int64)
			if n < 1 {
				return nil, sqlmini.Errorf(pos, "Array element access needs an index starting at 1 but was %d.", n)
			}
			if n > int64(len(a)) {
				return nil, nil
			}
			return a[n-1], nil
		}), nil
	case types.KindMap:
		if t.Multiset {
			return nil, sqlmini.Errorf(pos, "a MULTISET takes no subscript: CARDINALITY counts it, UNNEST reads it")
		}
		kt := *t.Key
		if !isNull(it) && !Comparable(kt, it) {
			return nil, sqlmini.Errorf(pos, "the key of MAP<%s, %s> is %s, not %s", kt, *t.Elem, kt, it)
		}
		vt := t.Elem.Nullable()
		return strict(vt, true, []Expr{x, i}, func(v []any) (any, error) {
			m := v[0].(*types.Map)
			for j, k := range m.Keys {
				if k != nil {
					if CompareValues(k, v[1]) == 0 {
						return m.Values[j], nil
					}
				}
			}
			return nil, nil
		}), nil
	case types.KindNull:
		return &Constant{t: types.Type{Kind: types.KindNull}}, nil
	}
	return nil, sqlmini.Errorf(pos, "only an ARRAY or a MAP takes a subscript ([...]), not %s", t)
}

// compileCardinality is CARDINALITY(collection): the number of elements
// of an ARRAY, of entries of a MAP, of elements of a MULTISET (each as
// often as it counts).
func compileCardinality(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	if t.Kind != types.KindArray && t.Kind != types.KindMap && !isNull(t) {
		return nil, c.errorf("argument 1 must be an ARRAY, a MAP or a MULTISET, not %s (%s)", t, functionIndex["CARDINALITY"].Signature)
	}
	return strict(types.TypeInt.AsNotNull(), !t.NotNull, c.args, func(v []any) (any, error) {
		switch x := v[0].(type) {
		case []any:
			return int64(len(x)), nil
		case *types.Map:
			if !t.Multiset {
				return int64(x.Len()), nil
			}
			var n int64
			for _, m := range x.Values {
				k, _ := m.(int64)
				n += k
			}
			return n, nil
		}
		return nil, nil
	}), nil
}
