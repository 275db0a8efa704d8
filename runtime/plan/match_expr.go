package plan

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// matchPlanner compiles the expressions of DEFINE and MEASURES. Every
// reference to the rows of a match (a column, A.col, FIRST, LAST, PREV,
// an aggregate, MATCH_ROWTIME) becomes a slot, a column of its own that
// the operator fills before each evaluation; the expression is compiled
// over the slots. Navigation goes inside expressions as Calcite moves it
// (FIRST(A.x * 2) is FIRST(A.x) * 2).
type matchPlanner struct {
	p    *Planner
	sch  types.Schema
	vars map[string]int // pattern variable -> index (-2: in DEFINE only)
	// per compile
	slots   []sqlop.MatchSlot
	types   []types.Type
	def     int // the variable of the DEFINE being compiled; -1 in MEASURES
	measure bool
	// procTime: ORDER BY starts with a processing-time attribute.
	procTime bool
}

// nav is the navigation around a column reference.
type nav struct {
	first  bool
	offset int
	named  string // the function, for nesting errors
	phys   bool   // inside PREV or NEXT
}

func (mp *matchPlanner) compile(e *sqlmini.Expr, def int, measure bool) (*sqlop.MatchExpr, error) {
	mp.slots, mp.types, mp.def, mp.measure = nil, nil, def, measure
	re, err := mp.expr(e, nil)
	if err != nil {
		return nil, err
	}
	cols := make([]types.Column, len(mp.types))
	for i, t := range mp.types {
		cols[i] = types.Column{Name: slotName(i), Type: t}
	}
	x, err := expr.Compile(re, &expr.Scope{Schema: types.Schema{Columns: cols}, Now: mp.p.now(), Zone: mp.p.env.Zone, Seed: mp.p.seed(), UserFunction: mp.p.userFunction})
	if err != nil {
		return nil, err
	}
	return &sqlop.MatchExpr{Expr: x, Slots: mp.slots}, nil
}

func slotName(i int) string { return "\x00m" + strconv.Itoa(i) }

func (mp *matchPlanner) slot(s sqlop.MatchSlot, t types.Type, pos sqlmini.Pos) *sqlmini.Primary {
	mp.slots = append(mp.slots, s)
	mp.types = append(mp.types, t)
	return ref(pos, slotName(len(mp.slots)-1))
}

