package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// INSERT INTO a file table, and EXECUTE STATEMENT SET BEGIN ... END.
//
// A file table is a sink as well as a source: INSERT INTO appends the
// query's rows to its file (csv or json lines), as Flink's INSERT INTO adds
// to a table. The query's columns map to the table's by position, with
// implicit casts (Flink's rule); a NOT NULL column that gets a NULL is an
// error, or the row is dropped with SET 'table.exec.sink.not-null-enforcer'
// = 'DROP'. An updating query needs an op column ('changelog.op-column'),
// where each row's kind is written (+I, -U, +U, -D), so that the file reads
// back as the same changelog; deletes are written with full rows. A table
// with a PRIMARY KEY takes the upsert form of a query keyed by it (no -U),
// others the retract form.
//
// The sink takes part in checkpoints: it records the length of the file
// it has written, and a statement that did not end (killed, or stopped by
// an error) has its file cut back to the last checkpoint when an INSERT
// into the table runs again, so that no row is written twice.

// SetNotNullEnforcer is Flink's option for NULLs in NOT NULL sink columns:
// ERROR (the default) or DROP.
const SetNotNullEnforcer = "table.exec.sink.not-null-enforcer"

const sinkNamespace = "sinks"

// sinkWriteOptions are read options a sink cannot honour when it writes.
var sinkWriteOptions = []string{"csv.field-delimiter", "csv.quote-character", "csv.null-literal",
	"timestamp-format.pattern", "json.timestamp-format.standard"}

// execInsert runs INSERT INTO or a statement set: all INSERTs are planned
// first, with one planner (so that uids are checked across the set, as in
// one Flink job), then run in one execution, one after the other, each
// reading its sources from the start.
func (s *Session) execInsert(ctx context.Context, st *sqlmini.Statement) error {
	inserts := []*sqlmini.Insert{st.Insert}
	if st.StatementSet != nil {
		inserts = st.StatementSet.Inserts
	}
	p := newPlanner(s)
	var nodes []exec.Node
	var sinks []*fileSink
	defer func() {
		for _, sk := range sinks {
			sk.close()
		}
	}()
	written := map[string]bool{}
	for _, ins := range inserts {
		n, sk, err := s.planInsert(p, ins)
		if err != nil {
			return err
		}
		if written[sk.path] {
			return sqlmini.Errorf(ins.Table.Pos, "the statement set writes table '%s' twice; give each INSERT its own table", sk.t.Name)
		}
		written[sk.path] = true
		nodes = append(nodes, n)
		sinks = append(sinks, sk)
	}
	if len(nodes) == 1 {
		return s.run(ctx, st.Pos, nodes[0], sinks[0], nil)
	}
	set := &statementSetNode{ins: nodes}
	return s.run(ctx, st.Pos, set, &setSink{node: set, sinks: sinks}, nil)
}

// planInsert plans one INSERT INTO: the query, with the casts and the
// changelog form the table takes, and the table's file sink.
func (s *Session) planInsert(p *planner, ins *sqlmini.Insert) (exec.Node, *fileSink, error) {
	name := string(ins.Table.Value)
	pos := ins.Table.Pos
	t, ok := s.cat.Table(name)
	if !ok {
		return nil, nil, sqlmini.Errorf(pos, "Object '%s' not found%s", name, s.suggestTable(name))
	}
	what := ""
	switch {
	case t.Kind == catalog.TableView:
		what = "a view"
	case t.Kind == catalog.TableValues:
		what = "a table given AS VALUES"
	case t.Options["connector"] != "filesystem":
		what = "a '" + t.Options["connector"] + "' table"
	}
	if what != "" {
		return nil, nil, sqlmini.Errorf(pos, "INSERT INTO writes file tables ('connector' = 'filesystem'), and '%s' is %s", name, what)
	}
	for _, o := range sinkWriteOptions {
		if _, ok := t.Options[o]; ok {
			return nil, nil, sqlmini.Errorf(pos, "table '%s' cannot be written: its option '%s' is only read (a sink writes the format's defaults)", name, o)
		}
	}
	// A sink that takes deletes by key lets ChangelogFunctions emit them
	// ('sink.supports-delete-by-key', Flink's values-sink option).
	p.required = types.RetractAll
	if byKey, err := boolOption(t, "sink.supports-delete-by-key"); err != nil {
		return nil, nil, sqlmini.Errorf(pos, "%w", err)
	} else if byKey {
		p.required.KeyOnlyDeletes = true
	}
	n, err := p.planQuery(ins.Query)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSinkColumns(t, n.Schema(), pos); err != nil {
		return nil, nil, err
	}
	if n, err = sinkChangelog(t, n, pos); err != nil {
		return nil, nil, err
	}
	path := tablePath(t)
	if reads(n, path) {
		return nil, nil, sqlmini.Errorf(pos, "INSERT INTO '%s' reads the table it writes ('%s'); write to another table", name, t.Options["path"])
	}
	sk := &fileSink{t: t, path: path, pos: pos, query: n.Schema(), store: s.cfg.Store, errOut: s.cfg.Err,
		dropNulls: strings.EqualFold(s.settings[SetNotNullEnforcer], "DROP"), op: -1}
	if opName, ok := t.Options[optOpColumn]; ok {
		sk.op = t.SourceSchema.Index(opName)
	}
	return n, sk, nil
}

