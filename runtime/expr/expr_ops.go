package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// CommonType is the type the values of es convert to (LeastRestrictive),
// and false when two of them have none: a string and a number, a date and
// a boolean. Flink refuses those in CASE, COALESCE, IF and VALUES.
func CommonType(es []Expr) (types.Type, bool) {
	var ts []types.Type
	var first *types.Type
	for _, e := range es {
		t := e.Type()
		ts = append(ts, t)
		if t.Kind == types.KindNull {
			continue
		}
		if first == nil {
			first = &t
			continue
		}
		if !sameFamily(*first, t) {
			return types.Type{}, false
		}
	}
	return LeastRestrictive(ts), true
}

func sameFamily(a, b types.Type) bool {
	switch {
	case a.IsNumeric() && b.IsNumeric(), a.IsString() && b.IsString(), a.IsTime() && b.IsTime():
		return true
	case a.Kind == types.KindBinary || a.Kind == types.KindVarBinary:
		return b.Kind == types.KindBinary || b.Kind == types.KindVarBinary
	}
	return a.Kind == b.Kind
}

// compileBetween is x [NOT] BETWEEN [SYMMETRIC] low AND high: x >= low AND
// x <= high with SQL's three-valued logic; SYMMETRIC swaps the bounds
// when low > high.
func compileBetween(p *sqlmini.Predicate, left Expr, sc *Scope) (Expr, error) {
	low, err := compileAdditive(p.Between.Low, sc)
	if err != nil {
		return nil, err
	}
	high, err := compileAdditive(p.Between.High, sc)
	if err != nil {
		return nil, err
	}
	for _, b := range []Expr{low, high} {
		if !Comparable(left.Type(), b.Type()) {
			return nil, sqlmini.Errorf(p.Pos, "BETWEEN: cannot compare %s with %s", left.Type(), b.Type())
		}
	}
	symmetric := strings.EqualFold(p.Between.Symmetric, "SYMMETRIC")
	negated := p.Negated
	t := types.TypeBoolean
	t.NotNull = left.Type().NotNull && low.Type().NotNull && high.Type().NotNull
	return &funcExpr{t: t, konst: allConstant(left, low, high), f: func(row []any) (any, error) {
		vals, err := evalList([]Expr{left, low, high}, row)
		if err != nil {
			return nil, err
		}
		x, lo, hi := vals[0], vals[1], vals[2]
		if symmetric && lo != nil && hi != nil && CompareValues(lo, hi) > 0 {
			lo, hi = hi, lo
		}
		// x >= lo AND x <= hi, each NULL when a side is.
		var ge, le any
		if x != nil && lo != nil {
			ge = CompareValues(x, lo) >= 0
		}
		if x != nil && hi != nil {
			le = CompareValues(x, hi) <= 0
		}
		var r any
		switch {
		case ge == false || le == false:
			r = false
		case ge == nil || le == nil:
			return nil, nil
		default:
			r = true
		}
		if negated {
			return !r.(bool), nil
		}
		return r, nil
	}}, nil
}

// compileLike is s [NOT] LIKE pattern [ESCAPE c], Flink's (SQL's) LIKE:
// % any characters, _ one character, the escape character (none by
// default) before %, _ or itself for the character; case-sensitive.
func compileLike(p *sqlmini.Predicate, left Expr, sc *Scope) (Expr, error) {
	pat, err := compileAdditive(p.Like.Pattern, sc)
	if err != nil {
		return nil, err
	}
	args := []Expr{left, pat}
	if p.Like.Escape != nil {
		esc, err := compileAdditive(p.Like.Escape, sc)
		if err != nil {
			return nil, err
		}
		args = append(args, esc)
	}
	what := "LIKE"
	if p.Like.Similar {
		what = "SIMILAR TO"
	}
	for _, a := range args {
		if t := a.Type(); !t.IsString() && t.Kind != types.KindNull {
			return nil, sqlmini.Errorf(p.Pos, "%s needs strings, not %s", what, t)
		}
	}
	pos := p.Pos
	negated := p.Negated
	if p.Like.Similar {
		return compileSimilar(pos, negated, args)
	}
	return strict(types.TypeBoolean, false, args, func(v []any) (any, error) {
		var esc rune = -1
		if len(v) == 3 {
			e := v[2].(string)
			if utf8.RuneCountInString(e) != 1 {
				return nil, sqlmini.Errorf(pos, "LIKE: the ESCAPE string must be one character, not '%s'", e)
			}
			esc, _ = utf8.DecodeRuneInString(e)
		}
		m, err := likeMatch(v[0].(string), v[1].(string), esc)
		if err != nil {
			return nil, sqlmini.Errorf(pos, "%w", err)
		}
		return m != negated, nil
	}), nil
}

type likeError string

func (e likeError) Error() string { return string(e) }

// likeMatch matches s against a LIKE pattern, by runes, without
// backtracking blow-up (the classic two-pointer wildcard match).
func likeMatch(s, pattern string, esc rune) (bool, error) {
	type tok struct {
		r    rune
		kind byte // 'c' a character, '%', '_'
	}
	var toks []tok
	pr := []rune(pattern)
	for i := 0; i < len(pr); i++ {
		r := pr[i]
		switch {
		case esc >= 0 && r == esc:
			if i+1 >= len(pr) || pr[i+1] != '%' && pr[i+1] != '_' && pr[i+1] != esc {
				return false, likeError("LIKE: invalid escape sequence in '" + pattern + "'")
			}
			i++
			toks = append(toks, tok{pr[i], 'c'})
		case r == '%':
			toks = append(toks, tok{kind: '%'})
		case r == '_':
			toks = append(toks, tok{kind: '_'})
		default:
			toks = append(toks, tok{r, 'c'})
		}
	}
	sr := []rune(s)
	i, j, star, mark := 0, 0, -1, 0
	for i < len(sr) {
		switch {
		case j < len(toks) && (toks[j].kind == '_' || toks[j].kind == 'c' && toks[j].r == sr[i]):
			i++
			j++
		case j < len(toks) && toks[j].kind == '%':
			star, mark = j, i
			j++
		case star >= 0:
			mark++
			i, j = mark, star+1
		default:
			return false, nil
		}
	}
	for j < len(toks) && toks[j].kind == '%' {
		j++
	}
	return j == len(toks), nil
}

// compileTruth is x IS [NOT] TRUE | FALSE | UNKNOWN, never NULL.
func compileTruth(p *sqlmini.Predicate, left Expr) (Expr, error) {
	if k := left.Type().Kind; k != types.KindBoolean && k != types.KindNull {
		return nil, sqlmini.Errorf(p.Pos, "IS %s needs a BOOLEAN, not %s", strings.ToUpper(p.Truth), left.Type())
	}
	var want any
	switch strings.ToUpper(p.Truth) {
	case "TRUE":
		want = true
	case "FALSE":
		want = false
	}
	not := p.IsNot
	return &funcExpr{t: types.TypeBoolean.AsNotNull(), konst: left.IsConstant(), f: func(row []any) (any, error) {
		v, err := left.Eval(row)
		if err != nil {
			return nil, err
		}
		return (v == want) != not, nil
	}}, nil
}
