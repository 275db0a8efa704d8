package sqlmini

// The grammar structs below are the AST: participle fills them from their
// tags. Every node has a Pos. Words in quotes are matched case-insensitively.

// Script is a sequence of statements separated by semicolons.
type Script struct {
	Statements []*Statement
}

// Statement is one SQL statement. Exactly one field besides Pos and Text is set.
type Statement struct {
	Pos Pos

	Create       *Create       `parser:"(  @@"`
	Drop         *Drop         `parser:" | @@"`
	Show         *Show         `parser:" | @@"`
	Describe     *Describe     `parser:" | @@"`
	Set          *Set          `parser:" | @@"`
	Reset        *Reset        `parser:" | @@"`
	Explain      *Explain      `parser:" | @@"`
	StatementSet *StatementSet `parser:" | 'EXECUTE' @@"`
	BeginSet     *BeginSet     `parser:" | @@"`
	EndSet       *EndSet       `parser:" | @@"`
	Insert       *Insert       `parser:" | @@"`
	Command      *Command      `parser:" | @@"`
	Advance      *Advance      `parser:" | @@"`
	Query        *Query        `parser:" | @@ )"`

	// Text is the statement's source text, without the final semicolon.
	Text string
}

// Name is an identifier, plain or backquoted (the quotes removed).
type Name struct {
	Pos   Pos
	Value Ident `parser:"@(Ident | QIdent)"`
}

// Ident is an identifier's value.
type Ident string

// Capture removes backquotes.
func (i *Ident) Capture(values []string) error {
	*i = Ident(unquoteIdent(values[0]))
	return nil
}

// Str is a string literal's value, quotes removed.
type Str string

// Capture unquotes a SQL string literal.
func (s *Str) Capture(values []string) error {
	*s = Str(unquoteString(values[0]))
	return nil
}

// Body is a $$...$$ block's content.
type Body string

// Capture strips the dollar quotes.
func (b *Body) Capture(values []string) error {
	v := values[0]
	*b = Body(v[2 : len(v)-2])
	return nil
}

// Create is CREATE [OR REPLACE] [TEMPORARY] FUNCTION | VIEW | TABLE |
// STREAM.
type Create struct {
	Pos Pos
	// OrReplace replaces a function, view or table of the same name.
	OrReplace bool            `parser:"'CREATE' @('OR' 'REPLACE')?"`
	Temporary bool            `parser:"@('TEMPORARY' | 'TEMP')? ('SYSTEM')?"`
	Function  *CreateFunction `parser:"(  'FUNCTION' @@"`
	View      *CreateView     `parser:" | 'VIEW' @@"`
	Table     *CreateTable    `parser:" | 'TABLE' @@"`
	// Stream is CREATE STREAM s (columns, WATERMARK ...): a table that
	// INSERT INTO s VALUES and ADVANCE WATERMARK feed step by step.
	Stream *CreateTable `parser:" | 'STREAM' @@ )"`
}

// CreateFunction is the rest of CREATE FUNCTION [IF NOT EXISTS] name
// AS 'file' [LANGUAGE lang] or LANGUAGE lang AS $$ source $$.
type CreateFunction struct {
	Pos         Pos
	IfNotExists bool  `parser:"@('IF' 'NOT' 'EXISTS')?"`
	Name        *Name `parser:"@@"`
	Lang1       *Name `parser:"(  'LANGUAGE' @@ 'AS'"`
	Body1       *Body `parser:"   @Body"`
	Body2       *Body `parser:" | 'AS' ( @Body"`
	Path        *Str  `parser:"        | @String )"`
	Lang2       *Name `parser:"   ( 'LANGUAGE' @@ )? )"`
}

// Language returns the declared language, or "" when none was given.
func (c *CreateFunction) Language() string {
	if c.Lang1 != nil {
		return string(c.Lang1.Value)
	}
	if c.Lang2 != nil {
		return string(c.Lang2.Value)
	}
	return ""
}

// Source returns the inline source of a $$ body and whether there is one.
func (c *CreateFunction) Source() (string, bool) {
	if c.Body1 != nil {
		return string(*c.Body1), true
	}
	if c.Body2 != nil {
		return string(*c.Body2), true
	}
	return "", false
}

