package sqlmini

import (
	"encoding/hex"
	"strings"
)

// Printing expressions and types; see print.go.

// String prints the expression, e.g. "a = 1 OR b IN (2, 3)". The runtime
// shows it in EXPLAIN and error messages.
func (e *Expr) String() string { return str(e) }

func (e *Expr) format(b *strings.Builder) {
	if e == nil {
		return
	}
	e.Left.format(b)
	for _, r := range e.Right {
		b.WriteString(" OR ")
		r.format(b)
	}
}

// String prints the conjunction.
func (e *AndExpr) String() string { return str(e) }

func (e *AndExpr) format(b *strings.Builder) {
	if e == nil {
		return
	}
	e.Left.format(b)
	for _, r := range e.Right {
		b.WriteString(" AND ")
		r.format(b)
	}
}

// String prints [NOT] predicate.
func (e *NotExpr) String() string { return str(e) }

func (e *NotExpr) format(b *strings.Builder) {
	if e == nil {
		return
	}
	if e.Not != nil {
		b.WriteString("NOT ")
		e.Not.format(b)
		return
	}
	e.Pred.format(b)
}

// String prints the comparison, IN list or IS [NOT] NULL test.
func (p *Predicate) String() string { return str(p) }

func (p *Predicate) format(b *strings.Builder) {
	if p == nil {
		return
	}
	p.Left.format(b)
	switch {
	case p.Op != "":
		b.WriteString(" ")
		b.WriteString(p.Op)
		b.WriteString(" ")
		p.Right.format(b)
	case len(p.In) > 0 || p.Between != nil || p.Like != nil:
		if p.Negated {
			b.WriteString(" NOT")
		}
		switch {
		case p.Between != nil:
			p.Between.format(b)
		case p.Like != nil:
			p.Like.format(b)
		default:
			b.WriteString(" IN (")
			list(b, p.In)
			b.WriteString(")")
		}
	case p.InQuery != nil:
		if p.Negated {
			b.WriteString(" NOT")
		}
		b.WriteString(" IN (")
		p.InQuery.format(b)
		b.WriteString(")")
	case p.DistinctFrom != nil:
		b.WriteString(" IS ")
		if p.NotDistinct {
			b.WriteString("NOT ")
		}
		b.WriteString("DISTINCT FROM ")
		p.DistinctFrom.format(b)
	case p.IsNull:
		b.WriteString(" IS NULL")
	case p.NotNull:
		b.WriteString(" IS NOT NULL")
	case p.Truth != "":
		b.WriteString(" IS ")
		if p.IsNot {
			b.WriteString("NOT ")
		}
		b.WriteString(canon(p.Truth, "TRUE", "FALSE", "UNKNOWN", "JSON"))
		if p.JSONKind != "" {
			b.WriteString(" " + canon(p.JSONKind, "VALUE", "SCALAR", "ARRAY", "OBJECT"))
		}
	}
}

// String prints BETWEEN [SYMMETRIC] low AND high (with a leading space).
func (e *Between) String() string { return str(e) }

func (e *Between) format(b *strings.Builder) {
	if e == nil {
		return
	}
	b.WriteString(" BETWEEN ")
	if e.Symmetric != "" {
		b.WriteString(canon(e.Symmetric, "ASYMMETRIC", "SYMMETRIC"))
		b.WriteString(" ")
	}
	e.Low.format(b)
	b.WriteString(" AND ")
	e.High.format(b)
}

// String prints LIKE | SIMILAR TO pattern [ESCAPE char] (with a leading
// space).
func (e *Like) String() string { return str(e) }

func (e *Like) format(b *strings.Builder) {
	if e == nil {
		return
	}
	if e.Similar {
		b.WriteString(" SIMILAR TO ")
	} else {
		b.WriteString(" LIKE ")
	}
	e.Pattern.format(b)
	if e.Escape != nil {
		b.WriteString(" ESCAPE ")
		e.Escape.format(b)
	}
}

// String prints CASE ... END.
func (c *CaseExpr) String() string { return str(c) }

