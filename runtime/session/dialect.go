package session

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// SetDialect is SET 'ptfsh.dialect': ptfsh (the default) runs ptfsh's
// extensions of Flink SQL as they are, warn runs them with a note, flink
// refuses them, so that a script that runs here runs on Flink.
const SetDialect = "ptfsh.dialect"

// Dialects of SET 'ptfsh.dialect'.
const (
	DialectPtfsh = "ptfsh"
	DialectWarn  = "warn"
	DialectFlink = "flink"
)

// dialect is the value in force of SET 'ptfsh.dialect' (Config.Dialect,
// --dialect, is its default).
func (s *Session) dialect() string {
	if _, set := s.settings[SetDialect]; !set && s.cfg.Dialect != "" {
		return s.cfg.Dialect
	}
	d, _ := settings.Get[string](s.settings, SetDialect)
	return d
}

// extension is one construct of a statement that ptfsh runs and a Flink
// SQL client (or Flink's readers) would refuse.
type extension struct {
	pos sqlmini.Pos
	// what names it ("'csv.header'", "CREATE STREAM"); why says what Flink
	// has or needs instead.
	what, why string
	// inspect marks a statement of the shell that reads what ran (SHOW
	// STATE, SHOW TIMERS): it changes nothing, so the flink dialect runs it
	// with a note rather than refuse it; a Flink job script leaves it out.
	inspect bool
	// noted marks what the statement notes itself in every dialect (the
	// columns it inferred): warn adds no note of its own.
	noted bool
}

// checkDialect looks for ptfsh's extensions in st before it runs. Under
// the flink dialect the first is an error at its position (an inspection
// statement runs with a note); under warn each is a note, once per
// statement; under ptfsh nothing is said.
func (s *Session) checkDialect(st *sqlmini.Statement) error {
	d := s.dialect()
	if d == DialectPtfsh {
		// Nothing is said, but what ran is kept for Extensions: the
		// command sums it up for a person at a terminal.
		for _, e := range extensions(st, s.isFile) {
			if !e.inspect && !e.noted {
				s.extUsed = append(s.extUsed, e)
			}
		}
		return nil
	}
	seen := map[string]bool{}
	for _, e := range extensions(st, s.isFile) {
		msg := fmt.Sprintf("%s is a ptfsh extension: %s", e.what, e.why)
		if d == DialectFlink && !e.inspect {
			return sqlmini.Errorf(e.pos, "%s (SET 'ptfsh.dialect' = 'ptfsh' runs it)", msg)
		}
		if seen[msg] || e.noted {
			continue
		}
		seen[msg] = true
		if e.inspect {
			fmt.Fprintf(s.cfg.Err, "note: %s: %s; leave it out of a Flink job script\n", e.pos, msg)
		} else {
			fmt.Fprintf(s.cfg.Err, "note: %s: %s; SET 'ptfsh.dialect' = 'flink' refuses it\n", e.pos, msg)
		}
	}
	return nil
}