// CreateView is the rest of CREATE VIEW name [(cols)] AS query.
type CreateView struct {
	Pos     Pos
	Name    *Name   `parser:"@@"`
	Columns []*Name `parser:"( '(' @@ ( ',' @@ )* ')' )?"`
	Query   *Query  `parser:"'AS' @@"`
}

// CreateTable is the rest of CREATE TABLE name [(elements)] [WITH
// (options)] [LIKE source [(like options)]]. Without elements, a file
// table's columns are inferred from its file (a ptfsh extension; Flink
// parses it but needs the columns).
type CreateTable struct {
	Pos      Pos
	Name     *Name           `parser:"@@"`
	Elements []*TableElement `parser:"( '(' @@ ( ',' @@ )* ')' )?"`
	Options  []*Option       `parser:"( 'WITH' '(' ( @@ ( ',' @@ )* )? ')' )?"`
	// Like is Flink's LIKE clause: the table starts from another's
	// columns, constraints, watermarks and options.
	Like *TableLike `parser:"@@?"`
	// Query gives the table's rows inline: CREATE TABLE t (...) AS VALUES ...
	Query *Query `parser:"( 'AS' @@ )?"`
}

// TableLike is LIKE source [(option ...)], the options separated by
// white space as in Flink: INCLUDING | EXCLUDING | OVERWRITING, then ALL,
// CONSTRAINTS, PARTITIONS, DISTRIBUTION, GENERATED, OPTIONS, WATERMARKS or
// METADATA.
type TableLike struct {
	Pos     Pos
	Source  *Name         `parser:"'LIKE' @@"`
	Options []*LikeOption `parser:"( '(' @@* ')' )?"`
}

// LikeOption is one merging option of a LIKE clause, such as EXCLUDING
// OPTIONS.
type LikeOption struct {
	Pos      Pos
	Strategy string `parser:"@('INCLUDING' | 'EXCLUDING' | 'OVERWRITING')"`
	Feature  string `parser:"@('ALL' | 'CONSTRAINTS' | 'PARTITIONS' | 'DISTRIBUTION' | 'GENERATED' | 'OPTIONS' | 'WATERMARKS' | 'METADATA')"`
}

// TableElement is a column, a PRIMARY KEY or a WATERMARK declaration.
type TableElement struct {
	Pos        Pos
	PrimaryKey *PrimaryKey `parser:"(  @@"`
	Watermark  *Watermark  `parser:" | @@"`
	Column     *ColumnDef  `parser:" | @@ )"`
}

// PrimaryKey is PRIMARY KEY (cols) NOT ENFORCED.
type PrimaryKey struct {
	Pos     Pos
	Columns []*Name `parser:"'PRIMARY' 'KEY' '(' @@ ( ',' @@ )* ')' 'NOT' 'ENFORCED'"`
}

// Watermark is WATERMARK FOR col AS expr.
type Watermark struct {
	Pos    Pos
	Column *Name `parser:"'WATERMARK' 'FOR' @@"`
	Expr   *Expr `parser:"'AS' @@"`
}

// ColumnDef is name type [METADATA [FROM 'key'] [VIRTUAL]] [PRIMARY KEY
// NOT ENFORCED], or a computed column: name AS expr (Flink's, such as
// ts AS PROCTIME() or total AS price * qty).
type ColumnDef struct {
	Pos        Pos
	Name       *Name     `parser:"@@"`
	Computed   *Expr     `parser:"( 'AS' @@"`
	Type       *TypeExpr `parser:" | @@"`
	Metadata   *Metadata `parser:"@@?"`
	PrimaryKey bool      `parser:"@('PRIMARY' 'KEY' 'NOT' 'ENFORCED')? )"`
}

// Metadata marks a metadata column, as Flink declares one: METADATA [FROM
// 'key'] [VIRTUAL]. Without FROM the key is the column's name; a VIRTUAL
// column is read and never written.
type Metadata struct {
	Pos     Pos
	Keyword string `parser:"@'METADATA'"`
	From    *Str   `parser:"( 'FROM' @String )?"`
	Virtual bool   `parser:"@'VIRTUAL'?"`
}

