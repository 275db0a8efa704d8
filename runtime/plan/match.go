package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/cep"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// planMatch plans MATCH_RECOGNIZE over in with Flink 2.3's rules: an
// insert-only input ordered by a rowtime or a processing-time attribute,
// ONE ROW PER MATCH, a
// pattern of variables with quantifiers (no alternation, groups,
// exclusions or PERMUTE), DEFINE and MEASURES with logical offsets (FIRST,
// LAST, PREV within the match) and aggregates over one variable. Where
// Flink refuses a form, the message is Flink's.
func (p *Planner) planMatch(m *sqlmini.MatchRecognize, in exec.Node) (exec.Node, error) {
	if mode := in.Changelog(); !mode.IsInsertOnly() {
		return nil, sqlmini.Errorf(m.Pos, "Match Recognize doesn't support consuming update changes which is produced by node %s", in.Explain())
	}
	sch := in.Schema()
	n := &sqlop.MatchNode{In: in}
	var partText []string
	for _, e := range m.PartitionBy {
		i, err := columnIndex(e, sch)
		if err != nil {
			return nil, err
		}
		n.Partition = append(n.Partition, i)
		partText = append(partText, sch.Columns[i].Name)
	}
	if len(m.OrderBy) == 0 {
		return nil, sqlmini.Errorf(m.Pos, "You must specify either rowtime or proctime for order by.")
	}
	sc := &expr.Scope{Schema: sch, Now: p.now(), Zone: p.env.Zone, Seed: p.seed(), UserFunction: p.userFunction}
	var orderText []string
	for i, it := range m.OrderBy {
		x, err := expr.Compile(it.Expr, sc)
		if err != nil {
			return nil, err
		}
		desc := strings.EqualFold(it.Direction, "DESC")
		k := sqlop.OrderKey{Expr: x, Desc: desc, NullsFirst: !desc, Text: ExprText(it.Expr) + " ASC"}
		if desc {
			k.Text = ExprText(it.Expr) + " DESC"
		}
		if it.Nulls != "" {
			k.NullsFirst = strings.EqualFold(it.Nulls, "FIRST")
		}
		if i == 0 {
			c, ok := x.(*expr.Column)
			if !ok || !sch.Columns[c.Index].TimeAttr && !sch.Columns[c.Index].ProcTime {
				return nil, sqlmini.Errorf(it.Pos, "You must specify either rowtime or proctime for order by as the first one.")
			}
			if desc {
				return nil, sqlmini.Errorf(it.Pos, "Primary sort order of a streaming table must be ascending on time.")
			}
			n.Time, n.ProcTime = c.Index, sch.Columns[c.Index].ProcTime
		} else if n.ProcTime {
			return nil, sqlmini.Errorf(it.Pos, "MATCH_RECOGNIZE ordered by a processing-time attribute takes no further ORDER BY keys in ptfsh: its rows go to the pattern in the order they arrive")
		}
		n.Keys = append(n.Keys, k)
		orderText = append(orderText, k.Text)
	}
	if m.AllRows {
		return nil, sqlmini.Errorf(m.Pos, "All rows per match mode is not supported yet.")
	}
	if len(m.Subsets) > 0 {
		return nil, sqlmini.Errorf(m.Subsets[0].Pos, "SUBSET is not supported: Flink's MATCH_RECOGNIZE has no SUBSET")
	}
	spec, err := patternSpec(m.Pattern)
	if err != nil {
		return nil, err
	}
	mp := &matchPlanner{p: p, sch: sch, vars: map[string]int{}, procTime: n.ProcTime}
	for i, v := range spec.Vars {
		mp.vars[v.Name] = i
	}
	defined := map[string]*sqlmini.Define{}
	for _, d := range m.Defines {
		name := string(d.Name.Value)
		if defined[name] != nil {
			return nil, sqlmini.Errorf(d.Pos, "Pattern variable '%s' has already been defined", name)
		}
		defined[name] = d
		if _, ok := mp.vars[name]; !ok {
			mp.vars[name] = -2 // defined, not in the pattern: it holds no row
		}
	}
	if m.Within != nil {
		ms, err := withinMillis(m.Within)
		if err != nil {
			return nil, err
		}
		spec.Within = ms
	}
	after := "SKIP TO NEXT ROW"
	if a := m.After; a != nil {
		after = "SKIP " + a.String()
		var target *sqlmini.Name
		switch {
		case a.PastLast:
			spec.Skip = cep.SkipPastLastRow
		case a.NextRow:
			spec.Skip = cep.SkipToNextRow
		case a.First != nil:
			spec.Skip, target = cep.SkipToFirst, a.First
		case a.Last != nil:
			spec.Skip, target = cep.SkipToLast, a.Last
		default:
			spec.Skip, target = cep.SkipToLast, a.Var
		}
		if target != nil {
			if _, ok := mp.vars[string(target.Value)]; !ok {
				return nil, sqlmini.Errorf(target.Pos, "Unknown pattern '%s'", target.Value)
			}
			spec.SkipVar = string(target.Value)
		}
	}
	nfa, err := cep.Compile(spec)
	if err != nil {
		return nil, sqlmini.Errorf(m.Pattern.Pos, "%s", err.Error())
	}
	n.NFA = nfa
	n.Defines = make([]*sqlop.MatchExpr, len(spec.Vars))
	for _, d := range m.Defines {
		v := mp.vars[string(d.Name.Value)]
		x, err := mp.compile(d.Cond, v, false)
		if err != nil {
			return nil, err
		}
		if k := x.Expr.Type().Kind; k != types.KindBoolean && k != types.KindNull {
			return nil, sqlmini.Errorf(d.Cond.Pos, "DEFINE must be a condition of type BOOLEAN, not %s", x.Expr.Type())
		}
		if v >= 0 {
			n.Defines[v] = x
		}
	}
	if len(m.Measures) == 0 {
		return nil, sqlmini.Errorf(m.Pos, "Columns ambiguously defined: {}")
	}
	var cols []types.Column
	for _, i := range n.Partition {
		c := sch.Columns[i]
		c.TimeAttr = false
		cols = append(cols, c)
	}
	var ambiguous, measureText []string
	for _, ms := range m.Measures {
		name := string(ms.Name.Value)
		for _, c := range cols[:len(n.Partition)] {
			if strings.EqualFold(c.Name, name) {
				ambiguous = append(ambiguous, name)
			}
		}
		x, err := mp.compile(ms.Expr, -1, true)
		if err != nil {
			return nil, err
		}
		n.Measures = append(n.Measures, x)
		col := types.Column{Name: name, Type: x.Expr.Type()}
		if c, ok := x.Expr.(*expr.Column); ok {
			// Ordered by processing time, MATCH_ROWTIME() is the time of
			// the match as a TIMESTAMP, no rowtime attribute (as in Flink).
			col.TimeAttr = x.Slots[c.Index].Rowtime && !n.ProcTime
			col.ProcTime = x.Slots[c.Index].Proctime
		}
		cols = append(cols, col)
		measureText = append(measureText, ExprText(ms.Expr)+" AS "+name)
	}
	if len(ambiguous) > 0 {
		return nil, sqlmini.Errorf(m.Pos, "Columns ambiguously defined: {%s}", strings.Join(ambiguous, ", "))
	}
	n.Sch = types.Schema{Columns: cols}
	n.Text = sqlop.MatchText(partText, orderText, measureText, after, m.Pattern.String())
	return n, nil
}

