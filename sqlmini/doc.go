// Package sqlmini is the syntax of ptfsh's SQL dialect: the lexer, the
// grammar structs (which are the AST), Parse and Split. It knows no function
// names, tables or types: meaning is the runtime's.
//
// # The dialect
//
// Flink SQL spelling, as far as ptfsh needs it:
//
//	script      = statement { ";" statement } [ ";" ] .
//	statement   = create | drop | show | describe | set | reset | explain | stmtset | insert | command | advance | query .
//	create      = "CREATE" ["OR" "REPLACE"] ["TEMPORARY"] ( "FUNCTION" function | "VIEW" view | "TABLE" table | "STREAM" table ) .
//	function    = ["IF" "NOT" "EXISTS"] name ( "AS" (string | body) ["LANGUAGE" name] | "LANGUAGE" name "AS" body ) .
//	view        = name ["(" name {"," name} ")"] "AS" query .
//	table       = name ["(" element {"," element} ")"] ["WITH" "(" option {"," option} ")"] [like] ["AS" query] .
//	like        = "LIKE" name ["(" {("INCLUDING" | "EXCLUDING" | "OVERWRITING") ("ALL" | "CONSTRAINTS" | "PARTITIONS"
//	              | "DISTRIBUTION" | "GENERATED" | "OPTIONS" | "WATERMARKS" | "METADATA")} ")"] .
//	element     = "PRIMARY" "KEY" "(" names ")" "NOT" "ENFORCED" | "WATERMARK" "FOR" name "AS" expr | name type ["METADATA" ["FROM" string] ["VIRTUAL"]] ["PRIMARY" "KEY" "NOT" "ENFORCED"]
//	            | name "AS" expr .
//	drop        = "DROP" ["TEMPORARY"] ("FUNCTION" | "TABLE" | "VIEW") ["IF" "EXISTS"] name | "DROP" "STATE" "FOR" string .
//	show        = "SHOW" ["USER"] ("FUNCTIONS" | "TABLES" | "VIEWS" | "JOBS") [["NOT"] ("LIKE" | "ILIKE") string]
//	            | "SHOW" "CREATE" ("TABLE" | "VIEW" | "FUNCTION") name
//	            | "SHOW" "TOPICS" [("FROM" | "IN") (name | string)]
//	            | "SHOW" ("STATE" | "TIMERS") "FOR" string ["KEY" "(" expr {"," expr} ")"] .
//	describe    = ("DESCRIBE" | "DESC") ["FUNCTION" ["EXTENDED"]] name .
//	set         = "SET" [string "=" string] .   reset = "RESET" [string] .
//	explain     = "EXPLAIN" ["PLAN" "FOR" | "TIMELINE" | "WHY" | detail {"," detail}] (["EXECUTE"] set | insert | query) .
//	detail      = "ESTIMATED_COST" | "CHANGELOG_MODE" | "JSON_EXECUTION_PLAN" | "PLAN_ADVICE" .
//	insert      = "INSERT" ("INTO" | "OVERWRITE") name query .
//	command     = "HELP" | "QUIT" | "EXIT" .
//	advance     = "ADVANCE" "WATERMARK" name "TO" ( "END" | expr ) .
//	stmtset     = "EXECUTE" set | "BEGIN" "STATEMENT" "SET" | "END" .   (the SQL client's form: statements of their own)
//	set         = "STATEMENT" "SET" "BEGIN" insert ";" {insert ";"} "END" .
//	query       = ["WITH" cte {"," cte}] setexpr {("UNION" | "INTERSECT" | "EXCEPT" | "MINUS") ["ALL" | "DISTINCT"] setexpr} .
//	setexpr     = select | "VALUES" row {"," row} | "(" query ")" .
//	row         = "(" expr {"," expr} ")" | expr | "WATERMARK" expr .
//	select      = "SELECT" ["DISTINCT"] item {"," item} ["FROM" from {join}] ["WHERE" expr] ["GROUP" "BY" exprs]
//	              ["HAVING" expr] ["WINDOW" name "AS" "(" window ")" {"," name "AS" "(" window ")"}]
//	              ["ORDER" "BY" sort {"," sort}] ["LIMIT" number] ["OFFSET" number ["ROW" | "ROWS"]]
//	              ["FETCH" ("FIRST" | "NEXT") number ("ROW" | "ROWS") "ONLY"] .
//	item        = "*" | name "." "*" | expr [["AS"] name] .
//	sort        = expr ["ASC" | "DESC"] ["NULLS" ("FIRST" | "LAST")] .
//	from        = ["LATERAL"] ( "TABLE" "(" call ")" | call | "(" query ")" | name ) ["FOR" "SYSTEM_TIME" "AS" "OF" expr]
//	              [match] [["AS"] name ["(" names ")"]] .
//	match       = "MATCH_RECOGNIZE" "(" ... ")" .   (match.go has its grammar)
//	join        = "," from | ["NATURAL"] [("LEFT" | "RIGHT" | "FULL") ["OUTER"] | "INNER" | "CROSS"] "JOIN" from
//	              ["ON" expr | "USING" "(" names ")"] .
//	call        = name "(" [arg {"," arg}] ")" .
//	arg         = [name "=>"] ( "TABLE" (name | "(" query ")") ["PARTITION" "BY" cols] ["ORDER" "BY" orders] | "DEFAULT" | expr ) .
//
// Expressions have OR, AND, NOT, comparisons (= <> != < <= > >=), and the
// predicates of Flink SQL:
//
//	pred        = sum [ compare sum | ["NOT"] ( "IN" "(" (query | sum {"," sum}) ")"
//	            | "BETWEEN" ["ASYMMETRIC" | "SYMMETRIC"] sum "AND" sum
//	            | ("LIKE" | "SIMILAR" "TO") sum ["ESCAPE" sum] )
//	            | "IS" ["NOT"] ("NULL" | "TRUE" | "FALSE" | "UNKNOWN" | "DISTINCT" "FROM" sum
//	              | "JSON" ["VALUE" | "SCALAR" | "ARRAY" | "OBJECT"]) ] .
//	case        = "CASE" [expr] when {when} ["ELSE" expr] "END" .
//	when        = "WHEN" expr {"," expr} "THEN" expr .
//	call        = name "(" ["DISTINCT"] ["*"] ["BOTH" | "LEADING" | "TRAILING"] [expr {"," expr}] [json]
//	              ["PLACING" expr] ["FROM" expr ["FOR" expr] | "IN" expr | "TO" name] ")"
//	              ["FILTER" "(" "WHERE" expr ")"] ["OVER" (name | "(" window ")")]
//	            | ("JSON_OBJECT" | "JSON_OBJECTAGG") "(" [["KEY"] expr "VALUE" expr {"," ["KEY"] expr "VALUE" expr}] [onnull] ")" .
//	json        = ["RETURNING" type] ["WITHOUT" ["ARRAY"] "WRAPPER" | "WITH" ["CONDITIONAL" | "UNCONDITIONAL"] ["ARRAY"] "WRAPPER"]
//	              {("NULL" | "ERROR" | "TRUE" | "FALSE" | "UNKNOWN" | "EMPTY" ("ARRAY" | "OBJECT") | "DEFAULT" expr) "ON" ("EMPTY" | "ERROR")}
//	              [onnull] .
//	onnull      = ("NULL" | "ABSENT") "ON" "NULL" .
//	window      = ["PARTITION" "BY" exprs] ["ORDER" "BY" sort {"," sort}] [frame] .
//	frame       = ("ROWS" | "RANGE") ("BETWEEN" bound "AND" bound | bound) .
//	bound       = ("UNBOUNDED" | "CURRENT" "ROW" | sum) ["PRECEDING" | "FOLLOWING"] .
//
// then + - || * / %, a sign (-x, +x), literals (numbers, 'strings', TRUE,
// FALSE, NULL, INTERVAL '5' MINUTE, TIMESTAMP '...', DATE '...', DECIMAL
// '1.50'), CAST(x AS type), TRY_CAST(x AS type), CASE, ROW(...) and the
// implicit row (a, b), ARRAY[...], MAP[...], DESCRIPTOR(...), EXISTS
// (query), function calls and column references (t.col, and a ROW
// column's fields: t.r.f). A call's keyword forms are the SQL standard's:
// EXTRACT(DAY FROM t), SUBSTRING(s FROM 2 FOR 3), OVERLAY(s PLACING 'x'
// FROM 2 FOR 3), TRIM(LEADING 'x' FROM
// s), POSITION('a' IN s), FLOOR(t TO HOUR); which function takes which is
// the runtime's (runtime/expr's catalogue). A call with OVER is an OVER
// aggregation or window function (which frames and functions Flink's
// streaming mode allows is the runtime's, runtime/plan's over.go). The
// window table functions (TUMBLE, HOP, CUMULATE, SESSION) are calls of the
// from rule, such as TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10'
// MINUTES)) or SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5'
// MINUTES); their names and arguments are the runtime's. A construct of
// Flink SQL the dialect lacks (a scalar subquery) is an error
// that names it.
//
// Joins chain left to right: FROM a JOIN b ON ... , c JOIN d ON ... joins
// each table to all before it (a comma binds as tightly as JOIN, where
// standard SQL makes it looser). A table's alias is none of the words
// that go on in a FROM clause (LEFT, RIGHT, ON, USING, FOR): in FROM a
// LEFT JOIN b, LEFT is no alias of a. These words are not reserved
// (LEFT(s, n) is a function), but such an alias needs backquotes: AS
// `left`.
//
// Types are written as in Flink: INT NOT NULL,
// VARCHAR(5), DECIMAL(10, 2), TIMESTAMP_LTZ(3), TIMESTAMP(3) WITH LOCAL
// TIME ZONE, INTERVAL DAY TO SECOND, ARRAY<T>, MAP<K, V>, ROW<a INT, b STRING>.
//
// CREATE TABLE without its column list, or with only a PRIMARY KEY and a
// WATERMARK, is a ptfsh extension: Flink parses it (for CREATE TABLE ...
// LIKE) but needs the columns; ptfsh infers a file table's columns from
// its file (see runtime/connector's infer.go).
//
// A statement set's INSERTs end with semicolons inside the statement:
// Split cuts only at the semicolon after its END. A statement with the
// words STATEMENT SET, or BEGIN INSERT, is such a block even when it does
// not parse, so that no INSERT of a statement set that fails to parse runs
// on its own.
//
// # Words
//
// Keywords are case-insensitive. The reserved words (see IsReserved) need
// backquotes to be used as names: `count`, `end`. They are Flink's
// reserved words that the dialect uses (WINDOW among them, so that FROM t
// WINDOW w does not read WINDOW as an alias), and those that start
// constructs it does not have, so that the error can name them.
// Comments are -- to the end of the line and /* ... */. A function body
// may be given inline between $$ and $$.
//
// # Printing
//
// Every node's String() prints it back as canonical SQL on one line:
// keywords and type names upper-case, single spaces, identifiers
// backquoted only when they must be (QuoteIdent), strings re-quoted
// (QuoteString), $$ bodies as they were, comments gone. Parsing what
// String() prints gives the same tree, which prints the same again;
// FuzzParse checks this. Grammar returns the grammar participle derives
// from the AST structs, kept in testdata/grammar.ebnf.
//
// # Positions
//
// Every node has a Pos (file, line, column, offset) into the whole source,
// also when a script is parsed statement by statement, and every error is an
// *Error whose Error() reads file:line:col: message.
//
// # Caveats
//
// A statement may nest brackets, CASE ... END, ARRAY/MAP/ROW type
// parameters and NOTs at most 1000 levels deep: the parser is recursive, and a deeper input
// could exhaust the goroutine stack. SELECT needs a FROM clause.
package sqlmini
