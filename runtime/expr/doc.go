// Package expr compiles the scalar expressions of a query (WHERE, SELECT
// lists, arguments, VALUES) into Expr values that evaluate over the fields
// of one row, with Flink's typing, comparison and CAST rules. Compile takes
// an expression of the sqlmini AST and a Scope that resolves column names.
package expr