// Option is 'key' = 'value' in a WITH clause.
type Option struct {
	Pos   Pos
	Key   Str `parser:"@String '='"`
	Value Str `parser:"@String"`
}

// Drop is DROP [TEMPORARY] FUNCTION | TABLE | VIEW [IF EXISTS] name.
type Drop struct {
	Pos       Pos
	Temporary bool `parser:"'DROP' @('TEMPORARY' | 'TEMP')? ('SYSTEM')?"`
	// State is the uid of DROP STATE FOR 'uid'.
	State    *Str   `parser:"(  'STATE' 'FOR' @String"`
	Kind     string `parser:" | @('FUNCTION' | 'TABLE' | 'VIEW')"`
	IfExists bool   `parser:"   @('IF' 'EXISTS')?"`
	Name     *Name  `parser:"   @@ )"`
}

// Show is SHOW [USER] FUNCTIONS | TABLES | VIEWS [[NOT] LIKE | ILIKE
// 'pattern'], SHOW CREATE TABLE | VIEW | FUNCTION name, SHOW TOPICS [FROM
// table | IN 'servers'], or SHOW STATE | TIMERS FOR 'uid' [KEY (values)],
// which read the store.
type Show struct {
	Pos  Pos
	User bool   `parser:"'SHOW' ( @'USER'?"`
	What string `parser:"  @('FUNCTIONS' | 'TABLES' | 'VIEWS' | 'JOBS')"`
	// NotLike, Like (LIKE or ILIKE) and Pattern filter the names as
	// Flink's SQL LIKE does.
	NotLike bool   `parser:"  ( @'NOT'?"`
	Like    string `parser:"    @('LIKE' | 'ILIKE')"`
	Pattern *Str   `parser:"    @String )?"`
	// CreateOf is TABLE, VIEW or FUNCTION in SHOW CREATE, of Name.
	CreateOf string `parser:" | 'CREATE' @('TABLE' | 'VIEW' | 'FUNCTION')"`
	Name     *Name  `parser:"  @@"`
	// Topics is SHOW TOPICS [FROM table | IN 'servers']: the topics of a
	// Kafka cluster, that of a Kafka table or at the given servers.
	Topics   bool  `parser:" | @'TOPICS'"`
	TopicsOf *Name `parser:"  ( ( 'FROM' | 'IN' ) ( @@"`
	TopicsAt *Str  `parser:"    | @String ) )?"`
	// Inspect is STATE or TIMERS; UID and Key say whose.
	Inspect string  `parser:" | @('STATE' | 'TIMERS') 'FOR'"`
	UID     *Str    `parser:"  @String"`
	Key     []*Expr `parser:"  ( 'KEY' '(' @@ ( ',' @@ )* ')' )? )"`
}

// Describe is DESCRIBE name (a table, a view or a function), or
// DESCRIBE FUNCTION [EXTENDED] name (Flink's function metadata).
type Describe struct {
	Pos      Pos
	Function bool  `parser:"('DESCRIBE' | 'DESC') ( @'FUNCTION'"`
	Extended bool  `parser:"  @'EXTENDED'? )?"`
	Name     *Name `parser:"@@"`
}

// Command is a statement of the shell itself: HELP, QUIT or EXIT.
type Command struct {
	Pos  Pos
	Word string `parser:"@('HELP' | 'QUIT' | 'EXIT')"`
}

// Set is SET ['key' = 'value'].
type Set struct {
	Pos   Pos
	Key   *Str `parser:"'SET' ( @String"`
	Value *Str `parser:"'=' @String )?"`
}

// Reset is RESET ['key'].
type Reset struct {
	Pos Pos
	Key *Str `parser:"'RESET' @String?"`
}

