package sqlmini

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

// Predicate is a comparison, IN list or IS [NOT] NULL test, or a plain value.
type Predicate struct {
	Pos     Pos
	Left    *Additive   `parser:"@@"`
	Op      string      `parser:"( @('=' | '<>' | '!=' | '<=' | '>=' | '<' | '>')"`
	Right   *Additive   `parser:"  @@"`
	NotIn   bool        `parser:"| @'NOT'? 'IN'"`
	In      []*Additive `parser:"  '(' @@ ( ',' @@ )* ')'"`
	IsNull  bool        `parser:"| 'IS' @'NULL'"`
	NotNull bool        `parser:"| 'IS' 'NOT' @'NULL' )?"`
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

// Unary is an optionally negated primary.
type Unary struct {
	Pos     Pos
	Minus   bool     `parser:"@'-'?"`
	Primary *Primary `parser:"@@"`
}

// Primary is a literal, constructor, function call, column or parenthesis.
type Primary struct {
	Pos        Pos
	Number     *string       `parser:"(  @Number"`
	String     *Str          `parser:" | @String"`
	True       bool          `parser:" | @'TRUE'"`
	False      bool          `parser:" | @'FALSE'"`
	Null       bool          `parser:" | @'NULL'"`
	Interval   *Interval     `parser:" | @@"`
	Typed      *TypedLiteral `parser:" | @@"`
	Cast       *Cast         `parser:" | @@"`
	Row        *Constructor  `parser:" | 'ROW' '(' @@ ')'"`
	Array      *Constructor  `parser:" | 'ARRAY' '[' @@ ']'"`
	Map        *Constructor  `parser:" | 'MAP' '[' @@ ']'"`
	IsDesc     bool          `parser:" | @'DESCRIPTOR' '('"`
	Descriptor []*Name       `parser:"   ( @@ ( ',' @@ )* )? ')'"`
	Func       *FuncCall     `parser:" | @@"`
	Column     *ColumnRef    `parser:" | @@"`
	Paren      *Expr         `parser:" | '(' @@ ')' )"`
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

// TypedLiteral is TIMESTAMP '...', TIMESTAMP_LTZ '...', DATE '...' or TIME '...'.
type TypedLiteral struct {
	Pos   Pos
	Type  string `parser:"@('TIMESTAMP' | 'TIMESTAMP_LTZ' | 'DATE' | 'TIME')"`
	Value Str    `parser:"@String"`
}

// Cast is CAST(expr AS type).
type Cast struct {
	Pos  Pos
	Expr *Expr     `parser:"'CAST' '(' @@"`
	Type *TypeExpr `parser:"'AS' @@ ')'"`
}

// FuncCall is a scalar or aggregate function call: name(args) or COUNT(*).
type FuncCall struct {
	Pos      Pos
	Name     *Name   `parser:"@@ '('"`
	Distinct bool    `parser:"@'DISTINCT'?"`
	Star     bool    `parser:"( @'*'"`
	Args     []*Expr `parser:" | @@ ( ',' @@ )* )? ')'"`
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
