package sqlmini

import "strings"

// JSONClauses are the clauses that Flink's JSON functions take after their
// arguments:
//
//	JSON_VALUE(json, path [RETURNING type] [behavior ON EMPTY] [behavior ON ERROR])
//	JSON_QUERY(json, path [WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL] [ARRAY] WRAPPER] [behavior ON EMPTY] [behavior ON ERROR])
//	JSON_EXISTS(json, path [behavior ON ERROR])
//	JSON_ARRAY(v, ... [NULL | ABSENT ON NULL]), JSON_ARRAYAGG(v [NULL | ABSENT ON NULL])
//	JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL]), JSON_OBJECTAGG(...)
//
// The grammar takes them on any call; the functions that do not take one
// refuse it.
type JSONClauses struct {
	Pos       Pos
	Returning *TypeExpr `parser:"( 'RETURNING' @@ )?"`
	// Without is WITHOUT [ARRAY] WRAPPER; With is WITH [CONDITIONAL |
	// UNCONDITIONAL] [ARRAY] WRAPPER, Wrap the word between.
	Without   bool            `parser:"( @'WITHOUT' 'ARRAY'? 'WRAPPER'"`
	With      bool            `parser:"| @'WITH'"`
	Wrap      string          `parser:"  @('CONDITIONAL' | 'UNCONDITIONAL')? 'ARRAY'? 'WRAPPER' )?"`
	Behaviors []*JSONBehavior `parser:"@@*"`
	// NullKind is NULL or ABSENT of NULL | ABSENT ON NULL. (A bare ON
	// NULL after a NULL argument is NULL ON NULL: JSON_ARRAY(NULL ON
	// NULL) parses its NULL as an argument first; Parse moves it here.)
	NullKind string `parser:"( @('NULL' | 'ABSENT')?"`
	OnNull   bool   `parser:"  @'ON' 'NULL' )?"`
	// Pairs marks the arguments of JSON_OBJECT and JSON_OBJECTAGG as key,
	// value, key, value, ... (set by Parse, not by the grammar).
	Pairs bool
}

// JSONBehavior is one ON EMPTY or ON ERROR clause: NULL, ERROR, TRUE,
// FALSE, UNKNOWN, EMPTY ARRAY, EMPTY OBJECT or DEFAULT expr.
type JSONBehavior struct {
	Pos     Pos
	Kind    string `parser:"(  @('NULL' | 'ERROR' | 'TRUE' | 'FALSE' | 'UNKNOWN')"`
	Empty   string `parser:" | 'EMPTY' @('ARRAY' | 'OBJECT')"`
	Default *Expr  `parser:" | 'DEFAULT' @@ )"`
	On      string `parser:"'ON' @('EMPTY' | 'ERROR')"`
}

// What is the behavior in words: NULL, ERROR, TRUE, FALSE, UNKNOWN, EMPTY
// ARRAY, EMPTY OBJECT or DEFAULT.
func (b *JSONBehavior) What() string {
	switch {
	case b.Default != nil:
		return "DEFAULT"
	case b.Empty != "":
		return "EMPTY " + strings.ToUpper(b.Empty)
	}
	return strings.ToUpper(b.Kind)
}

// JSONObject is JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL])
// or JSON_OBJECTAGG([KEY] k VALUE v [NULL | ABSENT ON NULL]) as written.
type JSONObject struct {
	Pos   Pos
	Name  string      `parser:"@( 'JSON_OBJECT' | 'JSON_OBJECTAGG' ) '('"`
	Only  *JSONOnNull `parser:"(  @@"`
	Pairs []*JSONPair `parser:" | @@ ( ',' @@ )* )?"`
	Null  *JSONOnNull `parser:"@@? ')'"`
}

// JSONPair is [KEY] k VALUE v.
type JSONPair struct {
	Pos   Pos
	Key   *Expr `parser:"'KEY'? @@"`
	Value *Expr `parser:"'VALUE' @@"`
}

