package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// createTable registers CREATE TABLE ... WITH ('connector' = ...).
func (s *Session) createTable(c *sqlmini.Create, ct *sqlmini.CreateTable) error {
	name := string(ct.Name.Value)
	if err := s.checkNewTable(c, ct.Name, false); err != nil {
		return err
	}
	if ct.Like != nil {
		// The table is the merged declaration, which SHOW CREATE TABLE
		// prints and a later LIKE starts from (like.go).
		merged, err := s.mergeLike(ct)
		if err != nil {
			return err
		}
		mc := *c
		mc.Table, ct = merged, merged
		c = &mc
	}
	t := &catalog.Table{Name: name, Kind: catalog.TableConnector, Options: map[string]string{}, Temporary: c.Temporary, BaseDir: s.baseDir, Pos: ct.Pos, Create: c}
	var cols []types.Column
	var pk []*sqlmini.Name
	var wm *sqlmini.Watermark
	for _, el := range ct.Elements {
		switch {
		case el.Column != nil:
			cn := string(el.Column.Name.Value)
			for _, prev := range cols {
				if prev.Name == cn {
					return sqlmini.Errorf(el.Pos, "column '%s' is declared twice", cn)
				}
			}
			if el.Column.Computed != nil { // typed below, from the physical columns
				t.Computed = append(t.Computed, catalog.ComputedColumn{Name: cn, Index: len(cols), Expr: el.Column.Computed})
				cols = append(cols, types.Column{Name: cn})
				continue
			}
			typ, err := ptf.TypeFromAST(el.Column.Type)
			if err != nil {
				return err
			}
			if m := el.Column.Metadata; m != nil {
				if t.Metadata == nil {
					t.Metadata = map[int]catalog.MetadataColumn{}
				}
				key := cn
				if m.From != nil {
					key = string(*m.From)
				}
				t.Metadata[len(cols)] = catalog.MetadataColumn{Key: key, Virtual: m.Virtual}
			}
			cols = append(cols, types.Column{Name: cn, Type: typ})
			if el.Column.PrimaryKey {
				pk = append(pk, el.Column.Name)
			}
		case el.PrimaryKey != nil:
			if len(pk) > 0 {
				return sqlmini.Errorf(el.Pos, "a table has at most one PRIMARY KEY")
			}
			pk = el.PrimaryKey.Columns
		case el.Watermark != nil:
			if wm != nil {
				return sqlmini.Errorf(el.Pos, "a table has at most one WATERMARK declaration")
			}
			wm = el.Watermark
		}
	}
	for _, o := range ct.Options {
		t.Options[string(o.Key)] = string(o.Value)
	}
	if t.Metadata != nil && (ct.Query != nil || c.Stream != nil) {
		return sqlmini.Errorf(ct.Pos, "table '%s' declares METADATA columns, which only a connector's table has (kafka, upsert-kafka)", name)
	}
	if p := t.Options["path"]; p != "" && s.cfg.FunctionDir != "" && !filepath.IsAbs(p) {
		// ptfsh test: a data file that is not a section of the test is
		// looked for beside the test file, as a function file is (a
		// lesson's exercise reads examples/data). A file to be written
		// (not there yet) stays in the test's folder.
		if _, err := os.Stat(filepath.Join(s.baseDir, p)); err != nil {
			if _, err := os.Stat(filepath.Join(s.cfg.FunctionDir, p)); err == nil {
				t.BaseDir = s.cfg.FunctionDir
			}
		}
	}
	note := "" // of columns inferred
	if len(cols) == 0 {
		// No columns (a PRIMARY KEY or a WATERMARK may be declared): a
		// file table's are inferred from its file (connector/infer.go).
		if ct.Query != nil || c.Stream != nil {
			return sqlmini.Errorf(ct.Name.Pos, "table '%s' declares no columns: a table given AS VALUES or a stream needs them, CREATE TABLE %s (col TYPE, ...) ...; only a file table's columns are inferred, from its file", name, sqlmini.QuoteIdent(name))
		}
		var err error
		if note, err = connector.InferColumns(t, ct); err != nil {
			return err
		}
		cols = t.Schema.Columns
	}
	t.Schema = types.Schema{Columns: cols}
	if err := s.typeComputed(t, ct); err != nil {
		return err
	}
	for _, k := range pk {
		i := t.Schema.Index(string(k.Value))
		if i < 0 {
			return sqlmini.Errorf(k.Pos, "PRIMARY KEY column '%s' is not a column of %s: %s", k.Value, name, t.Schema.ColumnList())
		}
		for _, c := range t.Computed {
			if c.Index == i {
				return sqlmini.Errorf(k.Pos, "PRIMARY KEY column '%s' is a computed column: a primary key is declared on physical columns, as in Flink", k.Value)
			}
		}
		t.PrimaryKey = append(t.PrimaryKey, i)
		t.Schema.Columns[i].Type.NotNull = true
	}
	if wm != nil {
		spec, err := watermarkSpec(wm, t.Schema)
		if err != nil {
			return err
		}
		t.Watermark = spec
		t.Schema.Columns[spec.Column].TimeAttr = true
	}
	if err := connector.PrepareChangelog(t, ct); err != nil { // changelog_source.go
		return err
	}
	if ct.Query != nil {
		if err := s.tableValues(t, ct); err != nil {
			return err
		}
	} else if c.Stream != nil { // CREATE STREAM: events come step by step (stream.go)
		t.Kind, t.Stream, t.Clock = catalog.TableValues, true, s.streamClock()
	} else if err := checkTableOptions(t.ScanTable(), ct); err != nil {
		return err
	}
	if err := connector.FinishChangelog(t, ct); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(s.cfg.Err, note)
	}
	s.cat.AddTable(t)
	return nil
}

