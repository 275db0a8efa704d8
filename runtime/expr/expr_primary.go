package expr

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

func compilePrimary(p *sqlmini.Primary, sc *Scope) (Expr, error) {
	switch {
	case p.Number != nil:
		return literalNumber(p.Pos, *p.Number)
	case p.String != nil:
		s := string(*p.String)
		return &Constant{v: s, t: types.Type{Kind: types.KindChar, Length: max(len([]rune(s)), 1), NotNull: true}}, nil
	case p.Hex != nil:
		// X'0A0B' is a BINARY(2) NOT NULL, as in Flink.
		b := []byte(*p.Hex)
		return &Constant{v: b, t: types.Type{Kind: types.KindBinary, Length: max(len(b), 1), NotNull: true}}, nil
	case p.True, p.False:
		return &Constant{v: p.True, t: types.TypeBoolean.AsNotNull()}, nil
	case p.Null:
		return &Constant{}, nil
	case p.Interval != nil:
		return intervalLiteral(p.Interval)
	case p.Typed != nil:
		return typedLiteral(p.Typed)
	case p.Case != nil:
		return compileCase(p.Case, sc)
	case p.Cast != nil:
		return compileCast(p.Cast, sc)
	case p.Exists != nil:
		return nil, sqlmini.Errorf(p.Pos, "EXISTS (SELECT ...) is only supported as a condition of WHERE, alone or joined to the others by AND")
	case p.Paren != nil && len(p.RowTail) > 0:
		// (a, b) is ROW(a, b).
		return rowConstructor(append([]*sqlmini.Expr{p.Paren}, p.RowTail...), sc)
	case p.Row != nil:
		return rowConstructor(p.Row.Elems, sc)
	case p.Array != nil:
		elems, err := compileList(p.Array.Elems, sc)
		if err != nil {
			return nil, err
		}
		et := commonType(elems)
		t := types.ArrayOf(et)
		t.NotNull = true
		return &funcExpr{t: t, konst: allConstant(elems...), f: func(row []any) (any, error) {
			vals, err := evalList(elems, row)
			if err != nil {
				return nil, err
			}
			for i := range vals {
				if vals[i], err = CastValue(vals[i], et); err != nil {
					return nil, err
				}
			}
			return vals, nil
		}}, nil
	case p.Map != nil:
		elems, err := compileList(p.Map.Elems, sc)
		if err != nil {
			return nil, err
		}
		if len(elems)%2 != 0 {
			return nil, sqlmini.Errorf(p.Pos, "MAP[...] needs key, value pairs: got %d values", len(elems))
		}
		var keys, vals []Expr
		for i := 0; i < len(elems); i += 2 {
			keys = append(keys, elems[i])
			vals = append(vals, elems[i+1])
		}
		kt, vt := commonType(keys), commonType(vals)
		t := types.MapOf(kt, vt)
		t.NotNull = true
		return &funcExpr{t: t, konst: allConstant(elems...), f: func(row []any) (any, error) {
			m := &types.Map{}
			for i := range keys {
				k, err := keys[i].Eval(row)
				if err != nil {
					return nil, err
				}
				v, err := vals[i].Eval(row)
				if err != nil {
					return nil, err
				}
				if k, err = CastValue(k, kt); err != nil {
					return nil, err
				}
				if v, err = CastValue(v, vt); err != nil {
					return nil, err
				}
				m.Keys = append(m.Keys, k)
				m.Values = append(m.Values, v)
			}
			return m, nil
		}}, nil
	case p.IsDesc:
		d := make(types.Descriptor, len(p.Descriptor))
		for i, n := range p.Descriptor {
			d[i] = string(n.Value)
		}
		return &Constant{v: d, t: types.TypeDescriptor.AsNotNull()}, nil
	case p.Func != nil:
		return compileFunc(p.Func, sc)
	case p.Column != nil && sc == nil && len(p.Column.Parts) == 1 && niladic(string(p.Column.Parts[0].Value)):
		return compileFunc(&sqlmini.FuncCall{Pos: p.Pos, Name: p.Column.Parts[0]}, sc)
	case p.Column != nil:
		if sc == nil {
			return nil, sqlmini.Errorf(p.Pos, "column %s cannot be used here: a constant is expected", JoinNames(p.Column.Parts))
		}
		if len(p.Column.Parts) == 1 && niladic(string(p.Column.Parts[0].Value)) && sc.Schema.Index(string(p.Column.Parts[0].Value)) < 0 {
			// CURRENT_TIMESTAMP and the like, unless a column has the name.
			return compileFunc(&sqlmini.FuncCall{Pos: p.Pos, Name: p.Column.Parts[0]}, sc)
		}
		i, err := sc.Lookup(p.Column)
		if err != nil {
			if x, ok, ferr := fieldAccess(p.Column, sc); ok {
				return x, ferr
			}
			return nil, err
		}
		return &Column{Index: i, T: sc.Schema.Columns[i].Type}, nil
	case p.Paren != nil:
		return Compile(p.Paren, sc)
	}
	return nil, sqlmini.Errorf(p.Pos, "unsupported expression")
}

