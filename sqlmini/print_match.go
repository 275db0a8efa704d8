package sqlmini

import "strings"

// String prints MATCH_RECOGNIZE (...).
func (m *MatchRecognize) String() string { return str(m) }

func (m *MatchRecognize) format(b *strings.Builder) {
	if m == nil {
		return
	}
	b.WriteString("MATCH_RECOGNIZE (")
	sep := ""
	clause := func(s string) {
		b.WriteString(sep)
		b.WriteString(s)
		sep = " "
	}
	if len(m.PartitionBy) > 0 {
		clause("PARTITION BY ")
		list(b, m.PartitionBy)
	}
	if len(m.OrderBy) > 0 {
		clause("ORDER BY ")
		list(b, m.OrderBy)
	}
	if len(m.Measures) > 0 {
		clause("MEASURES ")
		list(b, m.Measures)
	}
	switch {
	case m.OneRow:
		clause("ONE ROW PER MATCH")
	case m.AllRows:
		clause("ALL ROWS PER MATCH")
	}
	if m.After != nil {
		clause("AFTER MATCH SKIP ")
		m.After.format(b)
	}
	clause("PATTERN (")
	m.Pattern.format(b)
	b.WriteString(")")
	if m.Within != nil {
		clause("WITHIN ")
		m.Within.format(b)
	}
	if len(m.Subsets) > 0 {
		clause("SUBSET ")
		list(b, m.Subsets)
	}
	clause("DEFINE ")
	list(b, m.Defines)
	b.WriteString(")")
}

// String prints expr AS name.
func (m *Measure) String() string { return str(m) }

func (m *Measure) format(b *strings.Builder) {
	if m == nil {
		return
	}
	m.Expr.format(b)
	b.WriteString(" AS ")
	m.Name.format(b)
}

// String prints name AS condition.
func (d *Define) String() string { return str(d) }

func (d *Define) format(b *strings.Builder) {
	if d == nil {
		return
	}
	d.Name.format(b)
	b.WriteString(" AS ")
	d.Cond.format(b)
}

// String prints name = (names).
func (s *Subset) String() string { return str(s) }

func (s *Subset) format(b *strings.Builder) {
	if s == nil {
		return
	}
	s.Name.format(b)
	b.WriteString(" = (")
	list(b, s.Names)
	b.WriteString(")")
}

// String prints the target of AFTER MATCH SKIP.
func (a *AfterMatch) String() string { return str(a) }

func (a *AfterMatch) format(b *strings.Builder) {
	if a == nil {
		return
	}
	switch {
	case a.PastLast:
		b.WriteString("PAST LAST ROW")
	case a.NextRow:
		b.WriteString("TO NEXT ROW")
	case a.First != nil:
		b.WriteString("TO FIRST ")
		a.First.format(b)
	case a.Last != nil:
		b.WriteString("TO LAST ")
		a.Last.format(b)
	case a.Var != nil:
		b.WriteString("TO ")
		a.Var.format(b)
	}
}

// String prints the pattern.
func (p *Pattern) String() string { return str(p) }

func (p *Pattern) format(b *strings.Builder) {
	if p == nil {
		return
	}
	for i, t := range p.Alts {
		if i > 0 {
			b.WriteString(" | ")
		}
		t.format(b)
	}
}

// String prints the factors separated by spaces.
func (t *PatternTerm) String() string { return str(t) }

func (t *PatternTerm) format(b *strings.Builder) {
	if t == nil {
		return
	}
	for i, f := range t.Factors {
		if i > 0 {
			b.WriteString(" ")
		}
		f.format(b)
	}
}

// String prints the primary and its quantifier.
func (f *PatternFactor) String() string { return str(f) }

func (f *PatternFactor) format(b *strings.Builder) {
	if f == nil {
		return
	}
	f.Prim.format(b)
	f.Quant.format(b)
}

// String prints a variable, a group, an exclusion, PERMUTE or an anchor.
func (p *PatternPrimary) String() string { return str(p) }

func (p *PatternPrimary) format(b *strings.Builder) {
	if p == nil {
		return
	}
	switch {
	case p.Var != nil:
		p.Var.format(b)
	case p.IsGroup:
		b.WriteString("(")
		p.Group.format(b)
		b.WriteString(")")
	case p.Exclude != nil:
		b.WriteString("{- ")
		p.Exclude.format(b)
		b.WriteString(" -}")
	case len(p.Permute) > 0:
		b.WriteString("PERMUTE(")
		list(b, p.Permute)
		b.WriteString(")")
	default:
		b.WriteString(p.Anchor)
	}
}

// String prints the quantifier: *, +, ?, {n,m}, with ? when reluctant.
func (q *Quantifier) String() string { return str(q) }

func (q *Quantifier) format(b *strings.Builder) {
	if q == nil {
		return
	}
	switch {
	case q.Star:
		b.WriteString("*")
	case q.Plus:
		b.WriteString("+")
	case q.Quest:
		b.WriteString("?")
	default:
		b.WriteString("{")
		if q.Min != nil {
			b.WriteString(*q.Min)
		}
		if q.Comma {
			b.WriteString(",")
		}
		if q.Max != nil {
			b.WriteString(*q.Max)
		}
		b.WriteString("}")
	}
	if q.Reluctant {
		b.WriteString("?")
	}
}
