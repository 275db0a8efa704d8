// Package textparse reads values from text as Flink reads them: the
// fields of its csv and json formats and CAST from STRING.
//
// # Values
//
// [Value] converts text to the Go value that holds a SQL type in a row
// (see runtime/types), with [Options] (a timestamp pattern, Flink's
// timestamp format, the csv format's strictness); [Compile] gives the
// [Parser] of a set of options, which a reader keeps. [ConvertJSON]
// converts a decoded JSON value the same way. [TimePattern] parses a
// timestamp with a pattern of Java's DateTimeFormatter (TO_TIMESTAMP),
// [TimeSetting] the value of SET 'ptfsh.processing-time'.
//
// # JSON
//
// [JSON] reads JSON text straight into values of SQL types, with the byte
// of every error ([JSONError]): the JSON text of ARRAY, MAP and ROW
// values, and the records of runtime/format's JSON reader, which drives
// it key by key.
//
// # Layering
//
// The package depends on runtime/types only, so that runtime/expr
// (CAST) and runtime/settings read text without the file formats of
// runtime/format, which link Parquet and the store.
package textparse