func (c *CaseExpr) format(b *strings.Builder) {
	if c == nil {
		return
	}
	b.WriteString("CASE")
	if c.Operand != nil {
		b.WriteString(" ")
		c.Operand.format(b)
	}
	for _, w := range c.Whens {
		b.WriteString(" ")
		w.format(b)
	}
	if c.Else != nil {
		b.WriteString(" ELSE ")
		c.Else.format(b)
	}
	b.WriteString(" END")
}

// String prints WHEN cond THEN result.
func (w *When) String() string { return str(w) }

func (w *When) format(b *strings.Builder) {
	if w == nil {
		return
	}
	b.WriteString("WHEN ")
	w.Cond.format(b)
	for _, m := range w.More {
		b.WriteString(", ")
		m.format(b)
	}
	b.WriteString(" THEN ")
	w.Then.format(b)
}

// String prints the sum, difference or concatenation.
func (e *Additive) String() string { return str(e) }

func (e *Additive) format(b *strings.Builder) {
	if e == nil {
		return
	}
	e.Left.format(b)
	for _, r := range e.Right {
		b.WriteString(" ")
		r.format(b)
	}
}

// String prints the operator and its right operand: "+ x".
func (o *AddOp) String() string { return str(o) }

func (o *AddOp) format(b *strings.Builder) {
	if o == nil {
		return
	}
	b.WriteString(o.Op)
	b.WriteString(" ")
	o.Right.format(b)
}

// String prints the product or quotient.
func (e *Multiplicative) String() string { return str(e) }

func (e *Multiplicative) format(b *strings.Builder) {
	if e == nil {
		return
	}
	e.Left.format(b)
	for _, r := range e.Right {
		b.WriteString(" ")
		r.format(b)
	}
}

// String prints the operator and its right operand: "* x".
func (o *MulOp) String() string { return str(o) }

func (o *MulOp) format(b *strings.Builder) {
	if o == nil {
		return
	}
	b.WriteString(o.Op)
	b.WriteString(" ")
	o.Right.format(b)
}

// String prints [-]primary.
func (u *Unary) String() string { return str(u) }

func (u *Unary) format(b *strings.Builder) {
	if u == nil {
		return
	}
	if u.Minus {
		b.WriteString("-")
	} else if u.Plus {
		b.WriteString("+")
	}
	u.Primary.format(b)
	for _, s := range u.Subscripts {
		b.WriteString("[")
		s.format(b)
		b.WriteString("]")
	}
}

// Primary has no String method: its field String (a string literal) takes
// the name. Print the enclosing Unary instead.
func (p *Primary) format(b *strings.Builder) {
	if p == nil {
		return
	}
	switch {
	case p.Number != nil:
		b.WriteString(*p.Number)
	case p.String != nil:
		b.WriteString(QuoteString(string(*p.String)))
	case p.Hex != nil:
		b.WriteString("X'" + strings.ToUpper(hex.EncodeToString(*p.Hex)) + "'")
	case p.True:
		b.WriteString("TRUE")
	case p.False:
		b.WriteString("FALSE")
	case p.Null:
		b.WriteString("NULL")
	case p.Interval != nil:
		p.Interval.format(b)
	case p.Typed != nil:
		p.Typed.format(b)
	case p.Cast != nil:
		p.Cast.format(b)
	case p.Case != nil:
		p.Case.format(b)
	case p.Row != nil:
		b.WriteString("ROW(")
		p.Row.format(b)
		b.WriteString(")")
	case p.Exists != nil:
		b.WriteString("EXISTS (")
		p.Exists.format(b)
		b.WriteString(")")
	case p.Array != nil:
		b.WriteString("ARRAY[")
		p.Array.format(b)
		b.WriteString("]")
	case p.Map != nil:
		b.WriteString("MAP[")
		p.Map.format(b)
		b.WriteString("]")
	case p.IsDesc:
		b.WriteString("DESCRIPTOR(")
		list(b, p.Descriptor)
		b.WriteString(")")
	case p.Func != nil:
		p.Func.format(b)
	case p.Column != nil:
		p.Column.format(b)
	case p.Paren != nil:
		b.WriteString("(")
		p.Paren.format(b)
		for _, e := range p.RowTail {
			b.WriteString(", ")
			e.format(b)
		}
		b.WriteString(")")
	}
}

