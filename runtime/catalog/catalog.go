package catalog

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/internal/spell"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// TableKind tells how a catalog table produces its rows.
type TableKind uint8

// Table kinds.
const (
	TableView      TableKind = iota // a stored query
	TableConnector                  // CREATE TABLE ... WITH ('connector' = ...): filesystem or datagen
	TableValues                     // CREATE TABLE t (...) AS VALUES ...
)

// Table is a table or view in the catalog.
type Table struct {
	Name string
	Kind TableKind
	// Schema is the table's columns (for a view, as its query derives them).
	Schema types.Schema
	// Query is a view's query and ColumnNames its declared column names.
	Query       *sqlmini.Query
	ColumnNames []string
	// Inferred marks a file table declared without columns, whose Schema
	// was inferred from its file (a ptfsh extension): SHOW CREATE TABLE
	// prints the columns from Schema.
	Inferred bool
	// FlinkReaders marks the copy of a file table that a query reads under
	// SET 'ptfsh.dialect' = 'flink' (connector.Env.Flink): its readers
	// refuse what Flink's refuse.
	FlinkReaders bool
	// Options are the WITH options of a file table.
	Options map[string]string
	// PrimaryKey lists the primary key columns' indexes. A table with a
	// primary key and updates is an upsert source (its upsert key).
	PrimaryKey []int
	// Changelog is the changelog mode a file table declares
	// ('changelog-mode', 'source.produces-delete-by-key'); the zero value
	// means insert-only.
	Changelog types.ChangelogMode
	// SourceSchema is the columns a changelog source reads, its op column
	// included ('changelog.op-column'); empty when they are Schema's.
	// relaxed are the columns that a delete by key leaves NULL although
	// they are NOT NULL (see changelog_source.go).
	SourceSchema types.Schema
	Relaxed      []int
	// Events are the rows (and watermark steps) of a table given AS VALUES,
	// or of a stream so far. In a stream an EvIdle event is a step of its
	// processing time (ADVANCE PROCESSING TIME): Wm is the time, in epoch
	// milliseconds, that the stream's clock moves to.
	Events []exec.Event
	// Stream marks CREATE STREAM: a table of Kind TableValues whose events
	// INSERT INTO and ADVANCE WATERMARK | PROCESSING TIME add, step by
	// step.
	Stream bool
	// Clock is a stream's processing time, in epoch milliseconds, before
	// its first processing-time step: the session's clock when the stream
	// was created. A stream's clock stands still between its steps.
	Clock int64
	// Watermark is the WATERMARK clause, if any.
	Watermark *exec.WatermarkSpec
	// Computed are the computed columns (name AS expression), in the order
	// declared; Schema holds them too, at their Index. A connector reads
	// the other columns, the physical ones.
	Computed []ComputedColumn
	// Temporary marks CREATE TEMPORARY.
	Temporary bool
	// BaseDir resolves relative paths of a file table.
	BaseDir string
	// Pos is where the table was declared.
	Pos sqlmini.Pos
	// Create is the statement that created the table or view (SHOW CREATE).
	Create *sqlmini.Create
	// Metadata are the table's metadata columns (METADATA [FROM 'key']
	// [VIRTUAL]) by column index; nil when it has none.
	Metadata map[int]MetadataColumn
}

// MetadataColumn is a column read from (and, unless Virtual, written to)
// a record's metadata rather than its data: a Kafka record's partition,
// offset, timestamp, headers or topic.
type MetadataColumn struct {
	// Key is the metadata key (FROM 'key', else the column's name).
	Key string
	// Virtual columns are read only: a sink leaves them out.
	Virtual bool
}

// Physical reports whether column i is a physical column (not metadata).
func (t *Table) Physical(i int) bool {
	_, ok := t.Metadata[i]
	return !ok
}

// ComputedColumn is a column whose value an expression computes from the
// physical columns of its row: name AS expr in CREATE TABLE.
type ComputedColumn struct {
	Name string
	// Index is the column's place in the table's Schema.
	Index int
	Expr  *sqlmini.Expr
}

// IsProcTime reports whether a computed column's expression is PROCTIME(),
// which makes the column a processing-time attribute.
func IsProcTime(e *sqlmini.Expr) bool {
	return strings.EqualFold(strings.ReplaceAll(e.String(), " ", ""), "PROCTIME()")
}

// ScanTable is the table as its connector reads it: without its computed
// columns, which the planner computes from the rest. A table without
// computed columns is itself; otherwise a copy whose Schema, PrimaryKey,
// Metadata and Watermark count the remaining columns (a WATERMARK on a
// computed column is left out: the planner applies it after computing).
// Computed stays, so that a connector can tell a computed column's name
// from a misspelt one in its options.
func (t *Table) ScanTable() *Table {
	if len(t.Computed) == 0 {
		return t
	}
	computed := map[int]bool{}
	for _, c := range t.Computed {
		computed[c.Index] = true
	}
	at := make([]int, t.Schema.Len()) // full index -> scan index, -1 computed
	cp := *t
	cp.Schema = types.Schema{}
	for i, c := range t.Schema.Columns {
		at[i] = -1
		if !computed[i] {
			at[i] = cp.Schema.Len()
			cp.Schema.Columns = append(cp.Schema.Columns, c)
		}
	}
	cp.PrimaryKey = nil
	for _, k := range t.PrimaryKey {
		cp.PrimaryKey = append(cp.PrimaryKey, at[k])
	}
	if t.Metadata != nil {
		cp.Metadata = map[int]MetadataColumn{}
		for i, m := range t.Metadata {
			cp.Metadata[at[i]] = m
		}
	}
	if w := t.Watermark; w != nil {
		cp.Watermark = nil
		if at[w.Column] >= 0 {
			ww := *w
			ww.Column = at[w.Column]
			cp.Watermark = &ww
		}
	}
	return &cp
}