// typeComputed gives each computed column of t its type: the type of its
// expression over the physical columns, or TIMESTAMP_LTZ(3) NOT NULL and a
// processing-time attribute for PROCTIME(), as in Flink.
func (s *Session) typeComputed(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if len(t.Computed) == 0 {
		return nil
	}
	if ct.Query != nil {
		return sqlmini.Errorf(ct.Pos, "table '%s' declares computed columns (name AS expression), which a table given AS VALUES cannot have: give the values of every column", t.Name)
	}
	phys := t.ScanTable().Schema
	for _, c := range t.Computed {
		col := &t.Schema.Columns[c.Index]
		if catalog.IsProcTime(c.Expr) {
			col.Type, col.ProcTime = types.TypeTimestampLTZ, true
			col.Type.NotNull = true
			continue
		}
		x, err := expr.Compile(c.Expr, &expr.Scope{Schema: phys, Now: func() int64 { return 0 }})
		if err != nil {
			return err // positioned in the expression
		}
		col.Type = x.Type()
	}
	return nil
}

// watermarkSpec reads WATERMARK FOR col AS col [- INTERVAL ...].
func watermarkSpec(w *sqlmini.Watermark, s types.Schema) (*exec.WatermarkSpec, error) {
	col := string(w.Column.Value)
	i := s.Index(col)
	if i < 0 {
		return nil, sqlmini.Errorf(w.Column.Pos, "WATERMARK FOR names '%s', which is not a column: %s", col, s.ColumnList())
	}
	if !s.Columns[i].Type.IsTime() {
		return nil, sqlmini.Errorf(w.Column.Pos, "WATERMARK FOR needs a TIMESTAMP or TIMESTAMP_LTZ column, but '%s' is %s", col, s.Columns[i].Type)
	}
	bad := sqlmini.Errorf(w.Expr.Pos, "a watermark must be `%s` or `%s - INTERVAL 'n' UNIT` (bounded out-of-orderness)", col, col)
	x, err := expr.Compile(w.Expr, &expr.Scope{Schema: s})
	if err != nil {
		return nil, err
	}
	// DESCRIBE shows the expression as Flink does: `ts` - INTERVAL '1' SECOND.
	spec := &exec.WatermarkSpec{Column: i, Expr: "`" + col + "`" + strings.TrimPrefix(plan.ExprText(w.Expr), sqlmini.QuoteIdent(col))}
	switch e := x.(type) {
	case *expr.Column:
		if e.Index != i {
			return nil, bad
		}
		return spec, nil
	}
	// col - INTERVAL: check the shape on the AST, then take the delay.
	add := w.Expr.Left.Left.Pred.Left
	if w.Expr.Right != nil || len(w.Expr.Left.Right) > 0 || w.Expr.Left.Left.Pred.Op != "" ||
		len(add.Right) != 1 || add.Right[0].Op != "-" || len(add.Left.Right) > 0 ||
		add.Left.Left.Primary.Column == nil || expr.JoinNames(add.Left.Left.Primary.Column.Parts) != col {
		return nil, bad
	}
	d, err := expr.CompileMultiplicative(add.Right[0].Right, nil)
	if err != nil {
		return nil, bad
	}
	v, _ := d.Eval(nil)
	dur, ok := v.(types.Duration)
	if !ok || !d.IsConstant() {
		return nil, bad
	}
	spec.Delay = dur
	return spec, nil
}

