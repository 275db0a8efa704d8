// Package expr compiles the scalar expressions of a query (WHERE, SELECT
// lists, arguments, VALUES) into Expr values that evaluate over the fields
// of one row, with Flink's typing, comparison and CAST rules. Compile takes
// an expression of the sqlmini AST and a Scope that resolves column names
// (and gives the session's clock).
//
// The built-in scalar functions are one catalogue (Functions; functions.go,
// functions_string.go, functions_time.go): each entry has the function's
// name, its signature, a line of doc and how a call compiles. Compile looks
// names up in it, SHOW FUNCTIONS and DESCRIBE FUNCTION show it, and the
// table of functions of docs/sql.md is checked against it. flink_test.go holds
// expressions evaluated by Flink 2.3.0 with their types and values, which
// ptfsh must give too.
package expr
