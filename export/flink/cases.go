package flink

import (
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Runner runs the statements of a script in ptfsh. The wiring (cmd/ptfsh)
// implements it over a session, so that this package needs no engine.
// Errors are returned as they should be shown (the wiring adds the source
// line and caret).
type Runner interface {
	// Exec runs a statement that is not a query: CREATE, DROP, SET,
	// INSERT, SHOW, ... (what it prints is not part of a case).
	Exec(ctx context.Context, st *sqlmini.Statement) error
	// Query runs a query and returns its columns and its rows, each with
	// its kind, in the order ptfsh produced them.
	Query(ctx context.Context, st *sqlmini.Statement) (types.Schema, []types.Row, error)
}

// Script is a ptfsh script whose SELECTs become the cases of a project.
type Script struct {
	// Path names the script in notes and parse errors; Source is its text.
	Path, Source string
	// Name is the SQL name of the exported function and File its file (an
	// absolute path). When the script has no CREATE FUNCTION of Name,
	// Cases registers File under Name first, as a temporary function.
	Name, File string
	// Notes receives a line for each SELECT left out (nil: none).
	Notes io.Writer
	// Dir is the script's folder (absolute): a file table's relative path
	// is made absolute against it, as ptfsh resolves it.
	Dir string
	// Interleaved is true for a function of two or more table arguments:
	// Flink reads its inputs as their rows arrive, ptfsh in a fixed order,
	// so a SELECT that calls it is no test (the rows of a function whose
	// output depends on the interleaving would differ; it is left out
	// with a note).
	Interleaved bool
	// DataDir is the project's folder for data (absolute), named "data"
	// in the project: the rows of a CREATE TABLE ... AS VALUES are written
	// there as JSON lines, and the table is read from that file on Flink.
	DataDir string
}

// DataFolder is the project's folder of the files that hold the rows of
// the script's CREATE TABLE ... AS VALUES, relative to the project (where
// Maven runs the tests).
const DataFolder = "data"

// Cases runs the script's statements one by one through r and returns a
// case per SELECT: the CREATE VIEW and CREATE TABLE statements before it
// (less those dropped since), the SELECT, and the rows ptfsh gave, in
// Row.toString form. Other statements (CREATE FUNCTION, SET, SHOW,
// INSERT, ...) run in ptfsh only.
//
// The project registers only the exported function. So a SELECT that
// calls another function the script creates is left out, with a note; a
// view that calls one is not part of any case, and a SELECT that reads
// such a view is left out too. Calls are found in the statements' syntax
// trees (PTF calls in FROM and in table arguments, at any depth, and
// function calls in expressions), names compared as Flink compares
// function names, without regard to case.
//
// The first statement that fails to parse or to run stops Cases with its
// error.
func Cases(ctx context.Context, r Runner, s Script) ([]Case, error) {
	notes := s.Notes
	if notes == nil {
		notes = io.Discard
	}
	parsed := sqlmini.ParseEach(s.Path, s.Source)
	others := map[string]string{} // lower-cased name → name, of the other functions
	declared := false
	for _, p := range parsed {
		if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil {
			continue
		}
		n := string(p.Stmt.Create.Function.Name.Value)
		if strings.EqualFold(n, s.Name) {
			declared = true
		} else if _, ok := others[strings.ToLower(n)]; !ok {
			others[strings.ToLower(n)] = n
		}
	}
	if !declared {
		if err := r.Exec(ctx, registration(s.Name, s.File)); err != nil {
			return nil, err
		}
	}
	// tainted holds the views that call another function (directly or
	// through another view), with the function.
	tainted := map[string]string{}
	// unfit holds the tables (and the views over them) that Flink cannot
	// read as ptfsh does, with the reason.
	unfit := map[string]string{}
	// endless holds the Kafka tables that a SELECT on Flink would read
	// without end (no 'scan.bounded.mode', or upsert-kafka, which Flink
	// reads unbounded): no test reads them, an INSERT of the job does;
	// topics holds the Kafka tables, which an INSERT writes in job.sql.
	endless := map[string]string{}
	topics := map[string]bool{}
	inserts := 0 // the cases that are INSERTs of the job
	type setupStmt struct{ name, text string }
	var setup []setupStmt
	var cases []Case
	// goOn is SET 'ptfsh.on-error' = 'continue': a statement that fails
	// is left out, with a note, and the script goes on, as in ptfsh.
	goOn := false
	// batch is SET 'execution.runtime-mode' = 'batch': the cases then
	// start with that SET (BatchMode), which makes Flink's environment
	// one of batch mode.
	batch := false
	failed := func(st *sqlmini.Statement, err error) error {
		if !goOn {
			return err
		}
		msg, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(notes, "note: %s:%d: left out, it fails in ptfsh ('ptfsh.on-error' is 'continue'): %s\n", s.Path, st.Pos.Line, msg)
		return nil
	}
	for _, p := range parsed {
		if p.Err != nil {
			return nil, p.Err
		}
		st := p.Stmt
		switch {
		case st.Set != nil && st.Set.Key != nil && string(*st.Set.Key) == "ptfsh.on-error":
			goOn = st.Set.Value != nil && strings.EqualFold(string(*st.Set.Value), "continue")
		case st.Reset != nil && (st.Reset.Key == nil || string(*st.Reset.Key) == "ptfsh.on-error"):
			goOn = false
		}
		switch {
		case st.Set != nil && st.Set.Key != nil && string(*st.Set.Key) == runtimeMode:
			batch = st.Set.Value != nil && strings.EqualFold(string(*st.Set.Value), "batch")
		case st.Reset != nil && (st.Reset.Key == nil || string(*st.Reset.Key) == runtimeMode):
			batch = false
		}
		if st.Query != nil {
			if fn, view := otherCall(st.Query, others, tainted); fn != "" {
				how := "calls " + fn
				if view != "" {
					how = "reads view " + view + ", which calls " + fn
				}
				fmt.Fprintf(notes, "note: %s:%d: skipped, it %s, which is not exported with %s\n", s.Path, st.Pos.Line, how, s.Name)
				continue
			}
			if s.Interleaved && callsFn(st.Query, s.Name) {
				fmt.Fprintf(notes, "note: %s:%d: skipped, %s reads two tables, whose rows Flink interleaves as they arrive (ptfsh in a fixed order), so its rows may differ\n", s.Path, st.Pos.Line, s.Name)
				continue
			}
			if name, why := readsUnfit(st.Query, unfit); name != "" {
				fmt.Fprintf(notes, "note: %s:%d: skipped, it reads %s, %s\n", s.Path, st.Pos.Line, name, why)
				continue
			}
			if name, why := readsUnfit(st.Query, endless); name != "" {
				// Not run: a query changes nothing, and this one may not end.
				fmt.Fprintf(notes, "note: %s:%d: no test, it reads %s, %s\n", s.Path, st.Pos.Line, name, why)
				continue
			}
			schema, rows, err := r.Query(ctx, st)
			if err != nil {
				if err := failed(st, err); err != nil {
					return nil, err
				}
				continue
			}
			stmts := make([]string, 0, len(setup)+2)
			if batch {
				stmts = append(stmts, BatchMode)
			}
			for _, u := range setup {
				stmts = append(stmts, u.text)
			}
			c := Case{Name: fmt.Sprintf("case%02d", len(cases)-inserts+1), Statements: append(stmts, flinkText(st)), Rows: []string{}}
			for _, row := range rows {
				c.Rows = append(c.Rows, types.FormatRow(row, schema))
			}
			cases = append(cases, c)
			continue
		}
		if err := r.Exec(ctx, st); err != nil {
			if err := failed(st, err); err != nil {
				return nil, err
			}
			continue
		}
		if in := st.Insert; in != nil && topics[string(in.Table.Value)] && readsTable(in.Query) {
			// The job: an INSERT into a topic goes into job.sql, after the
			// tables and views it needs, unless it reads what Flink
			// cannot read as ptfsh does. (An INSERT of VALUES is the
			// script's test data.)
			if fn, _ := otherCall(in.Query, others, tainted); fn != "" {
				fmt.Fprintf(notes, "note: %s:%d: not in job.sql, it calls %s, which is not exported with %s\n", s.Path, st.Pos.Line, fn, s.Name)
				continue
			}
			if name, why := readsUnfit(in.Query, unfit); name != "" {
				fmt.Fprintf(notes, "note: %s:%d: not in job.sql, it reads %s, %s\n", s.Path, st.Pos.Line, name, why)
				continue
			}
			stmts := make([]string, 0, len(setup)+2)
			if batch {
				stmts = append(stmts, BatchMode)
			}
			for _, u := range setup {
				stmts = append(stmts, u.text)
			}
			inserts++
			cases = append(cases, Case{Name: fmt.Sprintf("insert%02d", inserts), Statements: append(stmts, flinkText(st)), Insert: true})
			continue
		}
		switch c := st.Create; {
		case c != nil && c.View != nil:
			name := string(c.View.Name.Value)
			if fn, _ := otherCall(c.View.Query, others, tainted); fn != "" {
				tainted[name] = fn
				continue
			}
			if t, why := readsUnfit(c.View.Query, unfit); t != "" {
				unfit[name] = "which reads " + t + ", " + why
				continue
			}
			if untypedNull(c.View.Query) {
				unfit[name] = "a view whose VALUES or SELECT list hold an untyped NULL, which Flink refuses ('Illegal use of 'NULL''; CAST(NULL AS type) works in both)"
				continue
			}
			setup = append(setup, setupStmt{name, flinkText(st)})
		case c != nil && c.Table != nil:
			name := string(c.Table.Name.Value)
			text, why, err := flinkTable(ctx, r, s, st)
			if err != nil {
				return nil, err
			}
			if why != "" {
				unfit[name] = why
				continue
			}
			if conn, bounded := kafkaTable(c.Table); conn != "" {
				topics[name] = true
				if !bounded {
					endless[name] = "a topic that Flink reads without end ('" + conn + "' without 'scan.bounded.mode'), which a test cannot wait for"
				}
			}
			setup = append(setup, setupStmt{name, text})
		case st.Drop != nil && st.Drop.Name != nil && !strings.EqualFold(st.Drop.Kind, "FUNCTION"):
			name := string(st.Drop.Name.Value)
			delete(tainted, name)
			delete(unfit, name)
			delete(endless, name)
			delete(topics, name)
			for i, u := range setup {
				if u.name == name {
					setup = append(setup[:i], setup[i+1:]...)
					break
				}
			}
		}
	}
	return cases, nil
}

// flinkTable returns the statement that gives Flink the table of st, a
// CREATE TABLE that ptfsh has run, or why Flink cannot read it as ptfsh
// does:
//
//   - CREATE TABLE t (...) AS VALUES ... (ptfsh's inline rows), and a file
//     table with options only ptfsh has ('csv.header',
//     'timestamp-format.pattern'): ptfsh writes the rows to a file of
//     DataDir (JSON lines, through a filesystem table of ptfsh's, in the
//     form Flink's json format reads), and Flink reads t, with its
//     columns and watermark, from that file; VALUES with WATERMARK steps
//     have no Flink equivalent;
//   - another file table: a relative path is made absolute against the
//     script's folder; a changelog file table (an op column) is unfit;
//   - a datagen table: Flink's random values are not ptfsh's (ptfsh's
//     datagen is deterministic), so it is unfit.
func flinkTable(ctx context.Context, r Runner, s Script, st *sqlmini.Statement) (text, why string, err error) {
	t := *st.Create.Table
	name := string(t.Name.Value)
	opts := map[string]string{}
	for _, o := range t.Options {
		opts[string(o.Key)] = string(o.Value)
	}
	var cols []string
	for _, e := range t.Elements {
		if e.PrimaryKey != nil || e.Column != nil && e.Column.PrimaryKey {
			if t.Query != nil {
				return "", "whose VALUES have a PRIMARY KEY, which Flink's filesystem connector does not take", nil
			}
		}
		if e.Column != nil {
			cols = append(cols, sqlmini.QuoteIdent(string(e.Column.Name.Value))+" "+e.Column.Type.String())
		}
	}
	connector := strings.ToLower(opts["connector"])
	// ptfshOnly is the first option of a file table that Flink's
	// filesystem connector and formats do not have.
	ptfshOnly := ""
	for _, o := range t.Options {
		switch k := string(o.Key); k {
		case "changelog.op-column", "changelog-mode", "source.produces-delete-by-key", "sink.supports-delete-by-key":
			if connector == "filesystem" {
				return "", "a changelog file table ('" + k + "'), which Flink's filesystem connector does not read", nil
			}
		case "csv.header", "timestamp-format.pattern":
			if ptfshOnly == "" {
				ptfshOnly = k
			}
		}
	}
	switch {
	case t.Query != nil || connector == "filesystem" && ptfshOnly != "":
		if t.Query != nil && len(t.Options) > 0 {
			return "", "whose VALUES come with WITH options, which Flink has no equivalent for", nil
		}
		steps := false
		sqlmini.Inspect(t.Query, func(n any) {
			if v, ok := n.(*sqlmini.ValuesRow); ok && v.Watermark != nil {
				steps = true
			}
		})
		if steps {
			return "", "whose VALUES hold WATERMARK steps, which Flink has no equivalent for", nil
		}
		if s.DataDir == "" {
			return "", "a table whose rows Flink cannot read as they are (no folder for them)", nil
		}
		// Flink reads the rows as ptfsh read them, from JSON lines that
		// ptfsh writes.
		file := dataFile(s.Name, name)
		if err := writeRows(ctx, r, s.DataDir, file, name, cols); err != nil {
			return "", "", err
		}
		t.Query = nil
		t.Options = []*sqlmini.Option{
			{Key: "connector", Value: "filesystem"},
			{Key: "path", Value: sqlmini.Str(DataFolder + "/" + file)},
			{Key: "format", Value: "json"},
			// ptfsh writes times as ISO-8601 (2025-03-27T12:00:00Z).
			{Key: "json.timestamp-format.standard", Value: "ISO-8601"},
		}
	case connector == "datagen":
		return "", "a datagen table, whose random values on Flink are not ptfsh's", nil
	case (connector == "kafka" || connector == "upsert-kafka") && strings.EqualFold(opts["sink.delivery-guarantee"], "exactly-once") && opts["properties.transaction.timeout.ms"] == "":
		// Flink's Kafka sink asks for transactions of an hour
		// (KafkaSinkBuilder's default), which a broker refuses unless its
		// 'transaction.max.timeout.ms' (15 minutes by default) allows
		// them; ptfsh's sink asks for 15 minutes, which Flink's job is
		// given too.
		t.Options = append(append([]*sqlmini.Option(nil), t.Options...), &sqlmini.Option{Key: "properties.transaction.timeout.ms", Value: sqlmini.Str(fmt.Sprint(kafkaTransactionTimeout.Milliseconds()))})
	case connector == "filesystem":
		for i, o := range t.Options {
			if string(o.Key) == "path" && !filepath.IsAbs(string(o.Value)) && s.Dir != "" {
				t.Options = append([]*sqlmini.Option(nil), t.Options...)
				t.Options[i] = &sqlmini.Option{Key: o.Key, Value: sqlmini.Str(filepath.Join(s.Dir, string(o.Value)))}
				break
			}
		}
	default:
		return flinkText(st), "", nil
	}
	// The statement as written up to its columns' closing parenthesis
	// (flinkText: names that Flink reserves in backquotes), then the new
	// options.
	head, ok := tableHead(st)
	if !ok {
		return "", "", fmt.Errorf("%s:%d: export flink: cannot find the columns of table %s in %q", s.Path, st.Pos.Line, name, st.Text)
	}
	head = sqlmini.QuoteFlinkReserved(st, len(head))
	opts2 := make([]string, len(t.Options))
	for i, o := range t.Options {
		opts2[i] = sqlString(string(o.Key)) + " = " + sqlString(string(o.Value))
	}
	return head + " WITH (" + strings.Join(opts2, ", ") + ")", "", nil
}

// kafkaTransactionTimeout is the transaction timeout of ptfsh's
// exactly-once Kafka sink when the table sets none.
const kafkaTransactionTimeout = 15 * time.Minute

// kafkaTable returns the connector of a Kafka table ('kafka' or
// 'upsert-kafka'; "" for another table) and whether Flink reads it to an
// end: a kafka table with 'scan.bounded.mode' other than 'unbounded'
// (Flink's upsert-kafka source has no end).
func kafkaTable(t *sqlmini.CreateTable) (connector string, bounded bool) {
	for _, o := range t.Options {
		if string(o.Key) == "connector" {
			connector = strings.ToLower(string(o.Value))
		}
	}
	if connector != "kafka" && connector != "upsert-kafka" {
		return "", false
	}
	for _, o := range t.Options {
		if string(o.Key) == "scan.bounded.mode" && connector == "kafka" {
			bounded = strings.ToLower(string(o.Value)) != "unbounded"
		}
	}
	return connector, bounded
}

// flinkText is st's text as Flink's parser reads it as ptfsh did: each
// name that is a reserved word of Flink SQL (user, value, sum, ...)
// written in backquotes, which ptfsh, reserving fewer words, does not
// need ([sqlmini.FlinkReservedNames], the rule of the flink dialect).
func flinkText(st *sqlmini.Statement) string { return sqlmini.QuoteFlinkReserved(st, -1) }

// tableHead is the text of a CREATE TABLE statement up to the parenthesis
// that closes its elements, as written.
func tableHead(st *sqlmini.Statement) (string, bool) {
	t := st.Create.Table
	if len(t.Elements) == 0 {
		return "", false
	}
	i := t.Elements[0].Pos.Offset - st.Pos.Offset
	if i < 0 || i > len(st.Text) {
		return "", false
	}
	open := strings.LastIndex(st.Text[:i], "(")
	if open < 0 {
		return "", false
	}
	text := st.Text
	depth := 0
	for j := open; j < len(text); j++ {
		switch c := text[j]; {
		case c == '\'' || c == '`' || c == '"':
			k := strings.IndexByte(text[j+1:], c)
			if k < 0 {
				return "", false
			}
			j += k + 1 // a doubled quote closes and opens again
		case strings.HasPrefix(text[j:], "--"):
			k := strings.IndexByte(text[j:], '\n')
			if k < 0 {
				return "", false
			}
			j += k
		case strings.HasPrefix(text[j:], "/*"):
			k := strings.Index(text[j+2:], "*/")
			if k < 0 {
				return "", false
			}
			j += k + 3
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return text[:j+1], true
			}
		}
	}
	return "", false
}