// JSONOnNull is NULL ON NULL or ABSENT ON NULL.
type JSONOnNull struct {
	Pos  Pos
	Kind string `parser:"@('NULL' | 'ABSENT') 'ON' 'NULL'"`
}

// fixJSON turns each JSONObject of the tree into the FuncCall it stands
// for, and a bare ON NULL after a NULL argument into NULL ON NULL.
func fixJSON(node any) error {
	var err error
	Walk(node, func(n any) bool {
		switch p := n.(type) {
		case *Primary:
			if o := p.JSONObject; o != nil {
				f := &FuncCall{Pos: o.Pos, Name: &Name{Pos: o.Pos, Value: Ident(strings.ToUpper(o.Name))}, JSON: &JSONClauses{Pos: o.Pos, Pairs: true}}
				for _, pair := range o.Pairs {
					f.Args = append(f.Args, pair.Key, pair.Value)
				}
				for _, on := range []*JSONOnNull{o.Only, o.Null} {
					if on != nil {
						f.JSON.NullKind, f.JSON.OnNull = on.Kind, true
					}
				}
				p.Func, p.JSONObject = f, nil
			}
		case *FuncCall:
			j := p.JSON
			if j != nil && j.Returning == nil && !j.With && !j.Without && len(j.Behaviors) == 0 && !j.OnNull && !j.Pairs {
				p.JSON = nil // the grammar's empty match
				return true
			}
			if j == nil || !j.OnNull || j.NullKind != "" {
				return true
			}
			if k := len(p.Args); k > 0 && isNullLiteral(p.Args[k-1]) {
				p.Args, j.NullKind = p.Args[:k-1], "NULL"
				return true
			}
			if err == nil {
				err = Errorf(j.Pos, "ON NULL needs NULL or ABSENT before it: NULL ON NULL or ABSENT ON NULL")
			}
		}
		return true
	})
	return err
}

// isNullLiteral reports whether e is the literal NULL alone.
func isNullLiteral(e *Expr) bool {
	p := e.SolePrimary()
	return p != nil && p.Null
}

// SolePrimary returns the primary that e is made of alone (a literal, a
// call, a column, ...: no operator, sign or subscript around it), or nil.
func (e *Expr) SolePrimary() *Primary {
	if e == nil || len(e.Right) > 0 || len(e.Left.Right) > 0 || e.Left.Left.Pred == nil {
		return nil
	}
	p := e.Left.Left.Pred
	if p.Op != "" || p.Negated || p.InQuery != nil || p.In != nil || p.Between != nil || p.Like != nil || p.IsNull || p.NotNull || p.DistinctFrom != nil || p.Truth != "" {
		return nil
	}
	a := p.Left
	if len(a.Right) > 0 || len(a.Left.Right) > 0 {
		return nil
	}
	u := a.Left.Left
	if u.Minus || u.Plus || len(u.Subscripts) > 0 {
		return nil
	}
	return u.Primary
}

// formatJSON writes the clauses after a call's arguments.
func (j *JSONClauses) format(b *strings.Builder) {
	if j == nil {
		return
	}
	// Each clause after a space, but the first right after "(".
	w := func(s string) {
		if !strings.HasSuffix(b.String(), "(") {
			b.WriteString(" ")
		}
		b.WriteString(s)
	}
	if j.Returning != nil {
		w("RETURNING ")
		j.Returning.format(b)
	}
	switch {
	case j.Without:
		w("WITHOUT ARRAY WRAPPER")
	case j.With && j.Wrap != "":
		w("WITH " + strings.ToUpper(j.Wrap) + " ARRAY WRAPPER")
	case j.With:
		w("WITH ARRAY WRAPPER")
	}
	for _, be := range j.Behaviors {
		if be.Default != nil {
			w("DEFAULT ")
			be.Default.format(b)
		} else {
			w(be.What())
		}
		b.WriteString(" ON " + strings.ToUpper(be.On))
	}
	if j.NullKind != "" {
		w(strings.ToUpper(j.NullKind) + " ON NULL")
	}
}