// checkSinkColumns checks that the query's columns fit the table's, by
// position, with Flink's message.
func checkSinkColumns(t *catalog.Table, q types.Schema, pos sqlmini.Pos) error {
	sch := t.Schema
	show := func(s types.Schema) string {
		parts := make([]string, s.Len())
		for i, c := range s.Columns {
			parts[i] = c.Name + ": " + c.Type.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	fail := func(cause string) error {
		return sqlmini.Errorf(pos, "Column types of query result and sink for '%s' do not match. Cause: %s Query schema: %s Sink schema: %s",
			t.Name, cause, show(q), show(sch))
	}
	if q.Len() != sch.Len() {
		return fail("Different number of columns.")
	}
	for i, c := range sch.Columns {
		if !expr.CanImplicitCast(q.Columns[i].Type, c.Type.Nullable()) {
			return fail(fmt.Sprintf("Incompatible types for sink column '%s' at position %d.", c.Name, i))
		}
	}
	return nil
}

// sinkChangelog puts an updating query into the form the table takes, or
// says why it cannot take it.
func sinkChangelog(t *catalog.Table, n exec.Node, pos sqlmini.Pos) (exec.Node, error) {
	m := n.Changelog()
	if m.IsInsertOnly() {
		return n, nil
	}
	if _, ok := t.Options[optOpColumn]; !ok {
		return nil, sqlmini.Errorf(pos, "Table sink '%s' doesn't support consuming update changes which is produced by node %s; give the table an op column ('%s') to write them with their row kinds",
			t.Name, updatingNode(n).Explain(), optOpColumn)
	}
	byKey, _ := boolOption(t, "sink.supports-delete-by-key")
	if len(t.PrimaryKey) > 0 {
		traits := ptf.RequireFullDelete
		if byKey {
			traits = 0 // the sink takes deletes that carry only the key
		}
		n = deliverUpdates(n, traits, t.PrimaryKey)
	} else {
		n = deliverUpdates(n, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
	}
	m = n.Changelog()
	if m.KeyOnlyDeletes && !(byKey && len(t.PrimaryKey) > 0) {
		return nil, sqlmini.Errorf(pos, "table '%s' needs full deletes, but the query's deletes carry only the key and it has no upsert key to fill them", t.Name)
	}
	if declared, ok := t.Options[optChangelog]; ok {
		for _, k := range m.Kinds() {
			if !t.Changelog.Contains(k) {
				return nil, sqlmini.Errorf(pos, "table '%s' declares the changelog mode %s ('%s' = '%s'), but the query produces %s", t.Name, t.Changelog, optChangelog, declared, m)
			}
		}
	}
	return n, nil
}

// updatingNode returns the node that first produces updates: the deepest
// updating node whose inputs are insert-only.
func updatingNode(n exec.Node) exec.Node {
	for _, c := range n.Children() {
		if !c.Changelog().IsInsertOnly() {
			return updatingNode(c)
		}
	}
	return n
}

// reads reports whether a plan reads the file at path.
func reads(n exec.Node, path string) bool {
	if f, ok := n.(*fileNode); ok && tablePath(f.t) == path {
		return true
	}
	for _, c := range n.Children() {
		if reads(c, path) {
			return true
		}
	}
	return false
}

// fileSink writes the rows of an INSERT INTO to its table's file. It is a
// CheckpointSink.
type fileSink struct {
	t         *catalog.Table
	path      string
	pos       sqlmini.Pos  // the table's name in the INSERT, where errors point
	query     types.Schema // the query's columns
	op        int          // the op column's place in the file's rows, or -1
	store     state.Store
	errOut    io.Writer
	dropNulls bool

	f         *os.File
	w         *bufio.Writer
	p         format.Printer
	committed int64 // the file's length at the last checkpoint
	ended     bool  // End was called
	done      bool  // and the final checkpoint made the rows durable
	fields    []any
}

// sinkRecord is a file sink's checkpointed length.
type sinkRecord struct {
	Offset int64 `json:"offset"`
}

func (k *fileSink) key() []byte { return []byte(k.t.Name + "\x00" + k.t.Options["path"]) }

// Begin opens the file for appending, first cutting it back to the last
// checkpoint of a statement that did not end, and records its length: a
// statement killed before its first checkpoint is cut back to it too.
func (k *fileSink) Begin(types.Schema) error {
	var rec *sinkRecord
	err := k.store.View(func(tx state.Tx) error {
		b, err := tx.Get(sinkNamespace, k.key())
		if err != nil || b == nil {
			return err
		}
		rec = &sinkRecord{}
		return json.Unmarshal(b, rec)
	})
	if err != nil {
		return fmt.Errorf("table '%s': reading its checkpointed length: %w", k.t.Name, err)
	}
	if k.f, err = os.OpenFile(k.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return k.fail(err)
	}
	st, err := k.f.Stat()
	if err != nil {
		return k.fail(err)
	}
	size := st.Size()
	if rec != nil && size > rec.Offset {
		if err := k.f.Truncate(rec.Offset); err != nil {
			return k.fail(err)
		}
		fmt.Fprintf(k.errOut, "note: table '%s': '%s' cut back to byte %d, where the last checkpoint of an unfinished INSERT left it\n", k.t.Name, k.t.Options["path"], rec.Offset)
		size = rec.Offset
	}
	k.committed = size
	if err := k.store.Update(func(tx state.Tx) error { return k.record(tx) }); err != nil {
		return fmt.Errorf("table '%s': recording its length: %w", k.t.Name, err)
	}
	header, _ := boolOption(k.t, "csv.header")
	file := k.t.Schema
	if k.t.SourceSchema.Len() > 0 {
		file = k.t.SourceSchema
	}
	k.w = bufio.NewWriterSize(k.f, 64<<10)
	if k.t.Options["format"] == "json" {
		k.p = format.NewJSONPrinter(k.w, format.JSONOptions{})
	} else {
		k.p = format.NewCSVPrinter(k.w, format.CSVOptions{OmitHeader: !header || size > 0})
	}
	k.fields = make([]any, file.Len())
	return k.p.Begin(file)
}

func (k *fileSink) fail(err error) error {
	return fmt.Errorf("table '%s': cannot write '%s': %w", k.t.Name, k.t.Options["path"], rootCause(err))
}

// Row writes one row: cast to the table's columns, with its kind in the
// op column.
func (k *fileSink) Row(r types.Row) error { return types.At(k.pos, k.row(r)) }

func (k *fileSink) row(r types.Row) error {
	f := k.fields[:0]
	for i, c := range k.t.Schema.Columns {
		if len(f) == k.op {
			f = append(f, r.Kind.ShortString())
		}
		v, err := expr.CastValue(r.Fields[i], c.Type.Nullable())
		if err != nil {
			return fmt.Errorf("table '%s', column '%s': %w", k.t.Name, c.Name, err)
		}
		if v == nil && c.Type.NotNull && !(r.Kind == types.Delete && k.t.Changelog.KeyOnlyDeletes) {
			if k.dropNulls {
				return nil
			}
			return fmt.Errorf("Column '%s' is NOT NULL, however, a null value is being written into it. You can set job configuration '%s'='DROP' to suppress this exception and drop such records silently.", c.Name, SetNotNullEnforcer)
		}
		f = append(f, v)
	}
	if len(f) == k.op {
		f = append(f, r.Kind.ShortString())
	}
	if err := k.p.Row(types.Row{Kind: types.Insert, Fields: f}); err != nil {
		return k.fail(err)
	}
	return nil
}

// End finishes the file's rows; the final checkpoint makes them durable.
func (k *fileSink) End() error {
	k.ended = true
	if err := k.p.End(); err != nil {
		return k.fail(err)
	}
	return nil
}

// Checkpoint implements CheckpointSink: the rows written so far go to the
// disk and the file's length to the store. After End the record goes: the
// statement ended, and a later INSERT appends to what is there.
func (k *fileSink) Checkpoint(tx state.Tx) error {
	if err := k.w.Flush(); err != nil {
		return k.fail(err)
	}
	if err := k.f.Sync(); err != nil {
		return k.fail(err)
	}
	st, err := k.f.Stat()
	if err != nil {
		return k.fail(err)
	}
	k.committed = st.Size()
	if k.ended {
		k.done = true
		return tx.Delete(sinkNamespace, k.key())
	}
	return k.record(tx)
}

func (k *fileSink) record(tx state.Tx) error {
	b, err := json.Marshal(sinkRecord{Offset: k.committed})
	if err != nil {
		return err
	}
	return tx.Put(sinkNamespace, k.key(), b)
}

// close closes the file. A statement that failed has its rows since the
// last checkpoint taken back out, as its state goes back to that
// checkpoint: running it again writes them once.
func (k *fileSink) close() {
	if k.f == nil {
		return
	}
	if !k.done {
		if st, err := k.f.Stat(); err == nil && st.Size() > k.committed && k.f.Truncate(k.committed) == nil {
			fmt.Fprintf(k.errOut, "note: table '%s': the rows written to '%s' since the last checkpoint were taken out again\n", k.t.Name, k.t.Options["path"])
		}
	}
	k.f.Close()
	k.f = nil
}

// statementSetNode runs the queries of a statement set one after the
// other in one execution; setSink hands each row to its INSERT's sink.
type statementSetNode struct {
	ins    []exec.Node
	active int // the query whose rows are flowing
}

func (n *statementSetNode) Schema() types.Schema           { return types.Schema{} }
func (n *statementSetNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *statementSetNode) Children() []exec.Node          { return n.ins }
func (n *statementSetNode) Explain() string                { return "StatementSet()" }

func (n *statementSetNode) Open(ex *exec.Execution) (exec.Stream, error) {
	s := &setStream{n: n}
	for _, in := range n.ins {
		st, err := in.Open(ex)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.ins = append(s.ins, st)
	}
	return s, nil
}

type setStream struct {
	n   *statementSetNode
	ins []exec.Stream
}

func (s *setStream) Next() (exec.Event, error) {
	for s.n.active < len(s.ins) {
		ev, err := s.ins[s.n.active].Next()
		if err != nil || ev.Kind != exec.EvEnd {
			return ev, err
		}
		s.n.active++
	}
	return exec.Event{Kind: exec.EvEnd}, nil
}

func (s *setStream) Close() error {
	var first error
	for _, in := range s.ins {
		if err := in.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// setSink is the sinks of a statement set.
type setSink struct {
	node  *statementSetNode
	sinks []*fileSink
}

func (s *setSink) Begin(types.Schema) error {
	for _, k := range s.sinks {
		if err := k.Begin(types.Schema{}); err != nil {
			return err
		}
	}
	return nil
}

func (s *setSink) Row(r types.Row) error { return s.sinks[s.node.active].Row(r) }

func (s *setSink) End() error {
	for _, k := range s.sinks {
		if err := k.End(); err != nil {
			return err
		}
	}
	return nil
}

func (s *setSink) Checkpoint(tx state.Tx) error {
	for _, k := range s.sinks {
		if err := k.Checkpoint(tx); err != nil {
			return err
		}
	}
	return nil
}