// columnIndex is the input column an expression names.
func columnIndex(e *sqlmini.Expr, sch types.Schema) (int, error) {
	sc := &expr.Scope{Schema: sch}
	x, err := expr.Compile(e, sc)
	if err != nil {
		return 0, err
	}
	c, ok := x.(*expr.Column)
	if !ok {
		return 0, sqlmini.Errorf(e.Pos, "PARTITION BY takes columns, not %s", ExprText(e))
	}
	return c.Index, nil
}

// patternSpec reads the PATTERN clause: a sequence of variables with
// quantifiers, which is all Flink's CEP runs.
func patternSpec(pat *sqlmini.Pattern) (cep.Spec, error) {
	var spec cep.Spec
	if len(pat.Alts) > 1 {
		return spec, sqlmini.Errorf(pat.Pos, "Expression not supported: %s. Currently, CEP doesn't support branching patterns.", rexPattern(pat))
	}
	for _, f := range pat.Alts[0].Factors {
		pr := f.Prim
		switch {
		case pr.IsGroup:
			return spec, sqlmini.Errorf(pr.Pos, "Expression not supported: %s Group patterns are not supported yet.", rexPattern(pr.Group))
		case pr.Exclude != nil:
			return spec, sqlmini.Errorf(pr.Pos, "Expression not supported: PATTERN_EXCLUDE(%s). Currently, CEP doesn't support '{-' '-}' patterns.", rexPattern(pr.Exclude))
		case len(pr.Permute) > 0:
			return spec, sqlmini.Errorf(pr.Pos, "Expression not supported: %s. Currently, CEP doesn't support PERMUTE patterns.", pr.String())
		case pr.Anchor != "":
			return spec, sqlmini.Errorf(pr.Pos, "the pattern anchor %s is not supported: Flink's CEP matches within a partition's rows, with no start or end", pr.Anchor)
		}
		v := cep.Var{Name: string(pr.Var.Value), Min: 1, Max: 1}
		if q := f.Quant; q != nil {
			v.Reluctant = q.Reluctant
			switch {
			case q.Star:
				v.Min, v.Max = 0, -1
			case q.Plus:
				v.Min, v.Max = 1, -1
			case q.Quest:
				v.Min, v.Max = 0, 1
			default:
				v.Min, v.Max = 0, -1
				if q.Min != nil {
					v.Min, _ = strconv.Atoi(*q.Min)
				}
				if q.Max != nil {
					v.Max, _ = strconv.Atoi(*q.Max)
				} else if !q.Comma {
					v.Max = v.Min
				}
			}
		}
		spec.Vars = append(spec.Vars, v)
	}
	return spec, nil
}

