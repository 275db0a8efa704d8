package sqlmini

import (
	"encoding/hex"
	"fmt"
)

// Expr is an expression: OR of ANDs.
type Expr struct {
	Pos   Pos
	Left  *AndExpr   `parser:"@@"`
	Right []*AndExpr `parser:"( 'OR' @@ )*"`
}

// AndExpr is a conjunction.
type AndExpr struct {
	Pos   Pos
	Left  *NotExpr   `parser:"@@"`
	Right []*NotExpr `parser:"( 'AND' @@ )*"`
}

// NotExpr is an optionally negated predicate.
type NotExpr struct {
	Pos  Pos
	Not  *NotExpr   `parser:"(  'NOT' @@"`
	Pred *Predicate `parser:" | @@ )"`
}

// Predicate is a comparison; an IN list or subquery, BETWEEN or LIKE
// test, each optionally negated by NOT; IS [NOT] NULL; IS [NOT] DISTINCT
// FROM; IS [NOT] TRUE | FALSE | UNKNOWN; or a plain value.
type Predicate struct {
	Pos   Pos
	Left  *Additive `parser:"@@"`
	Op    string    `parser:"( @('=' | '<>' | '!=' | '<=' | '>=' | '<' | '>')"`
	Right *Additive `parser:"  @@"`
	// Negated is the NOT of NOT IN, NOT BETWEEN and NOT LIKE.
	Negated bool `parser:"| @'NOT'? ( 'IN' '('"`
	// InQuery is the subquery of x [NOT] IN (SELECT ...), a semi or
	// anti join; In is a list of values.
	InQuery *Query      `parser:"    ( @@"`
	In      []*Additive `parser:"    | @@ ( ',' @@ )* ) ')'"`
	Between *Between    `parser:"  | @@"`
	Like    *Like       `parser:"  | @@ )"`
	IsNull  bool        `parser:"| 'IS' @'NULL'"`
	NotNull bool        `parser:"| 'IS' 'NOT' @'NULL'"`
	// NotDistinct and DistinctFrom are IS [NOT] DISTINCT FROM x: equality
	// (or its negation) where two NULLs are equal.
	NotDistinct  bool      `parser:"| 'IS' @'NOT'? 'DISTINCT' 'FROM'"`
	DistinctFrom *Additive `parser:"  @@"`
	// IsNot and Truth are IS [NOT] TRUE | FALSE | UNKNOWN, or IS [NOT]
	// JSON [VALUE | SCALAR | ARRAY | OBJECT] (Truth JSON, JSONKind the
	// word after it).
	IsNot    bool   `parser:"| 'IS' @'NOT'?"`
	Truth    string `parser:"  @('TRUE' | 'FALSE' | 'UNKNOWN' | 'JSON')"`
	JSONKind string `parser:"  @('VALUE' | 'SCALAR' | 'ARRAY' | 'OBJECT')? )?"`
}

// Between is the rest of x [NOT] BETWEEN [ASYMMETRIC | SYMMETRIC] low AND high.
type Between struct {
	Pos       Pos
	Symmetric string    `parser:"'BETWEEN' @('ASYMMETRIC' | 'SYMMETRIC')?"`
	Low       *Additive `parser:"@@"`
	High      *Additive `parser:"'AND' @@"`
}

// Like is the rest of x [NOT] LIKE pattern [ESCAPE char], or of x [NOT]
// SIMILAR TO pattern [ESCAPE char] (Similar).
type Like struct {
	Pos     Pos
	Similar bool      `parser:"( @'SIMILAR' 'TO' | 'LIKE' )"`
	Pattern *Additive `parser:"@@"`
	Escape  *Additive `parser:"( 'ESCAPE' @@ )?"`
}

// Additive is a sum or difference (and string concatenation ||).
type Additive struct {
	Pos   Pos
	Left  *Multiplicative `parser:"@@"`
	Right []*AddOp        `parser:"@@*"`
}

// AddOp is one + - or || step.
type AddOp struct {
	Pos   Pos
	Op    string          `parser:"@('+' | '-' | '||')"`
	Right *Multiplicative `parser:"@@"`
}

// Multiplicative is a product or quotient.
type Multiplicative struct {
	Pos   Pos
	Left  *Unary   `parser:"@@"`
	Right []*MulOp `parser:"@@*"`
}

// MulOp is one * / or % step.
type MulOp struct {
	Pos   Pos
	Op    string `parser:"@('*' | '/' | '%')"`
	Right *Unary `parser:"@@"`
}

// Unary is a primary with an optional sign: -x or +x, and subscripts:
// a[1], m['k'] (they bind tighter than the sign).
type Unary struct {
	Pos        Pos
	Minus      bool     `parser:"( @'-'"`
	Plus       bool     `parser:"| @'+' )?"`
	Primary    *Primary `parser:"@@"`
	Subscripts []*Expr  `parser:"( '[' @@ ']' )*"`
}