// Explain is EXPLAIN [PLAN FOR | detail, ...] followed by a query, an
// INSERT or a statement set; or EXPLAIN TIMELINE | WHY query, which run
// the query (to draw what happened in time, or to say why each row came).
type Explain struct {
	Pos      Pos
	Timeline bool `parser:"'EXPLAIN' ( 'PLAN' 'FOR' | @'TIMELINE'"`
	Why      bool `parser:"  | @'WHY'"`
	// Details are Flink's explain details (ESTIMATED_COST, CHANGELOG_MODE,
	// JSON_EXECUTION_PLAN, PLAN_ADVICE), in the order written.
	Details      []string      `parser:"  | @('ESTIMATED_COST' | 'CHANGELOG_MODE' | 'JSON_EXECUTION_PLAN' | 'PLAN_ADVICE') ( ',' @('ESTIMATED_COST' | 'CHANGELOG_MODE' | 'JSON_EXECUTION_PLAN' | 'PLAN_ADVICE') )* )?"`
	StatementSet *StatementSet `parser:"( 'EXECUTE'? @@"`
	Insert       *Insert       `parser:"| @@"`
	Query        *Query        `parser:"| @@ )"`
}

// Advance is a step of a stream's time: ADVANCE WATERMARK stream TO time
// | END (END: the end of input, which fires every timer left), or ADVANCE
// PROCESSING TIME stream TO time; either moves BY an interval instead.
type Advance struct {
	Pos        Pos
	Processing bool  `parser:"'ADVANCE' ( 'WATERMARK' | @'PROCESSING' 'TIME' )"`
	Stream     *Name `parser:"@@"`
	End        bool  `parser:"( 'TO' ( @'END'"`
	To         *Expr `parser:"| @@ )"`
	By         *Expr `parser:"| 'BY' @@ )"`
}

// Insert is INSERT INTO table query, or INSERT OVERWRITE table query,
// which replaces the table's rows.
type Insert struct {
	Pos       Pos
	Overwrite bool   `parser:"'INSERT' ( 'INTO' | @'OVERWRITE' )"`
	Table     *Name  `parser:"@@"`
	Query     *Query `parser:"@@"`
}

// StatementSet is Flink's statement set, EXECUTE STATEMENT SET BEGIN insert;
// ... END: INSERT statements that run as one job. Each INSERT ends with a
// semicolon; Split keeps the semicolons between BEGIN and END inside the
// statement. The node starts at STATEMENT: EXECUTE is the Statement's (and
// optional after EXPLAIN, as in Flink).
type StatementSet struct {
	Pos     Pos
	Inserts []*Insert `parser:"'STATEMENT' 'SET' 'BEGIN' @@ ( ';' @@ )* ';' 'END'"`
}

// BeginSet is the Flink SQL client's BEGIN STATEMENT SET: the INSERT
// statements after it, up to END, run as one statement set.
type BeginSet struct {
	Pos     Pos
	Keyword string `parser:"@'BEGIN' 'STATEMENT' 'SET'"`
}

// EndSet is the END that runs the statement set BEGIN STATEMENT SET opened.
type EndSet struct {
	Pos     Pos
	Keyword string `parser:"@'END'"`
}

// Query is [WITH ctes] a select or VALUES, with set operations after it
// (UNION, INTERSECT, EXCEPT), applied left to right as written; the
// planner gives INTERSECT its precedence over UNION and EXCEPT.
type Query struct {
	Pos  Pos
	With []*CTE   `parser:"( 'WITH' @@ ( ',' @@ )* )?"`
	Body *SetExpr `parser:"@@"`
	Ops  []*SetOp `parser:"@@*"`
}

// SetOp is one set operation of a Query and its right operand: UNION,
// INTERSECT or EXCEPT (MINUS is EXCEPT), ALL or DISTINCT (the default).
type SetOp struct {
	Pos Pos
	// Op is "UNION", "INTERSECT" or "EXCEPT".
	Op       string   `parser:"@('UNION' | 'INTERSECT' | 'EXCEPT' | 'MINUS')"`
	All      bool     `parser:"( @'ALL'"`
	Distinct bool     `parser:"| @'DISTINCT' )?"`
	Right    *SetExpr `parser:"@@"`
}

// Name is the operation as the SQL standard spells it: UNION, INTERSECT
// or EXCEPT (for MINUS too).
func (o *SetOp) Name() string {
	if op := upper(o.Op); op != "MINUS" {
		return op
	}
	return "EXCEPT"
}

