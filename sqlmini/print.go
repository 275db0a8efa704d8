package sqlmini

import (
	"regexp"
	"strings"
)

// Printing back.
//
// Every node's String() prints it as canonical SQL on one line: keywords
// and type names in upper case, single spaces, identifiers backquoted only
// when they need it (see QuoteIdent), strings re-quoted with '' escaping,
// $$ bodies kept as they were. Comments and the original spacing are gone.
// Parsing what String() prints gives a tree that prints the same again.
//
// A few spellings are not kept because the AST does not record them: TEMP
// prints as TEMPORARY, DESC (the statement) as DESCRIBE, EXPLAIN PLAN FOR
// as EXPLAIN, ROW(a INT) as
// ROW<a INT>; SYSTEM in CREATE/DROP TEMPORARY SYSTEM FUNCTION, the
// precisions of interval units (INTERVAL '1' SECOND(3)) and an empty
// WITH () are dropped. A node's String() covers the node alone: the
// structs holding "the rest of" a statement (CreateFunction, CreateView,
// CreateTable) print without their leading CREATE ... keywords, and AddOp
// and MulOp print as "+ x". Primary has no String method, as its field
// String takes the name: print the Unary or Expr around it.

// formatter is implemented by every node; String() methods wrap it.
type formatter interface {
	format(b *strings.Builder)
}

func str(f formatter) string {
	var b strings.Builder
	f.format(&b)
	return b.String()
}

// list writes xs separated by ", ".
func list[T formatter](b *strings.Builder, xs []T) {
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		x.format(b)
	}
}

