// Package types holds what every stage of ptfsh shares and nothing else:
// SQL data types (Kind, Type), the Go values that stand for them, rows with
// their change kind (Row, RowKind, Schema), changelog modes, the source
// position (Pos) and the one positioned error (Error). It is the leaf of
// the import graph: it imports only Go's standard library.
//
// # Values and rows
//
// A Row is a RowKind (+I, -U, +U, -D) and positional fields typed by a
// Schema; value.go lists which Go type holds which SQL type. FormatValue
// and FormatRow print them as Flink's Row.toString does (format.go), and
// AppendText, AppendJSON and AppendTableValue as the CSV, JSON and tableau
// outputs do.
//
// # Errors
//
// An *Error is a message at a Pos (file:line:col: message) with an optional
// cause for errors.Is and errors.As. At places an error at a position
// unless it has one already; PositionOf finds it again.
package types
