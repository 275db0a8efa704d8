package sqlmini

import "strings"

// Printing back queries: the query, its set operations and WITH, SELECT
// and VALUES, the FROM clause with its joins and table function calls,
// and the sort and window items (print.go has the rules and statements).

// String prints [WITH ctes] body [UNION | INTERSECT | EXCEPT [ALL |
// DISTINCT] body]....
func (q *Query) String() string { return str(q) }

func (q *Query) format(b *strings.Builder) {
	if q == nil {
		return
	}
	if len(q.With) > 0 {
		b.WriteString("WITH ")
		list(b, q.With)
		b.WriteString(" ")
	}
	q.Body.format(b)
	for _, op := range q.Ops {
		b.WriteString(" ")
		op.format(b)
	}
}

// String prints UNION | INTERSECT | EXCEPT | MINUS [ALL | DISTINCT] and the
// right operand.
func (o *SetOp) String() string { return str(o) }

func (o *SetOp) format(b *strings.Builder) {
	if o == nil {
		return
	}
	b.WriteString(canon(o.Op, "UNION", "INTERSECT", "EXCEPT", "MINUS"))
	switch {
	case o.All:
		b.WriteString(" ALL")
	case o.Distinct:
		b.WriteString(" DISTINCT")
	}
	b.WriteString(" ")
	o.Right.format(b)
}

// String prints name [(cols)] AS (query).
func (c *CTE) String() string { return str(c) }

func (c *CTE) format(b *strings.Builder) {
	if c == nil {
		return
	}
	c.Name.format(b)
	if len(c.Columns) > 0 {
		b.WriteString(" (")
		list(b, c.Columns)
		b.WriteString(")")
	}
	b.WriteString(" AS (")
	c.Query.format(b)
	b.WriteString(")")
}

// String prints the SELECT, the VALUES or the parenthesized query.
func (s *SetExpr) String() string { return str(s) }

func (s *SetExpr) format(b *strings.Builder) {
	if s == nil {
		return
	}
	switch {
	case s.Select != nil:
		s.Select.format(b)
	case s.Values != nil:
		s.Values.format(b)
	case s.Paren != nil:
		b.WriteString("(")
		s.Paren.format(b)
		b.WriteString(")")
	}
}

// String prints VALUES (row), ....
func (v *Values) String() string { return str(v) }

func (v *Values) format(b *strings.Builder) {
	if v == nil {
		return
	}
	b.WriteString("VALUES ")
	list(b, v.Rows)
}

// String prints (v1, v2, ...).
func (r *ValuesRow) String() string { return str(r) }

func (r *ValuesRow) format(b *strings.Builder) {
	if r == nil {
		return
	}
	if r.Watermark != nil {
		b.WriteString("WATERMARK ")
		r.Watermark.format(b)
		return
	}
	b.WriteString("(")
	list(b, r.Values)
	b.WriteString(")")
}

// String prints SELECT ... FROM ... [WHERE] [GROUP BY] [LIMIT].
func (s *Select) String() string { return str(s) }

func (s *Select) format(b *strings.Builder) {
	if s == nil {
		return
	}
	b.WriteString("SELECT ")
	if s.Distinct {
		b.WriteString("DISTINCT ")
	}
	list(b, s.Items)
	if s.From != nil {
		b.WriteString(" FROM ")
		s.From.format(b)
		for _, j := range s.Joins {
			j.format(b)
		}
	}
	if s.Where != nil {
		b.WriteString(" WHERE ")
		s.Where.format(b)
	}
	if len(s.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		list(b, s.GroupBy)
	}
	if s.Having != nil {
		b.WriteString(" HAVING ")
		s.Having.format(b)
	}
	if len(s.Windows) > 0 {
		b.WriteString(" WINDOW ")
		list(b, s.Windows)
	}
	if len(s.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		list(b, s.OrderBy)
	}
	if s.Limit != nil {
		b.WriteString(" LIMIT ")
		b.WriteString(*s.Limit)
	}
	if s.Offset != nil {
		b.WriteString(" OFFSET ")
		b.WriteString(*s.Offset)
		b.WriteString(" ROWS")
	}
	if s.Fetch != nil {
		b.WriteString(" FETCH NEXT ")
		b.WriteString(*s.Fetch)
		b.WriteString(" ROWS ONLY")
	}
}

// String prints * or expr [AS alias].
func (s *SelectItem) String() string { return str(s) }

func (s *SelectItem) format(b *strings.Builder) {
	if s == nil {
		return
	}
	if s.Star {
		b.WriteString("*")
		return
	}
	if s.StarOf != nil {
		s.StarOf.format(b)
		b.WriteString(".*")
		return
	}
	s.Expr.format(b)
	if s.Alias != nil {
		b.WriteString(" AS ")
		s.Alias.format(b)
	}
}

// String prints the source with its alias: t AS u, TABLE(f(...)),
// (VALUES ...) AS T(a, b).
func (f *FromItem) String() string { return str(f) }

