package sqlmini

// The grammar of MATCH_RECOGNIZE, as Flink (Calcite) spells it:
//
//	match    = "MATCH_RECOGNIZE" "(" ["PARTITION" "BY" expr {"," expr}] ["ORDER" "BY" sort {"," sort}]
//	           ["MEASURES" expr "AS" name {"," expr "AS" name}]
//	           ["ONE" "ROW" "PER" "MATCH" | "ALL" "ROWS" "PER" "MATCH"]
//	           ["AFTER" "MATCH" "SKIP" ("PAST" "LAST" "ROW" | "TO" ("NEXT" "ROW" | "FIRST" name | "LAST" name | name))]
//	           "PATTERN" "(" pattern ")" ["WITHIN" interval]
//	           ["SUBSET" name "=" "(" name {"," name} ")" {"," ...}]
//	           "DEFINE" name "AS" expr {"," name "AS" expr} ")" .
//	pattern  = term {"|" term} .
//	term     = factor {factor} .
//	factor   = primary [quant] .
//	primary  = name | "(" [pattern] ")" | "{-" pattern "-}" | "PERMUTE" "(" pattern {"," pattern} ")" | "^" | "$" .
//	quant    = ("*" | "+" | "?" | "{" [number] ["," [number]] "}") ["?"] .
//
// Which of these forms Flink runs is the planner's (runtime/plan's
// match.go): the grammar takes all of them, so that a refusal can name the
// form.

// MatchRecognize is a MATCH_RECOGNIZE clause: the rows of a table matched
// against a pattern, partition by partition.
type MatchRecognize struct {
	Pos         Pos
	PartitionBy []*Expr     `parser:"'MATCH_RECOGNIZE' '(' ( 'PARTITION' 'BY' @@ ( ',' @@ )* )?"`
	OrderBy     []*SortItem `parser:"( 'ORDER' 'BY' @@ ( ',' @@ )* )?"`
	Measures    []*Measure  `parser:"( 'MEASURES' @@ ( ',' @@ )* )?"`
	// OneRow and AllRows are ONE ROW PER MATCH and ALL ROWS PER MATCH.
	OneRow  bool        `parser:"( @( 'ONE' 'ROW' 'PER' 'MATCH' )"`
	AllRows bool        `parser:"| @( 'ALL' 'ROWS' 'PER' 'MATCH' ) )?"`
	After   *AfterMatch `parser:"( 'AFTER' 'MATCH' 'SKIP' @@ )?"`
	Pattern *Pattern    `parser:"'PATTERN' '(' @@ ')'"`
	Within  *Interval   `parser:"( 'WITHIN' @@ )?"`
	Subsets []*Subset   `parser:"( 'SUBSET' @@ ( ',' @@ )* )?"`
	Defines []*Define   `parser:"'DEFINE' @@ ( ',' @@ )* ')'"`
}

// Measure is expr AS name in MEASURES.
type Measure struct {
	Pos  Pos
	Expr *Expr `parser:"@@ 'AS'"`
	Name *Name `parser:"@@"`
}

// Define is name AS condition in DEFINE.
type Define struct {
	Pos  Pos
	Name *Name `parser:"@@ 'AS'"`
	Cond *Expr `parser:"@@"`
}

// Subset is name = (names) in SUBSET.
type Subset struct {
	Pos   Pos
	Name  *Name   `parser:"@@ '='"`
	Names []*Name `parser:"'(' @@ ( ',' @@ )* ')'"`
}

// AfterMatch is where the next match starts: SKIP PAST LAST ROW, SKIP TO
// NEXT ROW, SKIP TO FIRST var, SKIP TO LAST var or SKIP TO var (the last
// row of var).
type AfterMatch struct {
	Pos      Pos
	PastLast bool  `parser:"(  @( 'PAST' 'LAST' 'ROW' )"`
	NextRow  bool  `parser:" | 'TO' ( @( 'NEXT' 'ROW' )"`
	First    *Name `parser:"        | 'FIRST' @@"`
	Last     *Name `parser:"        | 'LAST' @@"`
	Var      *Name `parser:"        | @@ ) )"`
}

// Pattern is a row pattern: alternatives separated by |.
type Pattern struct {
	Pos  Pos
	Alts []*PatternTerm `parser:"@@ ( '|' @@ )*"`
}

// PatternTerm is a concatenation of pattern factors.
type PatternTerm struct {
	Pos     Pos
	Factors []*PatternFactor `parser:"@@+"`
}

// PatternFactor is a pattern primary with an optional quantifier.
type PatternFactor struct {
	Pos   Pos
	Prim  *PatternPrimary `parser:"@@"`
	Quant *Quantifier     `parser:"@@?"`
}

// PatternPrimary is a pattern variable, a group ( ... ), an exclusion
// {- ... -}, PERMUTE( ... ) or an anchor ^ or $.
type PatternPrimary struct {
	Pos     Pos
	Permute []*Pattern `parser:"(  'PERMUTE' '(' @@ ( ',' @@ )* ')'"`
	Var     *Name      `parser:" | @@"`
	IsGroup bool       `parser:" | @'('"`
	Group   *Pattern   `parser:"   @@? ')'"`
	Exclude *Pattern   `parser:" | '{' '-' @@ '-' '}'"`
	Anchor  string     `parser:" | @( '^' | '$' ) )"`
}

// Quantifier is *, +, ?, {n}, {n,}, {,m} or {n,m}, reluctant with a ? after.
type Quantifier struct {
	Pos   Pos
	Star  bool    `parser:"(  @'*'"`
	Plus  bool    `parser:" | @'+'"`
	Quest bool    `parser:" | @'?'"`
	Brace bool    `parser:" | @'{'"`
	Min   *string `parser:"   @Number?"`
	Comma bool    `parser:"   @','?"`
	Max   *string `parser:"   @Number? '}' )"`
	// Reluctant is the ? after the quantifier: as few rows as will do.
	Reluctant bool `parser:"@'?'?"`
}