// dataFile is the name of the file of table name's rows, for function fn
// (the e2e test merges the projects of several functions): the ASCII
// letters, digits, _ and - of both, a checksum of both, and .json.
func dataFile(fn, name string) string {
	var b strings.Builder
	for _, r := range ClassName(fn) + "_" + name {
		if r == '_' || r == '-' || isASCIILetter(r) || '0' <= r && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String() + fmt.Sprintf("_%08x.json", crc32.ChecksumIEEE([]byte(fn+"\x00"+name)))
}

// writeRows writes the rows of ptfsh's table name to dir/file as JSON
// lines, through a temporary filesystem table of ptfsh (its json format
// writes what Flink's reads).
func writeRows(ctx context.Context, r Runner, dir, file, name string, cols []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, file)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	sink := sqlmini.QuoteIdent("ptfsh_export_" + name)
	stmts := []string{
		"CREATE TEMPORARY TABLE " + sink + " (" + strings.Join(cols, ", ") + ") WITH ('connector' = 'filesystem', 'path' = " +
			sqlmini.QuoteString(path) + ", 'format' = 'json')",
		"INSERT INTO " + sink + " SELECT * FROM " + sqlmini.QuoteIdent(name),
		"DROP TEMPORARY TABLE " + sink,
	}
	for _, text := range stmts {
		parsed, err := sqlmini.Parse("export", text)
		if err != nil {
			return fmt.Errorf("writing the rows of %s: %v", name, err)
		}
		if err := r.Exec(ctx, parsed[0]); err != nil {
			return fmt.Errorf("writing the rows of %s: %v", name, err)
		}
	}
	return nil
}