// plainIdent matches what the lexer reads as one Ident token.
var plainIdent = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*$`)

// QuoteIdent returns name as it must be written in SQL: unchanged when
// it reads back as the same plain identifier, else between backquotes
// (with ` doubled). Reserved words, empty names and names with spaces or
// punctuation are quoted: QuoteIdent("count") is count, QuoteIdent("from")
// is `from`, QuoteIdent("a b") is `a b`.
func QuoteIdent(name string) string {
	if plainIdent.MatchString(name) && !IsReserved(name) {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// QuoteString returns s as a SQL string literal: between single quotes,
// with each single quote inside doubled.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// canon returns the one of words that v spells (v was matched
// case-insensitively against them), or v upper-cased.
func canon(v string, words ...string) string {
	for _, w := range words {
		if strings.EqualFold(v, w) {
			return w
		}
	}
	return upper(v)
}

// String prints the statements, each followed by ";" and a newline.
func (s *Script) String() string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	for _, st := range s.Statements {
		st.format(&b)
		b.WriteString(";\n")
	}
	return b.String()
}

// String prints the statement without a final semicolon.
func (s *Statement) String() string { return str(s) }

func (s *Statement) format(b *strings.Builder) {
	if s == nil {
		return
	}
	switch {
	case s.Create != nil:
		s.Create.format(b)
	case s.Drop != nil:
		s.Drop.format(b)
	case s.Show != nil:
		s.Show.format(b)
	case s.Describe != nil:
		s.Describe.format(b)
	case s.Set != nil:
		s.Set.format(b)
	case s.Reset != nil:
		s.Reset.format(b)
	case s.Explain != nil:
		s.Explain.format(b)
	case s.StatementSet != nil:
		s.StatementSet.format(b)
	case s.Insert != nil:
		s.Insert.format(b)
	case s.BeginSet != nil:
		b.WriteString("BEGIN STATEMENT SET")
	case s.EndSet != nil:
		b.WriteString("END")
	case s.Command != nil:
		s.Command.format(b)
	case s.Advance != nil:
		s.Advance.format(b)
	case s.Query != nil:
		s.Query.format(b)
	}
}

// String prints the name, backquoted if it must be (see QuoteIdent).
func (n *Name) String() string { return str(n) }

func (n *Name) format(b *strings.Builder) {
	if n == nil {
		return
	}
	b.WriteString(QuoteIdent(string(n.Value)))
}

// String prints CREATE [OR REPLACE] [TEMPORARY] FUNCTION | VIEW | TABLE ....
func (c *Create) String() string { return str(c) }

func (c *Create) format(b *strings.Builder) {
	if c == nil {
		return
	}
	b.WriteString("CREATE ")
	if c.OrReplace {
		b.WriteString("OR REPLACE ")
	}
	if c.Temporary {
		b.WriteString("TEMPORARY ")
	}
	switch {
	case c.Function != nil:
		b.WriteString("FUNCTION ")
		c.Function.format(b)
	case c.View != nil:
		b.WriteString("VIEW ")
		c.View.format(b)
	case c.Table != nil:
		b.WriteString("TABLE ")
		c.Table.format(b)
	case c.Stream != nil:
		b.WriteString("STREAM ")
		c.Stream.format(b)
	}
}

// String prints ADVANCE WATERMARK | PROCESSING TIME stream TO time | END
// | BY interval.
func (a *Advance) String() string { return str(a) }

func (a *Advance) format(b *strings.Builder) {
	if a == nil {
		return
	}
	if a.Processing {
		b.WriteString("ADVANCE PROCESSING TIME ")
	} else {
		b.WriteString("ADVANCE WATERMARK ")
	}
	a.Stream.format(b)
	if a.By != nil {
		b.WriteString(" BY ")
		a.By.format(b)
		return
	}
	if a.End {
		b.WriteString(" TO END")
		return
	}
	b.WriteString(" TO ")
	if to := a.To.String(); strings.EqualFold(to, "end") {
		b.WriteString("`" + to + "`") // a column named end, not the end of input
		return
	}
	a.To.format(b)
}

// String prints the part after CREATE [TEMPORARY] FUNCTION, with the
// language upper-cased.
func (c *CreateFunction) String() string { return str(c) }

func (c *CreateFunction) format(b *strings.Builder) {
	if c == nil {
		return
	}
	if c.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	c.Name.format(b)
	lang := func(n *Name) {
		b.WriteString(" LANGUAGE ")
		b.WriteString(QuoteIdent(upper(string(n.Value))))
	}
	if c.Lang1 != nil {
		lang(c.Lang1)
	}
	b.WriteString(" AS ")
	switch {
	case c.Body1 != nil:
		c.Body1.format(b)
	case c.Body2 != nil:
		c.Body2.format(b)
	case c.Path != nil:
		b.WriteString(QuoteString(string(*c.Path)))
	}
	if c.Lang2 != nil {
		lang(c.Lang2)
	}
}

func (body *Body) format(b *strings.Builder) {
	b.WriteString("$$")
	b.WriteString(string(*body))
	b.WriteString("$$")
}

// String prints the part after CREATE [TEMPORARY] VIEW.
func (v *CreateView) String() string { return str(v) }

func (v *CreateView) format(b *strings.Builder) {
	if v == nil {
		return
	}
	v.Name.format(b)
	if len(v.Columns) > 0 {
		b.WriteString(" (")
		list(b, v.Columns)
		b.WriteString(")")
	}
	b.WriteString(" AS ")
	v.Query.format(b)
}

// String prints the part after CREATE [TEMPORARY] TABLE.
func (t *CreateTable) String() string { return str(t) }

func (t *CreateTable) format(b *strings.Builder) {
	if t == nil {
		return
	}
	t.Name.format(b)
	if len(t.Elements) > 0 {
		b.WriteString(" (")
		list(b, t.Elements)
		b.WriteString(")")
	}
	if len(t.Options) > 0 {
		b.WriteString(" WITH (")
		list(b, t.Options)
		b.WriteString(")")
	}
	t.Like.format(b)
	if t.Query != nil {
		b.WriteString(" AS ")
		t.Query.format(b)
	}
}

// String prints LIKE source [(options)].
func (l *TableLike) String() string { return strings.TrimPrefix(str(l), " ") }

func (l *TableLike) format(b *strings.Builder) {
	if l == nil {
		return
	}
	b.WriteString(" LIKE ")
	l.Source.format(b)
	if len(l.Options) > 0 {
		b.WriteString(" (")
		for i, o := range l.Options {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(strings.ToUpper(o.Strategy) + " " + strings.ToUpper(o.Feature))
		}
		b.WriteString(")")
	}
}

// String prints the column, PRIMARY KEY or WATERMARK declaration.
func (e *TableElement) String() string { return str(e) }

func (e *TableElement) format(b *strings.Builder) {
	if e == nil {
		return
	}
	switch {
	case e.PrimaryKey != nil:
		e.PrimaryKey.format(b)
	case e.Watermark != nil:
		e.Watermark.format(b)
	case e.Column != nil:
		e.Column.format(b)
	}
}

// String prints PRIMARY KEY (cols) NOT ENFORCED.
func (k *PrimaryKey) String() string { return str(k) }

func (k *PrimaryKey) format(b *strings.Builder) {
	if k == nil {
		return
	}
	b.WriteString("PRIMARY KEY (")
	list(b, k.Columns)
	b.WriteString(") NOT ENFORCED")
}

// String prints WATERMARK FOR col AS expr.
func (w *Watermark) String() string { return str(w) }

func (w *Watermark) format(b *strings.Builder) {
	if w == nil {
		return
	}
	b.WriteString("WATERMARK FOR ")
	w.Column.format(b)
	b.WriteString(" AS ")
	w.Expr.format(b)
}

// String prints name type [METADATA [FROM 'key'] [VIRTUAL]] [PRIMARY KEY NOT ENFORCED].
func (c *ColumnDef) String() string { return str(c) }

func (c *ColumnDef) format(b *strings.Builder) {
	if c == nil {
		return
	}
	c.Name.format(b)
	if c.Computed != nil {
		b.WriteString(" AS ")
		c.Computed.format(b)
		return
	}
	b.WriteString(" ")
	c.Type.format(b)
	if m := c.Metadata; m != nil {
		b.WriteString(" METADATA")
		if m.From != nil {
			b.WriteString(" FROM " + QuoteString(string(*m.From)))
		}
		if m.Virtual {
			b.WriteString(" VIRTUAL")
		}
	}
	if c.PrimaryKey {
		b.WriteString(" PRIMARY KEY NOT ENFORCED")
	}
}

// String prints 'key' = 'value'.
func (o *Option) String() string { return str(o) }

func (o *Option) format(b *strings.Builder) {
	if o == nil {
		return
	}
	b.WriteString(QuoteString(string(o.Key)))
	b.WriteString(" = ")
	b.WriteString(QuoteString(string(o.Value)))
}

// String prints DROP [TEMPORARY] kind [IF EXISTS] name.
func (d *Drop) String() string { return str(d) }

func (d *Drop) format(b *strings.Builder) {
	if d == nil {
		return
	}
	b.WriteString("DROP ")
	if d.Temporary {
		b.WriteString("TEMPORARY ")
	}
	if d.State != nil {
		b.WriteString("STATE FOR " + QuoteString(string(*d.State)))
		return
	}
	b.WriteString(canon(d.Kind, "FUNCTION", "TABLE", "VIEW"))
	b.WriteString(" ")
	if d.IfExists {
		b.WriteString("IF EXISTS ")
	}
	d.Name.format(b)
}

// String prints SHOW [USER] FUNCTIONS | TABLES | VIEWS.
func (s *Show) String() string { return str(s) }

func (s *Show) format(b *strings.Builder) {
	if s == nil {
		return
	}
	b.WriteString("SHOW ")
	if s.Inspect != "" {
		b.WriteString(canon(s.Inspect, "STATE", "TIMERS") + " FOR " + QuoteString(string(*s.UID)))
		if len(s.Key) > 0 {
			b.WriteString(" KEY (")
			list(b, s.Key)
			b.WriteString(")")
		}
		return
	}
	if s.CreateOf != "" {
		b.WriteString("CREATE " + canon(s.CreateOf, "TABLE", "VIEW", "FUNCTION") + " ")
		s.Name.format(b)
		return
	}
	if s.Topics {
		b.WriteString("TOPICS")
		if s.TopicsOf != nil {
			b.WriteString(" FROM ")
			s.TopicsOf.format(b)
		} else if s.TopicsAt != nil {
			b.WriteString(" IN " + QuoteString(string(*s.TopicsAt)))
		}
		return
	}
	if s.User {
		b.WriteString("USER ")
	}
	b.WriteString(canon(s.What, "FUNCTIONS", "TABLES", "VIEWS"))
	if s.Pattern != nil {
		if s.NotLike {
			b.WriteString(" NOT")
		}
		b.WriteString(" " + canon(s.Like, "LIKE", "ILIKE") + " " + QuoteString(string(*s.Pattern)))
	}
}

// String prints DESCRIBE [FUNCTION [EXTENDED]] name.
func (d *Describe) String() string { return str(d) }

func (d *Describe) format(b *strings.Builder) {
	if d == nil {
		return
	}
	b.WriteString("DESCRIBE ")
	if d.Function {
		b.WriteString("FUNCTION ")
		if d.Extended {
			b.WriteString("EXTENDED ")
		}
	}
	// A name spelled as the word that may follow would read as that word.
	if n := d.Name; n != nil && (strings.EqualFold(string(n.Value), "FUNCTION") || strings.EqualFold(string(n.Value), "EXTENDED")) {
		b.WriteString("`" + string(n.Value) + "`")
		return
	}
	d.Name.format(b)
}

// String prints HELP, QUIT or EXIT.
func (c *Command) String() string { return str(c) }

func (c *Command) format(b *strings.Builder) {
	if c == nil {
		return
	}
	b.WriteString(canon(c.Word, "HELP", "QUIT", "EXIT"))
}

// String prints SET or SET 'key' = 'value'.
func (s *Set) String() string { return str(s) }

func (s *Set) format(b *strings.Builder) {
	if s == nil {
		return
	}
	b.WriteString("SET")
	if s.Key != nil {
		b.WriteString(" ")
		b.WriteString(QuoteString(string(*s.Key)))
		if s.Value != nil {
			b.WriteString(" = ")
			b.WriteString(QuoteString(string(*s.Value)))
		}
	}
}

// String prints RESET ['key'].
func (r *Reset) String() string { return str(r) }

func (r *Reset) format(b *strings.Builder) {
	if r == nil {
		return
	}
	b.WriteString("RESET")
	if r.Key != nil {
		b.WriteString(" ")
		b.WriteString(QuoteString(string(*r.Key)))
	}
}

// String prints EXPLAIN [TIMELINE | WHY | details] and what it explains.
func (e *Explain) String() string { return str(e) }

func (e *Explain) format(b *strings.Builder) {
	if e == nil {
		return
	}
	b.WriteString("EXPLAIN ")
	switch {
	case e.Timeline:
		b.WriteString("TIMELINE ")
	case e.Why:
		b.WriteString("WHY ")
	case len(e.Details) > 0:
		for i, d := range e.Details {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(upper(d))
		}
		b.WriteString(" ")
	}
	switch {
	case e.StatementSet != nil:
		e.StatementSet.format(b)
	case e.Insert != nil:
		e.Insert.format(b)
	default:
		e.Query.format(b)
	}
}

// String prints INSERT INTO table query.
func (i *Insert) String() string { return str(i) }

func (i *Insert) format(b *strings.Builder) {
	if i == nil {
		return
	}
	if i.Overwrite {
		b.WriteString("INSERT OVERWRITE ")
	} else {
		b.WriteString("INSERT INTO ")
	}
	i.Table.format(b)
	b.WriteString(" ")
	i.Query.format(b)
}

// String prints EXECUTE STATEMENT SET BEGIN insert; ... END on one line.
func (s *StatementSet) String() string { return str(s) }

func (s *StatementSet) format(b *strings.Builder) {
	if s == nil {
		return
	}
	b.WriteString("EXECUTE STATEMENT SET BEGIN ")
	for _, in := range s.Inserts {
		in.format(b)
		b.WriteString("; ")
	}
	b.WriteString("END")
}