// String prints the elements separated by ", ", without the brackets
// (which belong to the Primary: ROW(...), ARRAY[...], MAP[...]).
func (c *Constructor) String() string { return str(c) }

func (c *Constructor) format(b *strings.Builder) {
	if c == nil {
		return
	}
	list(b, c.Elems)
}

// String prints INTERVAL [-]'n' UNIT [TO UNIT].
func (i *Interval) String() string { return str(i) }

func (i *Interval) format(b *strings.Builder) {
	if i == nil {
		return
	}
	b.WriteString("INTERVAL ")
	if i.Minus {
		b.WriteString("-")
	}
	b.WriteString(QuoteString(string(i.Value)))
	b.WriteString(" ")
	b.WriteString(upper(i.Unit))
	if i.To != "" {
		b.WriteString(" TO ")
		b.WriteString(upper(i.To))
	}
}

// String prints TIMESTAMP '...' and the like.
func (t *TypedLiteral) String() string { return str(t) }

func (t *TypedLiteral) format(b *strings.Builder) {
	if t == nil {
		return
	}
	b.WriteString(canon(t.Type, "TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME", "DECIMAL"))
	b.WriteString(" ")
	b.WriteString(QuoteString(string(t.Value)))
}

// String prints CAST(expr AS type).
func (c *Cast) String() string { return str(c) }

func (c *Cast) format(b *strings.Builder) {
	if c == nil {
		return
	}
	if c.Try {
		b.WriteString("TRY_CAST(")
	} else {
		b.WriteString("CAST(")
	}
	c.Expr.format(b)
	b.WriteString(" AS ")
	c.Type.format(b)
	b.WriteString(")")
}

// String prints name([DISTINCT] args) or name(*).
func (f *FuncCall) String() string { return str(f) }

func (f *FuncCall) format(b *strings.Builder) {
	if f == nil {
		return
	}
	f.Name.format(b)
	b.WriteString("(")
	// Each part that is there, separated by spaces: the grammar takes
	// them in this order, also where a function refuses them.
	sep := func() {
		if str := b.String(); !strings.HasSuffix(str, "(") {
			b.WriteString(" ")
		}
	}
	if f.Distinct {
		b.WriteString("DISTINCT")
	}
	if f.Star {
		sep()
		b.WriteString("*")
	}
	if f.Trim != "" {
		sep()
		b.WriteString(canon(f.Trim, "BOTH", "LEADING", "TRAILING"))
	}
	if len(f.Args) > 0 {
		sep()
		if f.JSON != nil && f.JSON.Pairs {
			for i := 0; i+1 < len(f.Args); i += 2 {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString("KEY ")
				f.Args[i].format(b)
				b.WriteString(" VALUE ")
				f.Args[i+1].format(b)
			}
		} else {
			list(b, f.Args)
		}
	}
	f.JSON.format(b)
	if f.Placing != nil {
		sep()
		b.WriteString("PLACING ")
		f.Placing.format(b)
	}
	switch {
	case f.From != nil:
		sep()
		b.WriteString("FROM ")
		f.From.format(b)
		if f.For != nil {
			b.WriteString(" FOR ")
			f.For.format(b)
		}
	case f.In != nil:
		sep()
		b.WriteString("IN ")
		f.In.format(b)
	case f.To != nil:
		sep()
		b.WriteString("TO ")
		f.To.format(b)
	}
	b.WriteString(")")
	if f.Filter != nil {
		b.WriteString(" FILTER (WHERE ")
		f.Filter.format(b)
		b.WriteString(")")
	}
	if f.Over != nil {
		b.WriteString(" OVER ")
		f.Over.format(b)
	}
}

// String prints a window's name or (window).
func (o *Over) String() string { return str(o) }

func (o *Over) format(b *strings.Builder) {
	if o == nil {
		return
	}
	if o.Name != nil {
		o.Name.format(b)
		return
	}
	b.WriteString("(")
	o.Window.format(b)
	b.WriteString(")")
}

// String prints [PARTITION BY ...] [ORDER BY ...] [frame].
func (w *WindowSpec) String() string { return str(w) }