func checkTableOptions(t *catalog.Table, ct *sqlmini.CreateTable) error {
	name, ok := t.Options["connector"]
	if !ok {
		return sqlmini.Errorf(ct.Pos, "table '%s' needs a connector: WITH ('connector' = 'filesystem', 'path' = '...', 'format' = 'csv')", t.Name)
	}
	c, ok := connector.Lookup(name)
	if !ok || name == "values" {
		if instead, ok := connectorsInstead[name]; ok {
			return sqlmini.Errorf(ct.Pos, "unsupported connector '%s': %s", name, instead)
		}
		return sqlmini.Errorf(ct.Pos, "unsupported connector '%s'; available: %s", name, strings.Join(connector.Names(), ", "))
	}
	if err := connector.CheckMetadata(c, t, ct); err != nil {
		return err
	}
	return c.Validate(t, ct)
}

// connectorsInstead says, for Flink connectors ptfsh does not have, what
// it offers in their place.
var connectorsInstead = map[string]string{
	"postgres-cdc": "ptfsh reads no database's log (Flink CDC); read a Debezium changelog with 'format' = 'debezium-json' from a file ('connector' = 'filesystem') or a Kafka topic ('connector' = 'kafka')",
	"mysql-cdc":    "ptfsh reads no database's log (Flink CDC); read a Debezium changelog with 'format' = 'debezium-json' from a file ('connector' = 'filesystem') or a Kafka topic ('connector' = 'kafka')",
	"jdbc":         "ptfsh reaches no database; give the table's rows as a file ('connector' = 'filesystem') or AS VALUES, which a lookup or temporal join reads as a dimension table",
}

// tableValues reads the rows of CREATE TABLE t (...) AS VALUES ...: typed
// by the declared columns, with the table's WATERMARK declaration.
func (s *Session) tableValues(t *catalog.Table, ct *sqlmini.CreateTable) error {
	q := ct.Query
	if len(q.With) > 0 || len(q.Ops) > 0 || q.Body.Values == nil {
		return sqlmini.Errorf(q.Pos, "CREATE TABLE %s AS takes a VALUES list; for a query use CREATE VIEW", t.Name)
	}
	values, _ := connector.Lookup("values")
	if err := values.Validate(t, ct); err != nil {
		return err
	}
	exprs, width, err := plan.CompileValues(q.Body.Values)
	if err != nil {
		return err
	}
	if width != t.Schema.Len() {
		return sqlmini.Errorf(q.Pos, "table %s has %d columns %s, but its VALUES rows have %d values", t.Name, t.Schema.Len(), t.Schema.ColumnList(), width)
	}
	events, err := plan.ValuesEvents(q.Body.Values, exprs, t.Schema)
	if err != nil {
		return err
	}
	t.Kind, t.Events = catalog.TableValues, events
	return nil
}