// rowConstructor compiles ROW(a, b, ...) and the implicit row (a, b, ...):
// a ROW NOT NULL whose fields are named EXPR$0, EXPR$1, ... as in Flink.
func rowConstructor(es []*sqlmini.Expr, sc *Scope) (Expr, error) {
	elems, err := compileList(es, sc)
	if err != nil {
		return nil, err
	}
	fields := make([]types.Field, len(elems))
	for i, e := range elems {
		fields[i] = types.Field{Name: "EXPR$" + strconv.Itoa(i), Type: e.Type()}
	}
	t := types.NewRowType(fields...)
	t.NotNull = true
	return &funcExpr{t: t, konst: allConstant(elems...), f: func(row []any) (any, error) {
		vals, err := evalList(elems, row)
		if err != nil {
			return nil, err
		}
		return types.Row{Kind: types.Insert, Fields: vals}, nil
	}}, nil
}

// fieldAccess compiles a column reference whose first parts name a ROW
// column and whose last parts its fields (nested ones too): r.f, t.r.f,
// r.inner.f. ok is false when no prefix of the parts names a ROW column;
// the reference is then no field access.
func fieldAccess(ref *sqlmini.ColumnRef, sc *Scope) (Expr, bool, error) {
	for k := len(ref.Parts) - 1; k >= 1; k-- {
		i, err := sc.Lookup(&sqlmini.ColumnRef{Pos: ref.Pos, Parts: ref.Parts[:k]})
		if err != nil || sc.Schema.Columns[i].Type.Kind != types.KindRow {
			continue
		}
		var x Expr = &Column{Index: i, T: sc.Schema.Columns[i].Type}
		for _, part := range ref.Parts[k:] {
			t := x.Type()
			if t.Kind != types.KindRow {
				return nil, true, sqlmini.Errorf(part.Pos, "%s is %s, which has no fields: '%s' cannot be read from it", JoinNames(ref.Parts[:k]), t, part.Value)
			}
			f := -1
			for j, fd := range t.Fields {
				if fd.Name == string(part.Value) {
					f = j
					break
				}
			}
			if f < 0 {
				names := make([]string, len(t.Fields))
				for j, fd := range t.Fields {
					names[j] = fd.Name
				}
				return nil, true, sqlmini.Errorf(part.Pos, "field '%s' not found in %s; its fields are [%s]", part.Value, t, strings.Join(names, ", "))
			}
			x = fieldOf(x, f)
			k++
		}
		return x, true, nil
	}
	return nil, false, nil
}

// fieldOf reads field f of a ROW value: NULL when the row is NULL, so the
// field of a nullable row is nullable.
func fieldOf(x Expr, f int) Expr {
	rt := x.Type()
	t := rt.Fields[f].Type
	if !rt.NotNull {
		t = t.Nullable()
	}
	return &funcExpr{t: t, konst: x.IsConstant(), f: func(row []any) (any, error) {
		v, err := x.Eval(row)
		if v == nil || err != nil {
			return nil, err
		}
		r, ok := v.(types.Row)
		if !ok || f >= len(r.Fields) {
			return nil, nil
		}
		return r.Fields[f], nil
	}}
}