func (w *WindowSpec) format(b *strings.Builder) {
	if w == nil {
		return
	}
	sep := ""
	if len(w.PartitionBy) > 0 {
		b.WriteString("PARTITION BY ")
		list(b, w.PartitionBy)
		sep = " "
	}
	if len(w.OrderBy) > 0 {
		b.WriteString(sep + "ORDER BY ")
		list(b, w.OrderBy)
		sep = " "
	}
	if w.Frame != nil {
		b.WriteString(sep)
		w.Frame.format(b)
	}
}

// String prints ROWS | RANGE BETWEEN bound AND bound, or the one bound.
func (f *Frame) String() string { return str(f) }

func (f *Frame) format(b *strings.Builder) {
	if f == nil {
		return
	}
	b.WriteString(canon(f.Unit, "ROWS", "RANGE"))
	if f.Only != nil {
		b.WriteString(" ")
		f.Only.format(b)
		return
	}
	b.WriteString(" BETWEEN ")
	f.Start.format(b)
	b.WriteString(" AND ")
	f.End.format(b)
}

// String prints UNBOUNDED PRECEDING, CURRENT ROW or n FOLLOWING.
func (f *FrameBound) String() string { return str(f) }

func (f *FrameBound) format(b *strings.Builder) {
	if f == nil {
		return
	}
	switch {
	case f.Unbounded:
		b.WriteString("UNBOUNDED")
	case f.Current:
		b.WriteString("CURRENT ROW")
	default:
		f.Offset.format(b)
	}
	if f.Direction != "" {
		b.WriteString(" " + canon(f.Direction, "PRECEDING", "FOLLOWING"))
	}
}

// String prints the column, qualified as written: t.col.
func (c *ColumnRef) String() string { return str(c) }

func (c *ColumnRef) format(b *strings.Builder) {
	if c == nil {
		return
	}
	for i, p := range c.Parts {
		if i > 0 {
			b.WriteString(".")
		}
		p.format(b)
	}
}

// String prints the type in upper case, e.g. "ROW<a INT, b STRING> NOT
// NULL" or "TIMESTAMP(3) WITH LOCAL TIME ZONE". DESCRIBE shows it.
func (t *TypeExpr) String() string { return str(t) }

func (t *TypeExpr) format(b *strings.Builder) {
	if t == nil {
		return
	}
	switch {
	case t.Interval != nil:
		b.WriteString("INTERVAL ")
		t.Interval.format(b)
	case t.Array != nil:
		b.WriteString("ARRAY<")
		t.Array.format(b)
		b.WriteString(">")
	case t.Map != nil:
		b.WriteString("MAP<")
		t.Map.format(b)
		b.WriteString(">")
	case t.Row != nil:
		b.WriteString("ROW<")
		list(b, t.Row)
		b.WriteString(">")
	default:
		b.WriteString(upper(t.Name))
		if len(t.Params) > 0 {
			b.WriteString("(")
			for i, p := range t.Params {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(p)
			}
			b.WriteString(")")
		}
		if t.LTZ {
			b.WriteString(" WITH LOCAL TIME ZONE")
		}
		if t.NoTZ {
			b.WriteString(" WITHOUT TIME ZONE")
		}
	}
	if t.NotNull {
		b.WriteString(" NOT NULL")
	} else if t.Null {
		b.WriteString(" NULL")
	}
}

// String prints the qualifier of an INTERVAL type: DAY TO SECOND.
func (t *IntervalType) String() string { return str(t) }

func (t *IntervalType) format(b *strings.Builder) {
	if t == nil {
		return
	}
	b.WriteString(upper(t.From))
	if t.To != "" {
		b.WriteString(" TO ")
		b.WriteString(upper(t.To))
	}
}

// String prints K, V (without MAP< and >).
func (m *MapType) String() string { return str(m) }

func (m *MapType) format(b *strings.Builder) {
	if m == nil {
		return
	}
	m.Key.format(b)
	b.WriteString(", ")
	m.Value.format(b)
}

// String prints name type.
func (f *FieldType) String() string { return str(f) }

func (f *FieldType) format(b *strings.Builder) {
	if f == nil {
		return
	}
	f.Name.format(b)
	b.WriteString(" ")
	f.Type.format(b)
}