// Function is a function in the catalog.
type Function struct {
	Def *ptf.FuncDef
	// Path is the function file as the CREATE FUNCTION statement wrote it.
	Path      string
	Temporary bool
	// BuiltIn marks functions of the standard library.
	BuiltIn bool
	// Files are the files the function was loaded from, as they were then:
	// its file first, then the files of its folder that it imports. The
	// session reloads the function when one of them changes. Empty for
	// inline and built-in functions.
	Files []FileStamp
	// Create is the statement that created the function (SHOW CREATE).
	Create *sqlmini.Create
}

// FileStamp is a file as it was when it was read: its modification time
// and size, or Missing.
type FileStamp struct {
	Path    string // absolute
	ModTime time.Time
	Size    int64
	Missing bool
}

// Catalog holds the tables and functions of a session. Function names are
// looked up case-insensitively, as in Flink; table names case-sensitively.
//
// Temporary functions live apart and shadow catalog functions of the same
// name, as in Flink.
type Catalog struct {
	tables    map[string]*Table
	functions map[string]*Function
	temps     map[string]*Function
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{tables: map[string]*Table{}, functions: map[string]*Function{}, temps: map[string]*Function{}}
}

// RegisterBuiltIn adds a built-in function (the standard library's).
func (c *Catalog) RegisterBuiltIn(def *ptf.FuncDef) {
	c.functions[strings.ToLower(def.Name)] = &Function{Def: def, BuiltIn: true}
}

// Function returns the function named name: a temporary one first.
func (c *Catalog) Function(name string) (*Function, bool) {
	if f, ok := c.temps[strings.ToLower(name)]; ok {
		return f, ok
	}
	f, ok := c.functions[strings.ToLower(name)]
	return f, ok
}

// CatalogFunction returns the non-temporary function named name.
func (c *Catalog) CatalogFunction(name string) (*Function, bool) {
	f, ok := c.functions[strings.ToLower(name)]
	return f, ok
}

// TemporaryFunction returns the temporary function named name.
func (c *Catalog) TemporaryFunction(name string) (*Function, bool) {
	f, ok := c.temps[strings.ToLower(name)]
	return f, ok
}

// Table returns the table or view named name.
func (c *Catalog) Table(name string) (*Table, bool) {
	t, ok := c.tables[name]
	return t, ok
}

func (c *Catalog) AddTable(t *Table) { c.tables[t.Name] = t }

func (c *Catalog) AddFunction(f *Function) {
	if f.Temporary {
		c.temps[strings.ToLower(f.Def.Name)] = f
		return
	}
	c.functions[strings.ToLower(f.Def.Name)] = f
}

func (c *Catalog) DropFunction(name string, temporary bool) {
	if temporary {
		delete(c.temps, strings.ToLower(name))
		return
	}
	delete(c.functions, strings.ToLower(name))
}

func (c *Catalog) DropTable(name string) { delete(c.tables, name) }

// TableNames lists tables and views, sorted.
func (c *Catalog) TableNames() []string {
	var n []string
	for k := range c.tables {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Functions lists the user functions, temporary ones first, each group
// sorted by name.
func (c *Catalog) Functions() []*Function {
	var out []*Function
	for _, m := range []map[string]*Function{c.temps, c.functions} {
		start := len(out)
		for _, f := range m {
			if !f.BuiltIn {
				out = append(out, f)
			}
		}
		group := out[start:]
		sort.Slice(group, func(i, j int) bool { return strings.ToLower(group[i].Def.Name) < strings.ToLower(group[j].Def.Name) })
	}
	return out
}

// FunctionNames lists function names, sorted; user functions only when user is set.
func (c *Catalog) FunctionNames(user bool) []string {
	var n []string
	seen := map[string]bool{}
	for _, m := range []map[string]*Function{c.temps, c.functions} {
		for k, f := range m {
			if (user && f.BuiltIn) || seen[k] {
				continue
			}
			seen[k] = true
			n = append(n, f.Def.Name)
		}
	}
	sort.Slice(n, func(i, j int) bool { return strings.ToLower(n[i]) < strings.ToLower(n[j]) })
	return n
}

// SuggestTable proposes a table name close to a misspelled one: " (did you
// mean 'x'?)", or "".
func (c *Catalog) SuggestTable(name string) string {
	return suggest(name, c.TableNames())
}

// SuggestFunction proposes a function name close to a misspelled one.
func (c *Catalog) SuggestFunction(name string) string {
	return suggest(name, c.FunctionNames(false))
}

// SuggestAny proposes a table or function name close to a misspelled one.
func (c *Catalog) SuggestAny(name string) string {
	return suggest(name, append(c.TableNames(), c.FunctionNames(false)...))
}

func suggest(name string, candidates []string) string {
	best := spell.Closest(name, candidates, 3)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean '%s'?)", best)
}
