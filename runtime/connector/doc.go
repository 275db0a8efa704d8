// Package connector reads and writes tables. Each connector is a Factory
// named by a table's 'connector' option: filesystem (CSV, JSON-lines and
// Parquet files, gzip-compressed or not, a file or a folder of them
// (folder.go), also as changelogs with an op column, and the file sink of
// INSERT INTO; columns left out at CREATE TABLE are inferred from the
// file, infer.go), datagen (generated rows, as Flink's DataGen
// connector) and values (a table given AS VALUES). A Factory checks a
// table's WITH options at CREATE TABLE and returns the node that scans
// it.
//
// # Positions and exactly-once
//
// A file source records at each checkpoint how far it read and a
// fingerprint of what it read (source_position.go; for a folder, per
// file), so that a restarted statement goes on after it; a file sink
// records its file's length and cuts the file back to it when an
// unfinished INSERT runs again (file_sink.go; a .gz sink ends a gzip
// member at each checkpoint, so the length is a member's end).
//
// # Read-ahead
//
// A regular CSV or JSON file read by a statement on one worker is decoded
// on a goroutine of its own, a batch of rows ahead (prefetch.go). Its
// position is the one after the last row the statement took, so
// checkpoints are as without it; at the end of the file the goroutine
// stops and the file is read directly again.
package connector