// CTE is name [(cols)] AS (query).
type CTE struct {
	Pos     Pos
	Name    *Name   `parser:"@@"`
	Columns []*Name `parser:"( '(' @@ ( ',' @@ )* ')' )?"`
	Query   *Query  `parser:"'AS' '(' @@ ')'"`
}

// SetExpr is a SELECT, a VALUES list or a parenthesized query.
type SetExpr struct {
	Pos    Pos
	Select *Select `parser:"(  @@"`
	Values *Values `parser:" | @@"`
	Paren  *Query  `parser:" | '(' @@ ')' )"`
}

// Values is VALUES (row), (row), ...
type Values struct {
	Pos  Pos
	Rows []*ValuesRow `parser:"'VALUES' @@ ( ',' @@ )*"`
}

// ValuesRow is one row of VALUES, or a watermark step. A row is
// parenthesized values, or one value without parentheses (VALUES 1, 2 is
// two rows of one column).
type ValuesRow struct {
	Pos Pos
	// Watermark is a watermark step written into the data: WATERMARK <time>.
	Watermark *Expr   `parser:"(  'WATERMARK' @@"`
	Values    []*Expr `parser:" | '(' @@ ( ',' @@ )* ')' | @@ )"`
}

// Select is SELECT items FROM source [WHERE] [GROUP BY] [HAVING] [WINDOW]
// [ORDER BY] [LIMIT n] [OFFSET m [ROWS]] [FETCH FIRST|NEXT n ROWS ONLY].
type Select struct {
	Pos      Pos
	Distinct bool          `parser:"'SELECT' @'DISTINCT'?"`
	Items    []*SelectItem `parser:"@@ ( ',' @@ )*"`
	From     *FromItem     `parser:"( 'FROM' @@"`
	// Joins are the tables joined to From, left to right: JOIN ... ON
	// and the tables after commas (FROM a, b).
	Joins   []*Join `parser:"  @@* )?"`
	Where   *Expr   `parser:"( 'WHERE' @@ )?"`
	GroupBy []*Expr `parser:"( 'GROUP' 'BY' @@ ( ',' @@ )* )?"`
	Having  *Expr   `parser:"( 'HAVING' @@ )?"`
	// Windows are the named windows of WINDOW w AS (...), which OVER w
	// in the SELECT list reads.
	Windows []*NamedWindow `parser:"( 'WINDOW' @@ ( ',' @@ )* )?"`
	OrderBy []*SortItem    `parser:"( 'ORDER' 'BY' @@ ( ',' @@ )* )?"`
	Limit   *string        `parser:"( 'LIMIT' @Number )?"`
	Offset  *string        `parser:"( 'OFFSET' @Number ( 'ROW' | 'ROWS' )? )?"`
	// Fetch is the n of FETCH FIRST|NEXT n ROW|ROWS ONLY, another LIMIT n.
	Fetch *string `parser:"( 'FETCH' ( 'FIRST' | 'NEXT' ) @Number ( 'ROW' | 'ROWS' ) 'ONLY' )?"`
}

// NamedWindow is name AS (window) in a SELECT's WINDOW clause.
type NamedWindow struct {
	Pos    Pos
	Name   *Name       `parser:"@@ 'AS'"`
	Window *WindowSpec `parser:"'(' @@ ')'"`
}

// SortItem is one expression of a SELECT's ORDER BY: expr [ASC | DESC]
// [NULLS FIRST | NULLS LAST].
type SortItem struct {
	Pos       Pos
	Expr      *Expr  `parser:"@@"`
	Direction string `parser:"@('ASC' | 'DESC')?"`
	Nulls     string `parser:"( 'NULLS' @('FIRST' | 'LAST') )?"`
}

// SelectItem is *, t.* (the columns of one table of the FROM clause) or
// an expression with an optional alias.
type SelectItem struct {
	Pos  Pos
	Star bool `parser:"(  @'*'"`
	// StarOf is the table of t.*.
	StarOf *Name `parser:" | @@ '.' '*'"`
	Expr   *Expr `parser:" | @@"`
	Alias  *Name `parser:"   ( 'AS'? @@ )? )"`
}