// Primary is a literal, constructor, function call, column or parenthesis.
type Primary struct {
	Pos      Pos
	Number   *string       `parser:"(  @Number"`
	String   *Str          `parser:" | @String"`
	Hex      *HexLit       `parser:" | @Hex"`
	True     bool          `parser:" | @'TRUE'"`
	False    bool          `parser:" | @'FALSE'"`
	Null     bool          `parser:" | @'NULL'"`
	Interval *Interval     `parser:" | @@"`
	Typed    *TypedLiteral `parser:" | @@"`
	Cast     *Cast         `parser:" | @@"`
	Case     *CaseExpr     `parser:" | @@"`
	Row      *Constructor  `parser:" | 'ROW' '(' @@ ')'"`
	// Exists is the subquery of EXISTS (SELECT ...), a semi join.
	Exists     *Query       `parser:" | 'EXISTS' '(' @@ ')'"`
	Array      *Constructor `parser:" | 'ARRAY' '[' @@ ']'"`
	Map        *Constructor `parser:" | 'MAP' '[' @@ ']'"`
	IsDesc     bool         `parser:" | @'DESCRIPTOR' '('"`
	Descriptor []*Name      `parser:"   ( @@ ( ',' @@ )* )? ')'"`
	// JSONObject is JSON_OBJECT or JSON_OBJECTAGG with its KEY ... VALUE
	// pairs; Parse turns it into a FuncCall (json.go).
	JSONObject *JSONObject `parser:" | @@"`
	Func       *FuncCall   `parser:" | @@"`
	Column     *ColumnRef  `parser:" | @@"`
	Paren      *Expr       `parser:" | '(' @@"`
	// RowTail makes (a, b, ...) an implicit ROW(a, b, ...): the values
	// after Paren's.
	RowTail []*Expr `parser:"   ( ',' @@ )* ')' )"`
}

// HexLit is a binary string literal's bytes: X'0A0B'.
type HexLit []byte

// Capture decodes X'...': hex digits, two a byte.
func (h *HexLit) Capture(values []string) error {
	v := values[0]
	digits := v[2 : len(v)-1]
	if len(digits)%2 != 0 {
		return fmt.Errorf("the binary literal %s needs an even number of hex digits, two a byte", v)
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return fmt.Errorf("the binary literal %s holds a character that is not a hex digit (0-9, a-f)", v)
	}
	*h = b
	return nil
}

// Constructor holds the elements of ROW(...), ARRAY[...] or MAP[...].
type Constructor struct {
	Pos   Pos
	Elems []*Expr `parser:"( @@ ( ',' @@ )* )?"`
}

// Interval is INTERVAL 'n' UNIT [TO UNIT], e.g. INTERVAL '5' MINUTE.
type Interval struct {
	Pos   Pos
	Minus bool   `parser:"'INTERVAL' @'-'?"`
	Value Str    `parser:"@String"`
	Unit  string `parser:"@Ident ( '(' Number ')' )?"`
	To    string `parser:"( 'TO' @Ident ( '(' Number ')' )? )?"`
}

// TypedLiteral is TIMESTAMP '...', TIMESTAMP_LTZ '...', DATE '...', TIME
// '...' or DECIMAL '...'.
type TypedLiteral struct {
	Pos   Pos
	Type  string `parser:"@('TIMESTAMP' | 'TIMESTAMP_LTZ' | 'DATE' | 'TIME' | 'DECIMAL')"`
	Value Str    `parser:"@String"`
}

// Cast is CAST(expr AS type), or TRY_CAST(expr AS type), which is NULL
// where CAST fails.
type Cast struct {
	Pos  Pos
	Try  bool      `parser:"( @'TRY_CAST' | 'CAST' ) '('"`
	Expr *Expr     `parser:"@@"`
	Type *TypeExpr `parser:"'AS' @@ ')'"`
}

// CaseExpr is CASE [operand] WHEN ... THEN ... [ELSE ...] END.
type CaseExpr struct {
	Pos     Pos
	Operand *Expr   `parser:"'CASE' @@?"`
	Whens   []*When `parser:"@@+"`
	Else    *Expr   `parser:"( 'ELSE' @@ )? 'END'"`
}

// When is one WHEN condition (or value) THEN result of a CASE. A simple
// CASE (one with an operand) may list several values: WHEN 1, 2 THEN;
// More holds those after Cond.
type When struct {
	Pos  Pos
	Cond *Expr   `parser:"'WHEN' @@"`
	More []*Expr `parser:"( ',' @@ )*"`
	Then *Expr   `parser:"'THEN' @@"`
}

