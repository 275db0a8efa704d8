// Package format reads and writes the formats of ptfsh's tables and
// results.
//
// # Reading
//
// OpenCSV and OpenJSON return a RowReader over a CSV or JSON-lines (or
// JSON array) file that decodes each field straight into the Go value of
// its SQL type ([textparse.Value], [textparse.JSON]), with
// file:line:col in every ParseError. OpenParquet reads the declared
// columns of a Parquet file, a row group at a time, with file: row N in
// its ParseErrors (parquet_read.go, parquet_write.go and parquet_schema.go
// are the only importers of parquet-go). A reader can resume at a
// SourcePos, which is how a file source goes on after a checkpoint: a
// byte offset for CSV and JSON, a row index for Parquet. A CSV or JSON
// file whose name ends in .gz or .gzip is read decompressed, its offsets
// counting decompressed bytes (source_input.go).
//
// InferCSV, InferJSON and InferParquet return the columns of a file for a
// table declared without them (infer.go, parquet_schema.go).
//
// # Writing
//
// The Printers below write CSV and JSON files as well as results;
// ParquetWriter writes Parquet files.
//
// # Printing
//
// A Printer writes a query's result in one output format: tableau (the
// Flink SQL client's print() layout, byte for byte), changelog, table
// (materialised), rows (Flink's Row.toString, as its tests compare), csv
// and json (with an op column on request). NewPrinter picks one by name;
// NewMaterializing gives the table result mode in any other format. The
// table mode holds the final table only (print_table.go).
package format