func (mp *matchPlanner) expr(e *sqlmini.Expr, n *nav) (*sqlmini.Expr, error) {
	if e == nil {
		return nil, nil
	}
	c := *e
	var err error
	if c.Left, err = mp.and(e.Left, n); err != nil {
		return nil, err
	}
	c.Right = make([]*sqlmini.AndExpr, len(e.Right))
	for i, r := range e.Right {
		if c.Right[i], err = mp.and(r, n); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func (mp *matchPlanner) and(e *sqlmini.AndExpr, n *nav) (*sqlmini.AndExpr, error) {
	c := *e
	var err error
	if c.Left, err = mp.not(e.Left, n); err != nil {
		return nil, err
	}
	c.Right = make([]*sqlmini.NotExpr, len(e.Right))
	for i, r := range e.Right {
		if c.Right[i], err = mp.not(r, n); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

func (mp *matchPlanner) not(e *sqlmini.NotExpr, n *nav) (*sqlmini.NotExpr, error) {
	c := *e
	var err error
	if e.Not != nil {
		c.Not, err = mp.not(e.Not, n)
		return &c, err
	}
	c.Pred, err = mp.pred(e.Pred, n)
	return &c, err
}

func (mp *matchPlanner) pred(e *sqlmini.Predicate, n *nav) (*sqlmini.Predicate, error) {
	c := *e
	var err error
	if c.Left, err = mp.add(e.Left, n); err != nil {
		return nil, err
	}
	if e.Right != nil {
		if c.Right, err = mp.add(e.Right, n); err != nil {
			return nil, err
		}
	}
	if len(e.In) > 0 {
		c.In = make([]*sqlmini.Additive, len(e.In))
		for i, x := range e.In {
			if c.In[i], err = mp.add(x, n); err != nil {
				return nil, err
			}
		}
	}
	if e.Between != nil {
		b := *e.Between
		if b.Low, err = mp.add(e.Between.Low, n); err != nil {
			return nil, err
		}
		if b.High, err = mp.add(e.Between.High, n); err != nil {
			return nil, err
		}
		c.Between = &b
	}
	if e.Like != nil {
		l := *e.Like
		if l.Pattern, err = mp.add(e.Like.Pattern, n); err != nil {
			return nil, err
		}
		if e.Like.Escape != nil {
			if l.Escape, err = mp.add(e.Like.Escape, n); err != nil {
				return nil, err
			}
		}
		c.Like = &l
	}
	return &c, nil
}

func (mp *matchPlanner) add(e *sqlmini.Additive, n *nav) (*sqlmini.Additive, error) {
	c := *e
	var err error
	if c.Left, err = mp.mul(e.Left, n); err != nil {
		return nil, err
	}
	c.Right = make([]*sqlmini.AddOp, len(e.Right))
	for i, r := range e.Right {
		o := *r
		if o.Right, err = mp.mul(r.Right, n); err != nil {
			return nil, err
		}
		c.Right[i] = &o
	}
	return &c, nil
}

func (mp *matchPlanner) mul(e *sqlmini.Multiplicative, n *nav) (*sqlmini.Multiplicative, error) {
	c := *e
	var err error
	if c.Left, err = mp.unary(e.Left, n); err != nil {
		return nil, err
	}
	c.Right = make([]*sqlmini.MulOp, len(e.Right))
	for i, r := range e.Right {
		o := *r
		if o.Right, err = mp.unary(r.Right, n); err != nil {
			return nil, err
		}
		c.Right[i] = &o
	}
	return &c, nil
}

func (mp *matchPlanner) unary(e *sqlmini.Unary, n *nav) (*sqlmini.Unary, error) {
	c := *e
	var err error
	c.Primary, err = mp.primary(e.Primary, n)
	return &c, err
}

func (mp *matchPlanner) exprs(es []*sqlmini.Expr, n *nav) ([]*sqlmini.Expr, error) {
	out := make([]*sqlmini.Expr, len(es))
	for i, e := range es {
		var err error
		if out[i], err = mp.expr(e, n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (mp *matchPlanner) primary(e *sqlmini.Primary, n *nav) (*sqlmini.Primary, error) {
	c := *e
	var err error
	switch {
	case e.Column != nil:
		return mp.column(e.Column, n)
	case e.Paren != nil:
		c.Paren, err = mp.expr(e.Paren, n)
	case e.Cast != nil:
		k := *e.Cast
		k.Expr, err = mp.expr(e.Cast.Expr, n)
		c.Cast = &k
	case e.Case != nil:
		k := *e.Case
		if k.Operand, err = mp.expr(e.Case.Operand, n); err != nil {
			return nil, err
		}
		k.Whens = make([]*sqlmini.When, len(e.Case.Whens))
		for i, w := range e.Case.Whens {
			ww := *w
			if ww.Cond, err = mp.expr(w.Cond, n); err != nil {
				return nil, err
			}
			if ww.Then, err = mp.expr(w.Then, n); err != nil {
				return nil, err
			}
			k.Whens[i] = &ww
		}
		k.Else, err = mp.expr(e.Case.Else, n)
		c.Case = &k
	case e.Row != nil || e.Array != nil || e.Map != nil:
		for _, k := range []**sqlmini.Constructor{&c.Row, &c.Array, &c.Map} {
			if *k != nil {
				cc := **k
				if cc.Elems, err = mp.exprs(cc.Elems, n); err != nil {
					return nil, err
				}
				*k = &cc
			}
		}
	case e.Func != nil:
		return mp.call(e.Func, n)
	}
	return &c, err
}

// column is a reference to a column of the rows of a match.
func (mp *matchPlanner) column(r *sqlmini.ColumnRef, n *nav) (*sqlmini.Primary, error) {
	v, name := -1, ""
	switch len(r.Parts) {
	case 1:
		name = string(r.Parts[0].Value)
	case 2:
		vi, ok := mp.vars[string(r.Parts[0].Value)]
		if !ok {
			return nil, sqlmini.Errorf(r.Pos, "Unknown pattern '%s'", r.Parts[0].Value)
		}
		v, name = vi, string(r.Parts[1].Value)
	default:
		return nil, sqlmini.Errorf(r.Pos, "Column '%s' not found in the rows of the match", r.String())
	}
	col := mp.sch.Index(name)
	if col < 0 {
		for i, c := range mp.sch.Columns {
			if strings.EqualFold(c.Name, name) {
				col = i
			}
		}
	}
	if col < 0 {
		return nil, sqlmini.Errorf(r.Pos, "Column '%s' not found in any table; the input has %s", name, mp.sch.ColumnList())
	}
	s := sqlop.MatchSlot{Var: v, Col: col}
	if n != nil {
		s.First, s.Offset = n.first, n.offset
	}
	t := mp.sch.Columns[col].Type.Nullable()
	if s.Offset == 0 && !s.First && !mp.measure && (v == -1 || v == mp.def) {
		t = mp.sch.Columns[col].Type // the row being matched
	}
	return mp.slot(s, t, r.Pos), nil
}

// aggregates are the aggregate functions MEASURES and DEFINE may call.
var matchAggregates = map[string]bool{"COUNT": true, "SUM": true, "AVG": true, "MIN": true, "MAX": true}

func (mp *matchPlanner) call(f *sqlmini.FuncCall, n *nav) (*sqlmini.Primary, error) {
	name := strings.ToUpper(string(f.Name.Value))
	text := f.String()
	switch name {
	case "CLASSIFIER":
		return nil, sqlmini.Errorf(f.Pos, "Unsupported call: CLASSIFIER()  If you think this function should be supported, you can create an issue and start a discussion for it.")
	case "MATCH_PROCTIME":
		if !mp.measure {
			return nil, sqlmini.Errorf(f.Pos, "MATCH_PROCTIME() is for MEASURES: it is the processing time of the match")
		}
		if len(f.Args) > 0 {
			return nil, sqlmini.Errorf(f.Pos, "MATCH_PROCTIME() takes no arguments")
		}
		t := types.TypeTimestampLTZ
		t.NotNull = true
		return mp.slot(sqlop.MatchSlot{Proctime: true}, t, f.Pos), nil
	case "MATCH_ROWTIME":
		if !mp.measure {
			return nil, sqlmini.Errorf(f.Pos, "MATCH_ROWTIME() is for MEASURES: it is the time of the match")
		}
		t := types.TypeTimestamp3
		s := sqlop.MatchSlot{Rowtime: true}
		if len(f.Args) == 1 {
			pr := f.Args[0].Left.Left.Pred
			if pr == nil || pr.Left.Left.Left.Primary.Column == nil {
				return nil, sqlmini.Errorf(f.Pos, "MATCH_ROWTIME takes a rowtime column: MATCH_ROWTIME(ts)")
			}
			ref := pr.Left.Left.Left.Primary.Column
			col := mp.sch.Index(string(ref.Parts[len(ref.Parts)-1].Value))
			if col < 0 || !mp.sch.Columns[col].TimeAttr {
				return nil, sqlmini.Errorf(f.Pos, "MATCH_ROWTIME takes a rowtime column: MATCH_ROWTIME(ts)")
			}
			t = mp.sch.Columns[col].Type
			s.RowtimeLTZ = t.Kind == types.KindTimestampLTZ
		}
		t.NotNull = true
		return mp.slot(s, t, f.Pos), nil
	case "FIRST", "LAST":
		if n != nil {
			return nil, sqlmini.Errorf(f.Pos, "Cannot nest PREV/NEXT under LAST/FIRST '%s'", text)
		}
		off, err := navOffset(f, 0)
		if err != nil {
			return nil, err
		}
		inner, err := mp.expr(f.Args[0], &nav{first: name == "FIRST", offset: off, named: name})
		if err != nil {
			return nil, err
		}
		return &sqlmini.Primary{Pos: f.Pos, Paren: inner}, nil
	case "PREV", "NEXT":
		if mp.measure {
			return nil, sqlmini.Errorf(f.Pos, "Cannot use PREV/NEXT in MEASURE '%s'", calciteNav(f, name))
		}
		if n != nil {
			return nil, sqlmini.Errorf(f.Pos, "Cannot nest PREV/NEXT under LAST/FIRST '%s'", text)
		}
		off, err := navOffset(f, 1)
		if err != nil {
			return nil, err
		}
		if off != 0 && (name == "NEXT" || mp.varOf(f.Args[0]) == mp.def) {
			return nil, sqlmini.Errorf(f.Pos, "Flink does not support physical offsets within partition.")
		}
		inner, err := mp.expr(f.Args[0], &nav{offset: off, named: name, phys: true})
		if err != nil {
			return nil, err
		}
		return &sqlmini.Primary{Pos: f.Pos, Paren: inner}, nil
	}
	if matchAggregates[name] && f.Over == nil {
		if n != nil {
			return nil, sqlmini.Errorf(f.Pos, "Cannot use aggregation in navigation '%s'", text)
		}
		if f.Distinct {
			return nil, sqlmini.Errorf(f.Pos, "SQL validation failed. DISTINCT/ALL not allowed with %s function", text)
		}
		return mp.aggregate(name, f)
	}
	c := *f
	var err error
	if c.Args, err = mp.exprs(f.Args, n); err != nil {
		return nil, err
	}
	for _, k := range []**sqlmini.Expr{&c.From, &c.For, &c.In} {
		if *k != nil {
			if *k, err = mp.expr(*k, n); err != nil {
				return nil, err
			}
		}
	}
	return &sqlmini.Primary{Pos: f.Pos, Func: &c}, nil
}

// navOffset is the offset of FIRST, LAST, PREV or NEXT: a whole number
// literal, def when there is none.
func navOffset(f *sqlmini.FuncCall, def int) (int, error) {
	switch len(f.Args) {
	case 1:
		return def, nil
	case 2:
		n, err := strconv.Atoi(strings.TrimSpace(f.Args[1].String()))
		if err != nil || n < 0 {
			return 0, sqlmini.Errorf(f.Args[1].Pos, "the offset of %s must be a whole number literal, not %s", f.Name.Value, f.Args[1])
		}
		return n, nil
	}
	return 0, sqlmini.Errorf(f.Pos, "%s takes a column and an optional offset: %s(A.price, 1)", f.Name.Value, f.Name.Value)
}

// varsOf collects the pattern variables an expression's columns name
// (-1 for a column without one).
func (mp *matchPlanner) varsOf(e *sqlmini.Expr) map[int]bool {
	out := map[int]bool{}
	walkColumns(e.String(), func(parts []string) {
		if len(parts) == 2 {
			if v, ok := mp.vars[parts[0]]; ok {
				out[v] = true
				return
			}
		}
		out[-1] = true
	})
	return out
}

// varOf is the one variable an expression names, -1 for none or several.
func (mp *matchPlanner) varOf(e *sqlmini.Expr) int {
	vs := mp.varsOf(e)
	if len(vs) != 1 {
		return -1
	}
	for v := range vs {
		return v
	}
	return -1
}

// walkColumns calls f for each column reference of an expression's text,
// leaving out the unit words of TIMESTAMPDIFF(DAY, ...) and its kind.
func walkColumns(src string, f func(parts []string)) {
	e, err := sqlmini.ParseExpr(src)
	if err != nil {
		return
	}
	units := map[*sqlmini.ColumnRef]bool{}
	sqlmini.Inspect(e, func(x any) {
		if c, ok := x.(*sqlmini.FuncCall); ok && len(c.Args) > 0 {
			if fn, ok := expr.LookupFunction(string(c.Name.Value)); ok && fn.TakesUnit() {
				sqlmini.Inspect(c.Args[0], func(x any) {
					if r, ok := x.(*sqlmini.ColumnRef); ok {
						units[r] = true
					}
				})
			}
		}
	})
	sqlmini.Inspect(e, func(x any) {
		switch t := x.(type) {
		case *sqlmini.ColumnRef:
			if units[t] {
				return
			}
			var parts []string
			for _, p := range t.Parts {
				parts = append(parts, string(p.Value))
			}
			f(parts)
		}
	})
}

// aggregate is an aggregate over the rows of one variable (every row for
// COUNT(*) and for columns without a variable).
func (mp *matchPlanner) aggregate(name string, f *sqlmini.FuncCall) (*sqlmini.Primary, error) {
	c := &sqlop.AggCall{Fn: name, Star: f.Star, Text: f.String()}
	v := -1
	if !f.Star {
		if len(f.Args) != 1 {
			return nil, sqlmini.Errorf(f.Pos, "%s takes one argument here", name)
		}
		vs := mp.varsOf(f.Args[0])
		if len(vs) > 1 {
			return nil, sqlmini.Errorf(f.Pos, "Multiple pattern variables in '%s'", calciteQuoted(f.String()))
		}
		for x := range vs {
			v = x
		}
		arg, err := sqlmini.ParseExpr(stripVars(f.Args[0].String(), mp.vars))
		if err != nil {
			return nil, sqlmini.Errorf(f.Pos, "%w", err)
		}
		x, err := expr.Compile(arg, &expr.Scope{Schema: mp.sch, Now: mp.p.now(), Zone: mp.p.env.Zone, Seed: mp.p.seed(), UserFunction: mp.p.userFunction})
		if err != nil {
			return nil, sqlmini.Errorf(f.Args[0].Pos, "%s", strings.TrimPrefix(err.Error(), ":1:1: "))
		}
		c.Arg, c.ArgType = x, x.Type()
	}
	t, err := AggregateType(name, c.ArgType)
	if err != nil {
		return nil, sqlmini.Errorf(f.Pos, "%w", err)
	}
	if name != "COUNT" {
		t = t.Nullable()
	}
	c.Typ = t
	return mp.slot(sqlop.MatchSlot{Var: v, Agg: c}, t, f.Pos), nil
}

// stripVars prints an expression with its columns' pattern variables
// left out (A.price is price), to be read over one row.
func stripVars(src string, vars map[string]int) string {
	e, err := sqlmini.ParseExpr(src)
	if err != nil {
		return src
	}
	sqlmini.Inspect(e, func(x any) {
		if r, ok := x.(*sqlmini.ColumnRef); ok && len(r.Parts) == 2 {
			if _, ok := vars[string(r.Parts[0].Value)]; ok {
				r.Parts = r.Parts[1:]
			}
		}
	})
	return e.String()
}

// calciteNav prints PREV(A.x) or NEXT(A.x) as Calcite's messages do:
// PREV(`A`.`x`, 1).
func calciteNav(f *sqlmini.FuncCall, name string) string {
	off := "1"
	if len(f.Args) == 2 {
		off = f.Args[1].String()
	}
	return name + "(" + calciteQuoted(f.Args[0].String()) + ", " + off + ")"
}

// calciteQuoted backquotes the column names of an expression's text, as
// Calcite prints them.
func calciteQuoted(src string) string {
	e, err := sqlmini.ParseExpr(src)
	if err != nil {
		return src
	}
	sqlmini.Inspect(e, func(x any) {
		if r, ok := x.(*sqlmini.ColumnRef); ok {
			for _, p := range r.Parts {
				p.Value = sqlmini.Ident("\x00" + string(p.Value))
			}
		}
	})
	out := e.String()
	return strings.NewReplacer("`\x00", "`", "\x00", "").Replace(out)
}