// extensions lists the constructs of st that Flink refuses, in the order
// of the statement's text.
func extensions(st *sqlmini.Statement, isFile func(path string) bool) []extension {
	var out []extension
	add := func(pos sqlmini.Pos, what, why string) {
		out = append(out, extension{pos: pos, what: what, why: why})
	}
	switch {
	case st.Create != nil && st.Create.Stream != nil:
		add(st.Create.Pos, "CREATE STREAM", "Flink reads tables through connectors and has no stream stepped by hand; declare a table over a file (CREATE TABLE ... WITH ('connector' = 'filesystem', ...))")
	case st.Create != nil && st.Create.Table != nil:
		ct := st.Create.Table
		for _, o := range ct.Options {
			switch string(o.Key) {
			case "csv.header":
				add(o.Pos, "'csv.header'", "Flink's csv format has no header option and ignores it (the filesystem connector leaves the format's options unchecked), so Flink reads the header line as a row; take the option out, and the header line out of the file")
			case "timestamp-format.pattern":
				add(o.Pos, "'timestamp-format.pattern'", "Flink's filesystem connector has no such option (\"Unsupported options found for 'filesystem'\"); declare the column STRING and read it with TO_TIMESTAMP(col, 'pattern') in a view, or write the file's times as yyyy-MM-dd HH:mm:ss")
			case "changelog.op-column", "changelog-mode", "source.produces-delete-by-key", "sink.supports-delete-by-key":
				add(o.Pos, "'"+string(o.Key)+"'", "Flink's filesystem connector has no such option (\"Unsupported options found for 'filesystem'\") and reads and writes insert-only tables; a changelog file needs another connector or format (Flink's 'debezium-json', 'canal-json', ...)")
			case "source.monitor-interval":
				if path := optionValue(ct, "path"); optionValue(ct, "connector") == "filesystem" && isFile(path) {
					add(o.Pos, "'source.monitor-interval' over a file", "Flink's filesystem source monitors a folder for new files and reads a file once, whole, never what is appended to it; follow a folder that whole files are moved into")
				}
			case "seed":
				if optionValue(ct, "connector") == "datagen" {
					add(o.Pos, "'seed'", "Flink's datagen connector has no seed option (\"Unsupported options found for 'datagen'\"), and its values are random on every run")
				}
			}
		}
		if optionValue(ct, "connector") == "stdin" {
			add(ct.Pos, "'connector' = 'stdin'", "Flink has no connector that reads standard input; read the rows from a folder (with 'source.monitor-interval') or a Kafka topic")
		}
		if ct.Query != nil {
			add(ct.Query.Pos, "CREATE TABLE ... AS VALUES", "Flink's CREATE TABLE ... AS writes a query into a connector table; put the rows in a file table, or in a view (CREATE VIEW v AS VALUES ...) without WATERMARK steps")
		} else if !declaresColumns(ct) && optionValue(ct, "connector") == "filesystem" {
			name := string(ct.Name.Value)
			out = append(out, extension{pos: ct.Name.Pos, what: "a table without columns (columns inferred from its file)", why: fmt.Sprintf("Flink takes a table's columns from the statement only, so there the table has none; declare them (SHOW CREATE TABLE %s prints the statement with them)", sqlmini.QuoteIdent(name)), noted: true})
		}
	case st.Advance != nil:
		if st.Advance.Processing {
			add(st.Advance.Pos, "ADVANCE PROCESSING TIME", "Flink's processing time is the machine's clock; declare a PROCTIME() column on a table whose rows come live")
		} else {
			add(st.Advance.Pos, "ADVANCE WATERMARK", "Flink's watermarks come from the WATERMARK declaration of a table as its rows arrive; declare one and put the rows in a file")
		}
	case st.Explain != nil && st.Explain.Timeline:
		add(st.Explain.Pos, "EXPLAIN TIMELINE", "Flink's EXPLAIN shows the plan only; use EXPLAIN PLAN FOR in a Flink script")
	case st.Explain != nil && st.Explain.Why:
		add(st.Explain.Pos, "EXPLAIN WHY", "Flink's EXPLAIN shows the plan only; run the query itself in a Flink script")
	case st.Drop != nil && st.Drop.State != nil:
		add(st.Drop.Pos, "DROP STATE", "Flink keeps state in checkpoints and savepoints; start the job without its savepoint, or give the call another uid")
	case st.Show != nil && st.Show.Inspect != "":
		out = append(out, extension{pos: st.Show.Pos, what: "SHOW " + strings.ToUpper(st.Show.Inspect), why: "a statement of ptfsh's shell that Flink's SQL client does not have (Flink's State Processor API reads a savepoint's state)", inspect: true})
	}
	out = append(out, astExtensions(st)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos.Offset < out[j].pos.Offset })
	return out
}

// declaresColumns reports whether a CREATE TABLE declares a column (not
// only a WATERMARK or a PRIMARY KEY).
func declaresColumns(ct *sqlmini.CreateTable) bool {
	for _, el := range ct.Elements {
		if el.Column != nil {
			return true
		}
	}
	return false
}

func optionValue(ct *sqlmini.CreateTable, key string) string {
	for _, o := range ct.Options {
		if string(o.Key) == key {
			return string(o.Value)
		}
	}
	return ""
}

// astExtensions walks the statement's tree for what Flink's parser and
// validator refuse: a reserved word of Flink's as an unquoted name, a
// bare NULL in VALUES (Calcite infers no type for it, whatever the other
// rows or the INSERT's table: checked with Flink 2.3.0) or as a SELECT
// column (CREATE VIEW v AS SELECT NULL AS x, SELECT NULL AS x, a
// subquery's: checked with Flink 2.3.0), WATERMARK steps in VALUES.
func astExtensions(st *sqlmini.Statement) []extension {
	var out []extension
	for _, v := range sqlmini.FlinkReservedNames(st) {
		why := fmt.Sprintf("%s is a reserved word of Flink SQL, which Flink's parser refuses as a name; write it in backquotes, `%s`", strings.ToUpper(string(v.Value)), v.Value)
		if sqlmini.FlinkNiladic(string(v.Value)) {
			why = fmt.Sprintf("%s is a function of Flink SQL called without parentheses, which Flink's parser reads there instead of the name (in a CREATE TABLE it refuses it); write it in backquotes, `%s`", strings.ToUpper(string(v.Value)), v.Value)
		}
		out = append(out, extension{pos: v.Pos, what: fmt.Sprintf("'%s' as a plain name", v.Value), why: why})
	}
	sqlmini.Inspect(st, func(n any) {
		switch v := n.(type) {
		case *sqlmini.TypeExpr:
			if why, ok := flinkLacksType[strings.ToUpper(v.Name)]; ok {
				out = append(out, extension{pos: v.Pos, what: "the type " + strings.ToUpper(v.Name), why: why})
			}
		case *sqlmini.SelectItem:
			if p := bareNull(v.Expr); p != nil {
				out = append(out, extension{pos: p.Pos, what: "an untyped NULL as a SELECT column", why: "Flink's validator infers no type for a bare NULL in a SELECT list, in a view, a subquery or a query (\"Illegal use of 'NULL'\"); write CAST(NULL AS type), which runs in both"})
			}
		case *sqlmini.ValuesRow:
			if v.Watermark != nil {
				out = append(out, extension{pos: v.Pos, what: "a WATERMARK step in VALUES", why: "Flink has no equivalent: its watermarks come from a table's WATERMARK declaration as the rows arrive; put the rows in a file table that declares one"})
			}
			for _, e := range v.Values {
				if p := bareNull(e); p != nil {
					out = append(out, extension{pos: p.Pos, what: "an untyped NULL in VALUES", why: "Flink's validator refuses a bare NULL in any VALUES row, beside typed values in other rows and in INSERT INTO ... VALUES too (\"Illegal use of 'NULL'\"); write CAST(NULL AS type), which runs in both"})
				}
			}
		}
	})
	return out
}