// FuncCall is a scalar or aggregate function call: name(args), COUNT(*),
// COUNT(DISTINCT x), an aggregate's FILTER (WHERE cond), and the SQL standard's keyword forms:
// EXTRACT(unit FROM x), SUBSTRING(s FROM a [FOR b]), OVERLAY(s PLACING r
// FROM a [FOR b]), TRIM([BOTH | LEADING
// | TRAILING] [chars] FROM s), POSITION(a IN b) and FLOOR | CEIL(t TO unit).
type FuncCall struct {
	Pos      Pos
	Name     *Name  `parser:"@@ '('"`
	Distinct bool   `parser:"@'DISTINCT'?"`
	Star     bool   `parser:"@'*'?"`
	Trim     string `parser:"@('BOTH' | 'LEADING' | 'TRAILING')?"`
	// Args are the arguments before any PLACING, FROM, IN or TO.
	Args []*Expr `parser:"( @@ ( ',' @@ )* )?"`
	// JSON holds the clauses of the JSON functions (RETURNING, wrappers,
	// ON EMPTY, ON ERROR, ON NULL), and marks a JSON_OBJECT's pairs.
	JSON *JSONClauses `parser:"@@?"`
	// Placing is OVERLAY(s PLACING r FROM p [FOR n])'s r.
	Placing *Expr `parser:"( 'PLACING' @@ )?"`
	From    *Expr `parser:"(  'FROM' @@"`
	For     *Expr `parser:"   ( 'FOR' @@ )?"`
	In      *Expr `parser:" | 'IN' @@"`
	To      *Name `parser:" | 'TO' @@ )? ')'"`
	// Filter is the condition of an aggregate's FILTER (WHERE cond): the
	// rows it aggregates.
	Filter *Expr `parser:"( 'FILTER' '(' 'WHERE' @@ ')' )?"`
	// Over makes the call an OVER aggregation or a window function
	// (ROW_NUMBER, LAG, LEAD): agg(x) OVER (PARTITION BY ... ORDER BY ...
	// frame) or OVER w, a window of the SELECT's WINDOW clause.
	Over *Over `parser:"( 'OVER' @@ )?"`
}

// Over is the window of an OVER call: a name of the SELECT's WINDOW
// clause, or a window written out in parentheses.
type Over struct {
	Pos    Pos
	Name   *Name       `parser:"(  @@"`
	Window *WindowSpec `parser:" | '(' @@ ')' )"`
}

// WindowSpec is [PARTITION BY exprs] [ORDER BY sorts] [frame], the inside
// of OVER (...) and of WINDOW w AS (...).
type WindowSpec struct {
	Pos         Pos
	PartitionBy []*Expr     `parser:"( 'PARTITION' 'BY' @@ ( ',' @@ )* )?"`
	OrderBy     []*SortItem `parser:"( 'ORDER' 'BY' @@ ( ',' @@ )* )?"`
	Frame       *Frame      `parser:"@@?"`
}

// Frame is ROWS | RANGE BETWEEN bound AND bound, or ROWS | RANGE bound
// (which ends at the current row).
type Frame struct {
	Pos   Pos
	Unit  string      `parser:"@('ROWS' | 'RANGE')"`
	Start *FrameBound `parser:"( 'BETWEEN' @@"`
	End   *FrameBound `parser:"  'AND' @@"`
	Only  *FrameBound `parser:"| @@ )"`
}

// FrameBound is UNBOUNDED PRECEDING | FOLLOWING, CURRENT ROW, or n
// PRECEDING | FOLLOWING (a row count, or an INTERVAL for RANGE).
type FrameBound struct {
	Pos       Pos
	Unbounded bool      `parser:"(  @'UNBOUNDED'"`
	Current   bool      `parser:" | @'CURRENT' 'ROW'"`
	Offset    *Additive `parser:" | @@ )"`
	Direction string    `parser:"@('PRECEDING' | 'FOLLOWING')?"`
}

// ColumnRef is a column, optionally qualified: t.col.
type ColumnRef struct {
	Pos   Pos
	Parts []*Name `parser:"@@ ( '.' @@ )*"`
}

// TypeExpr is a SQL data type as written, e.g. ROW<a INT, b STRING> NOT NULL.
type TypeExpr struct {
	Pos      Pos
	Interval *IntervalType `parser:"(  'INTERVAL' @@"`
	Array    *TypeExpr     `parser:" | 'ARRAY' '<' @@ '>'"`
	Map      *MapType      `parser:" | 'MAP' '<' @@ '>'"`
	Row      []*FieldType  `parser:" | 'ROW' ( '<' @@ ( ',' @@ )* '>' | '(' @@ ( ',' @@ )* ')' )"`
	Name     string        `parser:" | @(Ident | 'DESCRIPTOR')"`
	Params   []string      `parser:"   ( '(' @Number ( ',' @Number )* ')' )?"`
	LTZ      bool          `parser:"   @( 'WITH' 'LOCAL' 'TIME' 'ZONE' )?"`
	NoTZ     bool          `parser:"   @( 'WITHOUT' 'TIME' 'ZONE' )? )"`
	NotNull  bool          `parser:"( @( 'NOT' 'NULL' )"`
	Null     bool          `parser:"  | @'NULL' )?"`
}

// IntervalType is the qualifier of an INTERVAL type: DAY TO SECOND(3).
type IntervalType struct {
	Pos  Pos
	From string `parser:"@Ident ( '(' Number ')' )?"`
	To   string `parser:"( 'TO' @Ident ( '(' Number ')' )? )?"`
}

// MapType is the key and value types of MAP<K, V>.
type MapType struct {
	Pos   Pos
	Key   *TypeExpr `parser:"@@ ','"`
	Value *TypeExpr `parser:"@@"`
}

// FieldType is one field of a ROW type.
type FieldType struct {
	Pos  Pos
	Name *Name     `parser:"@@"`
	Type *TypeExpr `parser:"@@"`
}