func (f *FromItem) format(b *strings.Builder) {
	if f == nil {
		return
	}
	if f.Lateral {
		b.WriteString("LATERAL ")
	}
	switch {
	case f.Call != nil:
		b.WriteString("TABLE(")
		f.Call.format(b)
		b.WriteString(")")
	case f.Call2 != nil:
		f.Call2.format(b)
	case f.Subquery != nil:
		b.WriteString("(")
		f.Subquery.format(b)
		b.WriteString(")")
	case f.Table != nil:
		f.Table.format(b)
		if len(f.Hints) > 0 {
			b.WriteString(" /*+ ")
			for i, h := range f.Hints {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(h.String())
			}
			b.WriteString(" */")
		}
	}
	if f.AsOf != nil {
		b.WriteString(" FOR SYSTEM_TIME AS OF ")
		f.AsOf.format(b)
	}
	if f.Match != nil {
		b.WriteString(" ")
		f.Match.format(b)
	}
	if f.Alias != nil {
		b.WriteString(" AS ")
		f.Alias.format(b)
		if len(f.AliasCols) > 0 {
			b.WriteString("(")
			list(b, f.AliasCols)
			b.WriteString(")")
		}
	}
}

// String prints one join of a FROM clause, with the space or comma
// before it: ", t" or " LEFT JOIN t ON cond".
func (j *Join) String() string { return str(j) }

func (j *Join) format(b *strings.Builder) {
	if j == nil {
		return
	}
	if j.Comma {
		b.WriteString(", ")
		j.Item.format(b)
		return
	}
	b.WriteString(" ")
	if j.Natural {
		b.WriteString("NATURAL ")
	}
	if j.Kind != "" {
		b.WriteString(upper(j.Kind))
		b.WriteString(" ")
	}
	b.WriteString("JOIN ")
	j.Item.format(b)
	if j.On != nil {
		b.WriteString(" ON ")
		j.On.format(b)
	}
	if len(j.Using) > 0 {
		b.WriteString(" USING (")
		list(b, j.Using)
		b.WriteString(")")
	}
}

// String prints name(args).
func (c *Call) String() string { return str(c) }

func (c *Call) format(b *strings.Builder) {
	if c == nil {
		return
	}
	c.Name.format(b)
	b.WriteString("(")
	list(b, c.Args)
	b.WriteString(")")
}

// String prints [name => ] value.
func (a *Arg) String() string { return str(a) }

func (a *Arg) format(b *strings.Builder) {
	if a == nil {
		return
	}
	if a.Name != nil {
		a.Name.format(b)
		b.WriteString(" => ")
	}
	switch {
	case a.Table != nil:
		a.Table.format(b)
	case a.Default:
		b.WriteString("DEFAULT")
	case a.Expr != nil:
		a.Expr.format(b)
	}
}

// String prints TABLE t [PARTITION BY cols] [ORDER BY cols]; a list of
// more than one column is parenthesized.
func (t *TableArg) String() string { return str(t) }

func (t *TableArg) format(b *strings.Builder) {
	if t == nil {
		return
	}
	b.WriteString("TABLE ")
	if t.Query != nil {
		b.WriteString("(")
		t.Query.format(b)
		b.WriteString(")")
	} else {
		t.Name.format(b)
	}
	if len(t.PartitionBy) > 0 {
		b.WriteString(" PARTITION BY ")
		parenList(b, t.PartitionBy)
	}
	if len(t.OrderBy) > 0 {
		b.WriteString(" ORDER BY ")
		parenList(b, t.OrderBy)
	}
}

// parenList writes one element bare and more between parentheses.
func parenList[T formatter](b *strings.Builder, xs []T) {
	if len(xs) == 1 {
		xs[0].format(b)
		return
	}
	b.WriteString("(")
	list(b, xs)
	b.WriteString(")")
}

// String prints col [ASC | DESC] [NULLS FIRST | NULLS LAST].
func (o *OrderItem) String() string { return str(o) }

func (o *OrderItem) format(b *strings.Builder) {
	if o == nil {
		return
	}
	o.Column.format(b)
	formatOrder(b, o.Direction, o.Nulls)
}

// formatOrder prints the [ASC | DESC] [NULLS FIRST | LAST] after a sort
// key.
func formatOrder(b *strings.Builder, direction, nulls string) {
	if direction != "" {
		b.WriteString(" ")
		b.WriteString(canon(direction, "ASC", "DESC"))
	}
	if nulls != "" {
		b.WriteString(" NULLS ")
		b.WriteString(canon(nulls, "FIRST", "LAST"))
	}
}

// String prints expr [ASC | DESC] [NULLS FIRST | LAST].
func (o *SortItem) String() string { return str(o) }

func (o *SortItem) format(b *strings.Builder) {
	if o == nil {
		return
	}
	o.Expr.format(b)
	formatOrder(b, o.Direction, o.Nulls)
}

// String prints name AS (window).
func (w *NamedWindow) String() string { return str(w) }

func (w *NamedWindow) format(b *strings.Builder) {
	if w == nil {
		return
	}
	w.Name.format(b)
	b.WriteString(" AS (")
	w.Window.format(b)
	b.WriteString(")")
}