func compileList(es []*sqlmini.Expr, sc *Scope) ([]Expr, error) {
	out := make([]Expr, len(es))
	for i, e := range es {
		x, err := Compile(e, sc)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func evalList(es []Expr, row []any) ([]any, error) {
	vals := make([]any, len(es))
	for i, e := range es {
		v, err := e.Eval(row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// commonType is the least restrictive type of a list of expressions.
func commonType(es []Expr) types.Type {
	var ts []types.Type
	for _, e := range es {
		ts = append(ts, e.Type())
	}
	return LeastRestrictive(ts)
}

// LeastRestrictive finds the type all of ts convert to, as Flink does for
// VALUES columns and constructors: strings of one length stay CHAR(n),
// of different lengths become VARCHAR(max); numbers widen; a NULL makes the
// result nullable.
func LeastRestrictive(ts []types.Type) types.Type {
	var out types.Type
	first := true
	notNull := true
	for _, t := range ts {
		if t.Kind == types.KindNull {
			notNull = false
			continue
		}
		notNull = notNull && t.NotNull
		if first {
			out, first = t, false
			continue
		}
		switch {
		case out.IsString() && t.IsString():
			if out.Kind != t.Kind || out.Length != t.Length {
				out = types.Type{Kind: types.KindVarChar, Length: max(out.Length, t.Length)}
			}
		case out.IsNumeric() && t.IsNumeric():
			if out.Kind != t.Kind || out.Kind == types.KindDecimal {
				out = widerNumeric(out, t)
			}
		case out.Kind == t.Kind && (out.IsTime() || out.Kind == types.KindTime):
			out.Length = max(out.Length, t.Length)
		}
	}
	if first {
		return types.Type{} // all NULL
	}
	out.NotNull = notNull
	return out
}

// intervalLiteral evaluates INTERVAL '5' MINUTE and friends.
func intervalLiteral(iv *sqlmini.Interval) (Expr, error) {
	unit := types.SingularUnit(iv.Unit)
	text := strings.TrimSpace(string(iv.Value))
	neg := iv.Minus
	if strings.HasPrefix(text, "-") {
		neg = !neg
		text = text[1:]
	}
	bad := func() (Expr, error) {
		return nil, sqlmini.Errorf(iv.Pos, "invalid interval literal '%s' %s", iv.Value, iv.Unit)
	}
	switch unit {
	case "YEAR", "MONTH":
		var months int64
		if iv.To != "" { // '1-2' YEAR TO MONTH
			y, m, ok := strings.Cut(text, "-")
			yi, err1 := strconv.ParseInt(y, 10, 32)
			mi, err2 := strconv.ParseInt(m, 10, 32)
			if !ok || err1 != nil || err2 != nil {
				return bad()
			}
			months = yi*12 + mi
		} else {
			n, err := strconv.ParseInt(text, 10, 32)
			if err != nil {
				return bad()
			}
			months = n
			if unit == "YEAR" {
				months *= 12
			}
		}
		if neg {
			months = -months
		}
		return &Constant{v: types.Period(months), t: types.Type{Kind: types.KindIntervalYearMonth, NotNull: true}}, nil
	}
	unitMillis := map[string]float64{"DAY": 86400000, "HOUR": 3600000, "MINUTE": 60000, "SECOND": 1000}
	var ms float64
	if iv.To != "" {
		// '1 02:03:04.5' DAY TO SECOND, '02:03' HOUR TO MINUTE, ...
		parts := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ':' })
		units := []string{"DAY", "HOUR", "MINUTE", "SECOND"}
		start := -1
		for i, u := range units {
			if u == unit {
				start = i
			}
		}
		if start < 0 || len(parts) > len(units)-start {
			return bad()
		}
		for i, p := range parts {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return bad()
			}
			ms += f * unitMillis[units[start+i]]
		}
	} else {
		f, err := strconv.ParseFloat(text, 64)
		m, ok := unitMillis[unit]
		if err != nil || !ok {
			return bad()
		}
		ms = f * m
	}
	if neg {
		ms = -ms
	}
	return &Constant{v: types.Duration(int64(ms + 0.5*sign(ms))), t: types.Type{Kind: types.KindIntervalDayTime, NotNull: true}}, nil
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// typedLiteral evaluates TIMESTAMP '...', DATE '...' and TIME '...'.
func typedLiteral(tl *sqlmini.TypedLiteral) (Expr, error) {
	text := string(tl.Value)
	var t types.Type
	if strings.EqualFold(tl.Type, "DECIMAL") {
		// DECIMAL '1.50' is DECIMAL(3, 2): the number as written.
		n := strings.TrimSpace(text)
		if n == "" || strings.ContainsAny(n, "eE") || !isDecimalText(strings.TrimPrefix(strings.TrimPrefix(n, "-"), "+")) {
			return nil, sqlmini.Errorf(tl.Pos, "invalid DECIMAL literal '%s': write digits with an optional point, e.g. DECIMAL '1.50'", text)
		}
		neg := strings.HasPrefix(n, "-")
		x, err := literalNumber(tl.Pos, strings.TrimLeft(n, "+-")+map[bool]string{true: "", false: "."}[strings.Contains(n, ".")])
		if err != nil {
			return nil, err
		}
		c := x.(*Constant)
		d, ok := c.v.(types.Decimal)
		if !ok || c.t.Length > 38 {
			return nil, sqlmini.Errorf(tl.Pos, "invalid DECIMAL literal '%s': more than 38 digits", text)
		}
		if neg {
			d = types.Decimal{Unscaled: new(big.Int).Neg(d.Unscaled), Scale: d.Scale}
		}
		return &Constant{v: d, t: c.t}, nil
	}
	switch strings.ToUpper(tl.Type) {
	case "TIMESTAMP":
		t = types.Type{Kind: types.KindTimestamp, Length: fractionDigits(text)}
	case "TIMESTAMP_LTZ":
		t = types.Type{Kind: types.KindTimestampLTZ, Length: fractionDigits(text)}
	case "DATE":
		t = types.Type{Kind: types.KindDate}
	case "TIME":
		t = types.Type{Kind: types.KindTime, Length: fractionDigits(text)}
	}
	t.NotNull = true
	v, err := textparse.Value(text, t, textparse.Options{})
	if err != nil {
		return nil, sqlmini.Errorf(tl.Pos, "invalid %s literal '%s': %v", strings.ToUpper(tl.Type), text, err)
	}
	return &Constant{v: v, t: t}, nil
}

// isDecimalText reports whether s is digits with at most one point and
// at least one digit.
func isDecimalText(s string) bool {
	digits, points := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

// fractionDigits is the number of digits after the seconds' point.
func fractionDigits(s string) int {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		n := 0
		for _, c := range s[i+1:] {
			if c < '0' || c > '9' {
				break
			}
			n++
		}
		return n
	}
	return 0
}

var bigTen = big.NewInt(10)
