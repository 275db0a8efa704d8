package plan

import (
	"strings"

	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Interval joins. A join condition that bounds a time attribute of one
// side by a time attribute of the other from below and from above (a.ts
// BETWEEN b.ts - INTERVAL '1' HOUR AND b.ts, or a.ts >= b.ts - ... AND a.ts
// < b.ts + ...) makes Flink's interval join: rows wait only as long as the
// bounds allow, the output is insert-only and keeps both time attributes.
// Bounds on columns that are not time attributes make a regular join, as
// in Flink.

// timeBounds are the bounds of leftTime - rightTime found in a condition,
// in milliseconds, inclusive. Flink takes one lower and one upper bound:
// with more (nLower, nUpper count them) the join is a regular one.
type timeBounds struct {
	leftCol, rightCol int // the time attributes, in each side's schema
	lower, upper      int64
	nLower, nUpper    int
}

// timeTerm is a time attribute plus a constant interval: b.ts - INTERVAL
// '1' HOUR.
type timeTerm struct {
	side, col int
	offset    int64 // milliseconds
}

// intervalBounds looks for the time bounds of an interval join among the
// conjuncts. ok is false when they do not bound both ways.
func intervalBounds(conds []*sqlmini.NotExpr, lsc, rsc *expr.Scope) (timeBounds, bool) {
	b := timeBounds{leftCol: -1, rightCol: -1}
	add := func(x, y timeTerm, op string) bool {
		// x op y with x and y on different sides: as leftTime - rightTime op c.
		if x.side == y.side {
			return false
		}
		if x.side == 1 {
			x, y = y, x
			op = flip(op)
		}
		if (b.leftCol >= 0 && b.leftCol != x.col) || (b.rightCol >= 0 && b.rightCol != y.col) {
			return false
		}
		b.leftCol, b.rightCol = x.col, y.col
		c := y.offset - x.offset // left - right op c
		switch op {
		case ">=", ">":
			if op == ">" {
				c++
			}
			b.lower, b.nLower = c, b.nLower+1
		case "<=", "<":
			if op == "<" {
				c--
			}
			b.upper, b.nUpper = c, b.nUpper+1
		case "=":
			b.lower, b.upper, b.nLower, b.nUpper = c, c, b.nLower+1, b.nUpper+1
		default:
			return false
		}
		return true
	}
	for _, c := range conds {
		if c.Not != nil || c.Pred == nil {
			continue
		}
		p := c.Pred
		x, ok := timeTermOf(p.Left, lsc, rsc)
		if !ok {
			continue
		}
		switch {
		case p.Op != "" && p.Right != nil:
			if y, ok := timeTermOf(p.Right, lsc, rsc); ok {
				add(x, y, p.Op)
			}
		case p.Between != nil && !p.Negated && !strings.EqualFold(p.Between.Symmetric, "SYMMETRIC"):
			lo, ok1 := timeTermOf(p.Between.Low, lsc, rsc)
			hi, ok2 := timeTermOf(p.Between.High, lsc, rsc)
			if ok1 && ok2 {
				add(x, lo, ">=")
				add(x, hi, "<=")
			}
		}
	}
	return b, b.nLower == 1 && b.nUpper == 1
}

// isTimeEquality reports whether a conjunct equates time attributes of
// the two sides (o.ots = s.sts): Flink makes it the bounds of an interval
// join (both 0), not a key.
func isTimeEquality(c *sqlmini.NotExpr, lsc, rsc *expr.Scope) bool {
	if c.Not != nil || c.Pred == nil || c.Pred.Op != "=" || c.Pred.Right == nil {
		return false
	}
	x, ok1 := timeTermOf(c.Pred.Left, lsc, rsc)
	y, ok2 := timeTermOf(c.Pred.Right, lsc, rsc)
	return ok1 && ok2 && x.side != y.side
}

func flip(op string) string {
	return map[string]string{">": "<", ">=": "<=", "<": ">", "<=": ">="}[op]
}

// timeTermOf reads an operand as a time attribute of one side plus or
// minus constant day-time intervals.
func timeTermOf(a *sqlmini.Additive, lsc, rsc *expr.Scope) (timeTerm, bool) {
	if a == nil || a.Left == nil || len(a.Left.Right) > 0 || a.Left.Left.Minus || a.Left.Left.Primary.Column == nil {
		return timeTerm{}, false
	}
	ref := a.Left.Left.Primary.Column
	t := timeTerm{side: -1}
	for side, sc := range []*expr.Scope{lsc, rsc} {
		i, err := sc.Lookup(ref)
		if err == nil && sc.Schema.Columns[i].TimeAttr {
			t.side, t.col = side, i
			break
		}
	}
	if t.side < 0 {
		return timeTerm{}, false
	}
	for _, op := range a.Right {
		if op.Op != "+" && op.Op != "-" {
			return timeTerm{}, false
		}
		x, err := expr.Compile(additiveExpr(&sqlmini.Additive{Pos: op.Pos, Left: op.Right}), nil)
		if err != nil {
			return timeTerm{}, false
		}
		v, err := x.Eval(nil)
		d, ok := v.(types.Duration)
		if err != nil || !ok {
			return timeTerm{}, false
		}
		if op.Op == "+" {
			t.offset += int64(d)
		} else {
			t.offset -= int64(d)
		}
	}
	return t, true
}