// callsFn reports whether q calls the function name (compared as Flink
// compares function names, without regard to case).
func callsFn(q *sqlmini.Query, name string) bool {
	found := false
	sqlmini.Inspect(q, func(n any) {
		var called *sqlmini.Name
		switch n := n.(type) {
		case *sqlmini.Call:
			called = n.Name
		case *sqlmini.FuncCall:
			called = n.Name
		}
		if called != nil && strings.EqualFold(string(called.Value), name) {
			found = true
		}
	})
	return found
}

// untypedNull reports whether a VALUES of q has a bare NULL for a value,
// or a SELECT of q a bare NULL for a column (Flink refuses both).
func untypedNull(q *sqlmini.Query) bool {
	found := false
	isNull := func(e *sqlmini.Expr) bool {
		return e != nil && strings.EqualFold(strings.Trim(strings.TrimSpace(e.String()), "() "), "NULL")
	}
	sqlmini.Inspect(q, func(n any) {
		switch v := n.(type) {
		case *sqlmini.ValuesRow:
			for _, e := range v.Values {
				found = found || isNull(e)
			}
		case *sqlmini.SelectItem:
			found = found || isNull(v.Expr)
		}
	})
	return found
}

// readsUnfit returns the first table or view of unfit that q reads, and
// why it is unfit; "" when there is none. Names that q defines in a WITH
// clause are its own.
func readsUnfit(q *sqlmini.Query, unfit map[string]string) (name, why string) {
	eachRead(q, func(read string) {
		if w, ok := unfit[read]; ok && name == "" {
			name, why = read, w
		}
	})
	return name, why
}