// rexPattern prints a pattern as Flink's messages show it (Calcite's
// RexNode of the pattern).
func rexPattern(p *sqlmini.Pattern) string {
	if p == nil {
		return ""
	}
	alt := ""
	for i, t := range p.Alts {
		s := ""
		for j, f := range t.Factors {
			fs := rexFactor(f)
			if j == 0 {
				s = fs
			} else {
				s = "(" + s + ", " + fs + ")"
			}
		}
		if i == 0 {
			alt = s
		} else {
			alt = "|(" + alt + ", " + s + ")"
		}
	}
	return alt
}

func rexFactor(f *sqlmini.PatternFactor) string {
	prim := f.Prim.String()
	switch {
	case f.Prim.Var != nil:
		prim = "_UTF-16LE'" + string(f.Prim.Var.Value) + "'"
	case f.Prim.IsGroup:
		prim = rexPattern(f.Prim.Group)
	}
	q := f.Quant
	if q == nil {
		return prim
	}
	lo, hi := 1, 1
	switch {
	case q.Star:
		lo, hi = 0, -1
	case q.Plus:
		lo, hi = 1, -1
	case q.Quest:
		lo, hi = 0, 1
	default:
		lo, hi = 0, -1
		if q.Min != nil {
			lo, _ = strconv.Atoi(*q.Min)
		}
		if q.Max != nil {
			hi, _ = strconv.Atoi(*q.Max)
		} else if !q.Comma {
			hi = lo
		}
	}
	return fmt.Sprintf("PATTERN_QUANTIFIER(%s, %d, %d, %t)", prim, lo, hi, q.Reluctant)
}

// withinMillis evaluates WITHIN's interval, a DAY TO SECOND interval.
func withinMillis(iv *sqlmini.Interval) (int64, error) {
	e := &sqlmini.Expr{Pos: iv.Pos, Left: &sqlmini.AndExpr{Pos: iv.Pos, Left: &sqlmini.NotExpr{Pos: iv.Pos,
		Pred: &sqlmini.Predicate{Pos: iv.Pos, Left: &sqlmini.Additive{Pos: iv.Pos, Left: &sqlmini.Multiplicative{Pos: iv.Pos,
			Left: &sqlmini.Unary{Pos: iv.Pos, Primary: &sqlmini.Primary{Pos: iv.Pos, Interval: iv}}}}}}}}
	x, err := expr.Compile(e, nil)
	if err != nil {
		return 0, err
	}
	v, err := x.Eval(nil)
	if err != nil {
		return 0, sqlmini.Errorf(iv.Pos, "%w", err)
	}
	d, ok := v.(types.Duration)
	if !ok {
		return 0, sqlmini.Errorf(iv.Pos, "Only constant intervals with millisecond resolution are supported as time constraints of patterns.")
	}
	if d < 0 {
		return 0, sqlmini.Errorf(iv.Pos, "Interval must be non-negative '%s'", iv.String())
	}
	return int64(d), nil
}