// flinkLacksType are the type names that ptfsh takes and Flink 2.3.0's
// planner refuses (checked with its TableEnvironment: CAST(x AS BOOL),
// CREATE TABLE t (d DESCRIPTOR), CAST(1 AS REAL)), with what to write.
var flinkLacksType = map[string]string{
	"BOOL":       "Flink has no type BOOL (\"Unknown identifier 'BOOL'\"); write BOOLEAN",
	"REAL":       "Flink's planner refuses REAL (\"Type is not supported: REAL\"); write FLOAT",
	"DESCRIPTOR": "Flink has no DESCRIPTOR type for a column or a CAST (\"Unknown identifier 'DESCRIPTOR'\"); a descriptor is a PTF argument, DESCRIPTOR(col), or an ARRAY<STRING> of names in a column",
}

// bareNull returns the NULL literal that e is, nil when it is anything
// else.
func bareNull(e *sqlmini.Expr) *sqlmini.Primary {
	if e == nil || len(e.Right) > 0 || e.Left == nil || len(e.Left.Right) > 0 {
		return nil
	}
	n := e.Left.Left
	if n == nil || n.Pred == nil {
		return nil
	}
	p := n.Pred
	if p.Op != "" || p.In != nil || p.Between != nil || p.Like != nil || p.IsNull || p.NotNull || p.Truth != "" || p.Left == nil || len(p.Left.Right) > 0 {
		return nil
	}
	m := p.Left.Left
	if m == nil || len(m.Right) > 0 || m.Left == nil || m.Left.Minus || m.Left.Primary == nil {
		return nil
	}
	if m.Left.Primary.Null {
		return m.Left.Primary
	}
	if m.Left.Primary.Paren != nil {
		return bareNull(m.Left.Primary.Paren)
	}
	return nil
}

// Extensions returns the ptfsh extensions that the statements run so far
// under the ptfsh dialect used, each once, as "what (file:line:col)", and
// forgets them. The command prints a summary of them for a person at a
// terminal (under warn each is a note as it runs; flink refuses them).
func (s *Session) Extensions() []string {
	if s.extReported == nil {
		s.extReported = map[string]bool{}
	}
	var out []string
	for _, e := range s.extUsed {
		if !s.extReported[e.what] {
			s.extReported[e.what] = true // once a session (the shell asks after each statement)
			out = append(out, fmt.Sprintf("%s (%s)", e.what, e.pos))
		}
	}
	s.extUsed = nil
	return out
}

// ExtensionSummary is the note the command prints after a script that
// used ptfsh's extensions of Flink SQL (Extensions), "" for none.
func ExtensionSummary(used []string) string {
	if len(used) == 0 {
		return ""
	}
	shown := used
	if len(shown) > 3 {
		shown = shown[:3]
	}
	more := ""
	if n := len(used) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("note: used here, ptfsh extensions that Flink SQL lacks: %s%s; --dialect warn explains each and what to write for Flink, --dialect flink refuses them\n",
		strings.Join(shown, ", "), more)
}

// noteFlinkTimers notes, under the warn and flink dialects, a function
// whose code calls clearAllTimers() or clearAll(): Flink 2.3.0 runs them
// differently ([ptf.FlinkClearAllTimers]). It is a note in both dialects,
// not an error: the difference shows only while other keys have unnamed
// timers pending.
func (s *Session) noteFlinkTimers(pos sqlmini.Pos, name, code string) {
	if s.dialect() == DialectPtfsh || !ptf.ClearsAllTimers(code) {
		return
	}
	fmt.Fprintf(s.cfg.Err, "note: %s: function %s calls clearAllTimers() or clearAll(): %s\n", pos, name, ptf.FlinkClearAllTimers)
}

// isFile reports whether path, relative to the session's folder, is a
// file that exists (not a folder).
func (s *Session) isFile(path string) bool {
	fi, err := os.Stat(s.path(path))
	return err == nil && fi.Mode().IsRegular()
}