// readsTable reports whether q reads a table or view (not only VALUES).
func readsTable(q *sqlmini.Query) bool {
	reads := false
	eachRead(q, func(string) { reads = true })
	return reads
}

// eachRead calls fn with the name of each table or view that q reads (in
// FROM and as a table argument), less its own CTEs.
func eachRead(q *sqlmini.Query, fn func(name string)) {
	ctes := map[string]bool{}
	sqlmini.Inspect(q, func(n any) {
		if c, ok := n.(*sqlmini.CTE); ok && c.Name != nil {
			ctes[string(c.Name.Value)] = true
		}
	})
	sqlmini.Inspect(q, func(n any) {
		var read *sqlmini.Name
		switch n := n.(type) {
		case *sqlmini.FromItem:
			read = n.Table
		case *sqlmini.TableArg:
			read = n.Name
		}
		if read != nil && !ctes[string(read.Value)] {
			fn(string(read.Value))
		}
	})
}

// registration is CREATE TEMPORARY FUNCTION name AS 'file', built as a
// syntax tree rather than parsed from text, so that no name or path can
// change what it says.
func registration(name, file string) *sqlmini.Statement {
	path := sqlmini.Str(file)
	st := &sqlmini.Statement{Create: &sqlmini.Create{Temporary: true, Function: &sqlmini.CreateFunction{
		Name: &sqlmini.Name{Value: sqlmini.Ident(name)},
		Path: &path,
	}}}
	st.Text = st.String()
	return st
}

