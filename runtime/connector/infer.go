package connector

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// InferColumns sets the columns of a table declared without any, CREATE
// TABLE t WITH ('connector' = 'filesystem', ...) (a PRIMARY KEY and a
// WATERMARK may be declared, and name the inferred columns), from its file (a ptfsh
// extension; Flink needs the columns declared): a CSV file's header and
// values, a JSON file's keys and values ([format.InferCSV], InferJSON, from
// the first [format.InferSampleRows] rows), a Parquet file's schema
// ([format.InferParquet]); for a folder, its first file. It returns a note
// for the user that names the columns. t.Options must be set.
func InferColumns(t *catalog.Table, ct *sqlmini.CreateTable) (string, error) {
	name := t.Name
	if t.Options["connector"] != "filesystem" {
		what := "no connector"
		if c := t.Options["connector"]; c != "" {
			what = "the connector '" + c + "'"
		}
		return "", sqlmini.Errorf(ct.Name.Pos, "table '%s' declares no columns, and it has %s: only a filesystem table's columns can be inferred from its file; declare them: CREATE TABLE %s (col TYPE, ...) WITH (...)", name, what, sqlmini.QuoteIdent(name))
	}
	if t.Options["path"] == "" || t.Options["format"] == "" {
		return "", nil // Validate says what is missing
	}
	if err := checkOptions(filesystem{}, ct); err != nil {
		return "", err
	}
	path := TablePath(t)
	written := t.Options["path"]
	files, err := tableFiles(t) // folder.go; one file when path is not a folder
	if err != nil {
		return "", sqlmini.Errorf(ct.Name.Pos, "%w", fileError(t, err))
	}
	if len(files) == 0 {
		return "", sqlmini.Errorf(ct.Name.Pos, "table '%s' declares no columns, and the folder '%s' has no file to infer them from; declare them", name, written)
	}
	if files[0] != path {
		path = files[0]
	}
	parse := textparse.Options{
		TimestampPattern: t.Options["timestamp-format.pattern"],
		TimestampFormat:  t.Options["json.timestamp-format.standard"],
	}
	var cols []types.Column
	var skipped []string
	from := fmt.Sprintf("the first %d rows of", format.InferSampleRows)
	switch f := t.Options["format"]; f {
	case "csv":
		nl, nlSet := t.Options["csv.null-literal"]
		opts := format.CSVSourceOptions{Parse: parse, NullLiteral: nl, EmptyIsNull: nlSet && nl == ""}
		if opts.Header, err = BoolOption(t, "csv.header"); err != nil {
			return "", sqlmini.Errorf(optionPos(ct, "csv.header"), "%w", err)
		}
		if !opts.Header {
			return "", sqlmini.Errorf(ct.Name.Pos, "table '%s' declares no columns, and a CSV file without a header cannot name them: declare the columns, CREATE TABLE %s (col TYPE, ...) WITH (...), or set 'csv.header' = 'true' if the file's first line names them", name, sqlmini.QuoteIdent(name))
		}
		if opts.IgnoreParseErrors, err = BoolOption(t, "csv.ignore-parse-errors"); err != nil {
			return "", sqlmini.Errorf(optionPos(ct, "csv.ignore-parse-errors"), "%w", err)
		}
		if opts.AllowComments, err = BoolOption(t, "csv.allow-comments"); err != nil {
			return "", sqlmini.Errorf(optionPos(ct, "csv.allow-comments"), "%w", err)
		}
		if opts.FieldDelimiter, err = charOption(t, "csv.field-delimiter"); err != nil {
			return "", sqlmini.Errorf(optionPos(ct, "csv.field-delimiter"), "%w", err)
		}
		if opts.QuoteCharacter, err = charOption(t, "csv.quote-character"); err != nil {
			return "", sqlmini.Errorf(optionPos(ct, "csv.quote-character"), "%w", err)
		}
		cols, err = format.InferCSV(path, opts)
	case "json":
		opts := format.JSONSourceOptions{Parse: parse}
		if opts.IgnoreParseErrors, err = BoolOption(t, "json.ignore-parse-errors"); err != nil {
			return "", sqlmini.Errorf(optionPos(ct, "json.ignore-parse-errors"), "%w", err)
		}
		cols, err = format.InferJSON(path, opts)
	case FormatParquet:
		from = "the schema of"
		cols, skipped, err = format.InferParquet(path)
	default:
		return "", nil // Validate names the formats
	}
	if err != nil {
		return "", sqlmini.Errorf(ct.Name.Pos, "%w", inferError(t, path, err))
	}
	t.Schema = types.Schema{Columns: cols}
	t.Inferred = true
	shown := written
	if path != TablePath(t) {
		shown = folderMember(written, TablePath(t), path)
	}
	note := fmt.Sprintf("note: table '%s': columns inferred from %s '%s' (a ptfsh extension: Flink needs them declared; SHOW CREATE TABLE %s prints the statement with them): %s",
		name, from, shown, sqlmini.QuoteIdent(name), columnsText(cols))
	if len(skipped) > 0 {
		note += "; left out, as nested and repeated columns are not read yet: " + strings.Join(skipped, ", ")
	}
	return note, nil
}

// inferError words an error of inference as fileError does, with the
// file's name as the table declares it.
func inferError(t *catalog.Table, path string, err error) error {
	return fmt.Errorf("%w (inferring the columns of table '%s')", fileError(t, err), t.Name)
}

// columnsText lists columns as name TYPE, ...
func columnsText(cols []types.Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = sqlmini.QuoteIdent(c.Name) + " " + c.Type.String()
	}
	return strings.Join(parts, ", ")
}