// Join is one table joined to the ones before it in FROM: [NATURAL]
// [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER] | CROSS] JOIN item
// [ON cond | USING (cols)], or , item (a cross join, whose condition WHERE
// gives).
type Join struct {
	Pos   Pos
	Comma bool `parser:"(  @','"`
	// Natural is NATURAL: USING the columns both sides have.
	Natural bool `parser:" | @'NATURAL'?"`
	// Kind is "", "INNER", "LEFT", "RIGHT", "FULL" or "CROSS".
	Kind  string    `parser:"   ( @( 'LEFT' | 'RIGHT' | 'FULL' ) 'OUTER'? | @( 'INNER' | 'CROSS' ) )? 'JOIN' )"`
	Item  *FromItem `parser:"@@"`
	On    *Expr     `parser:"( 'ON' @@"`
	Using []*Name   `parser:"| 'USING' '(' @@ ( ',' @@ )* ')' )?"`
}

// FromItem is a table, a PTF call, a subquery or VALUES, with an optional
// alias. A table may be read as of a time (FOR SYSTEM_TIME AS OF t, a
// temporal join). The words that go on a FROM clause (LEFT, RIGHT, ON,
// USING, ...) are no alias.
type FromItem struct {
	Pos Pos
	// Lateral is LATERAL: a subquery (or TABLE(...)) that reads the
	// columns of the tables before it in FROM.
	Lateral  bool   `parser:"@'LATERAL'?"`
	Call     *Call  `parser:"(  'TABLE' '(' @@ ')'"`
	Call2    *Call  `parser:" | @@"`
	Subquery *Query `parser:" | '(' @@ ')'"`
	Table    *Name  `parser:" | @@ )"`
	// AsOf is the time of FOR SYSTEM_TIME AS OF.
	AsOf *Expr `parser:"( 'FOR' 'SYSTEM_TIME' 'AS' 'OF' @@ )?"`
	// Match is a MATCH_RECOGNIZE clause over the table: the alias then
	// names its result.
	Match     *MatchRecognize `parser:"@@?"`
	Alias     *Name           `parser:"( 'AS'? (?! 'LEFT' | 'RIGHT' | 'ON' | 'USING' | 'FOR' ) @@"`
	AliasCols []*Name         `parser:"  ( '(' @@ ( ',' @@ )* ')' )? )?"`
	// Hints are the table hints of a /*+ ... */ right after Table (the
	// parser reads them from the comment: hint.go).
	Hints []*Hint
}

// Call is a PTF call: name(args).
type Call struct {
	Pos  Pos
	Name *Name  `parser:"@@ '('"`
	Args []*Arg `parser:"( @@ ( ',' @@ )* )? ')'"`
}

// Arg is a positional or named (name => value) argument of a PTF call.
type Arg struct {
	Pos     Pos
	Name    *Name     `parser:"( @@ '=>' )?"`
	Table   *TableArg `parser:"(  @@"`
	Default bool      `parser:" | @'DEFAULT'"`
	Expr    *Expr     `parser:" | @@ )"`
}

// TableArg is TABLE t [PARTITION BY cols] [ORDER BY cols].
type TableArg struct {
	Pos         Pos
	Name        *Name        `parser:"'TABLE' ( @@"`
	Query       *Query       `parser:"        | '(' @@ ')' )"`
	PartitionBy []*Name      `parser:"( 'PARTITION' 'BY' ( '(' @@ ( ',' @@ )* ')' | @@ ) )?"`
	OrderBy     []*OrderItem `parser:"( 'ORDER' 'BY' ( '(' @@ ( ',' @@ )* ')' | @@ ) )?"`
}

// OrderItem is col [ASC | DESC] [NULLS FIRST | NULLS LAST].
type OrderItem struct {
	Pos       Pos
	Column    *Name  `parser:"@@"`
	Direction string `parser:"@('ASC' | 'DESC')?"`
	Nulls     string `parser:"( 'NULLS' @('FIRST' | 'LAST') )?"`
}