// otherCall returns the first function of others that q calls, and, when
// it calls it through a view of tainted, that view; "" when there is
// none. Names that q defines in a WITH clause are its own, not views.
func otherCall(q *sqlmini.Query, others, tainted map[string]string) (fn, view string) {
	ctes := map[string]bool{}
	sqlmini.Inspect(q, func(n any) {
		if c, ok := n.(*sqlmini.CTE); ok && c.Name != nil {
			ctes[string(c.Name.Value)] = true
		}
	})
	sqlmini.Inspect(q, func(n any) {
		if fn != "" {
			return
		}
		var called, read *sqlmini.Name
		switch n := n.(type) {
		case *sqlmini.Call:
			called = n.Name
		case *sqlmini.FuncCall:
			called = n.Name
		case *sqlmini.FromItem:
			read = n.Table
		case *sqlmini.TableArg:
			read = n.Name
		}
		if called != nil {
			fn = others[strings.ToLower(string(called.Value))]
		}
		if read != nil && !ctes[string(read.Value)] {
			if f, ok := tainted[string(read.Value)]; ok {
				fn, view = f, string(read.Value)
			}
		}
	})
	return fn, view
}

// FunctionName is the SQL name to export the function file absFile under:
// the name of the script's CREATE FUNCTION of that file (its path relative
// to the script's folder), else the file's base name in CamelCase
// (greeting_with_memory.js: GreetingWithMemory). scriptFile and src may be
// empty.
func FunctionName(absFile, scriptFile, src string) string {
	for _, p := range sqlmini.ParseEach(scriptFile, src) {
		if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil || p.Stmt.Create.Function.Path == nil {
			continue
		}
		f := p.Stmt.Create.Function
		path := string(*f.Path)
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(scriptFile), path)
		}
		if abs, err := filepath.Abs(path); err == nil && abs == absFile {
			return string(f.Name.Value)
		}
	}
	base := strings.TrimSuffix(filepath.Base(absFile), filepath.Ext(absFile))
	var b strings.Builder
	up := true
	for _, r := range base {
		if r == '_' || r == '-' || r == '.' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
