package session

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// INSERT INTO a file table, and EXECUTE STATEMENT SET BEGIN ... END.
//
// A file table is a sink as well as a source: INSERT INTO appends the
// query's rows to its file (csv or json lines), as Flink's INSERT INTO adds
// to a table; a parquet file is rewritten whole, with its rows and then
// the query's, at the end of the statement (connector/parquet.go). The query's columns map to the table's by position, with
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

// sinkWriteOptions are read options a sink cannot honour when it writes.
var sinkWriteOptions = []string{"csv.field-delimiter", "csv.quote-character", "csv.null-literal",
	"timestamp-format.pattern", "json.timestamp-format.standard"}

// execInsert runs INSERT INTO or a statement set: all INSERTs are planned
// first, with one planner (so that uids are checked across the set, as in
// one Flink job), then run in one execution, one after the other, each
// reading its sources from the start.
func (s *Session) execInsert(ctx context.Context, stmt *statement) error {
	st := stmt.Statement
	if st.Insert != nil {
		if t, ok := s.cat.Table(string(st.Insert.Table.Value)); ok && t.Stream {
			return s.insertStream(ctx, stmt, t) // stream.go
		}
	}
	inserts := []*sqlmini.Insert{st.Insert}
	if st.StatementSet != nil {
		inserts = st.StatementSet.Inserts
	}
	p := plan.New(s.cat, s.sourceEnv())
	var nodes []exec.Node
	var sinks []tableSink
	defer func() {
		for _, sk := range sinks {
			sk.Close()
		}
	}()
	for _, ins := range inserts {
		var n exec.Node
		var sk tableSink
		var err error
		if isKafka(s.cat, ins) {
			n, sk, err = s.planKafkaInsert(ctx, p, ins) // kafka_sink.go
		} else if t, ok := s.cat.Table(string(ins.Table.Value)); ok && connector.IsPrintOrBlackhole(t) {
			n, sk, err = s.planPrintInsert(p, ins, t)
		} else {
			n, sk, err = s.planInsert(p, ins)
		}
		if err != nil {
			return err
		}
		for _, other := range sinks {
			switch {
			case other.Table() == sk.Table():
				return sqlmini.Errorf(ins.Table.Pos, "the statement set writes table '%s' twice; give each INSERT its own table", sk.Table().Name)
			case sameFileSinks(other, sk):
				return sqlmini.Errorf(ins.Table.Pos, "the statement set writes one file twice: '%s' of table '%s' is '%s' of table '%s' (%s); give each INSERT its own file",
					sk.Table().Options["path"], sk.Table().Name, other.Table().Options["path"], other.Table().Name, howSame(other.Table(), sk.Table()))
			case sinkTarget(other) == sinkTarget(sk):
				return sqlmini.Errorf(ins.Table.Pos, "the statement set writes table '%s' twice; give each INSERT its own table", sk.Table().Name)
			}
		}
		nodes = append(nodes, n)
		sinks = append(sinks, sk)
	}
	var err error
	if len(nodes) == 1 {
		err = s.run(ctx, stmt, st.Pos, nodes[0], sinks[0], nil)
	} else {
		set := &statementSetNode{ins: nodes, share: fileSinksOnly(sinks)}
		err = s.run(ctx, stmt, st.Pos, set, &setSink{node: set, sinks: sinks}, nil)
	}
	if err != nil {
		return err
	}
	for _, sk := range sinks {
		fmt.Fprintln(s.cfg.Err, insertReport(sk))
	}
	return nil
}

// clientStatementSet runs the Flink SQL client's statement set: BEGIN
// STATEMENT SET opens it, each INSERT after it is added, and END runs them
// all as EXECUTE STATEMENT SET BEGIN ... END does; the notes are the
// client's. It reports whether st was one of these statements.
func (s *Session) clientStatementSet(ctx context.Context, stmt *statement) (bool, error) {
	st := stmt.Statement
	switch {
	case st.BeginSet != nil:
		if s.openSet != nil {
			return true, sqlmini.Errorf(st.Pos, "a statement set is open already (BEGIN STATEMENT SET); END runs it")
		}
		s.openSet = &sqlmini.StatementSet{Pos: st.Pos}
		fmt.Fprintln(s.cfg.Err, "[INFO] Begin a statement set.")
		return true, nil
	case st.EndSet != nil:
		set := s.openSet
		if set == nil {
			return true, sqlmini.Errorf(st.Pos, "No Statement Set to submit. 'END' statement should be used after 'BEGIN STATEMENT SET'.")
		}
		s.openSet = nil
		if len(set.Inserts) == 0 {
			fmt.Fprintln(s.cfg.Err, "[INFO] No statement in the statement set, skip submit.")
			return true, nil
		}
		run := *stmt
		run.Statement = &sqlmini.Statement{Pos: set.Pos, StatementSet: set, Text: st.Text}
		return true, s.jobs.run(ctx, &run, func() error { return s.execInsert(ctx, &run) })
	case s.openSet == nil:
		return false, nil
	case st.Insert != nil:
		s.openSet.Inserts = append(s.openSet.Inserts, st.Insert)
		fmt.Fprintln(s.cfg.Err, "[INFO] Add SQL update statement to the statement set.")
		return true, nil
	}
	return true, sqlmini.Errorf(st.Pos, "Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' statement to submit Statement Set.")
}

// insertReport is the line an INSERT prints when it has run, in the
// words of the Flink SQL client's (table.dml-sync) with what it wrote:
// "[INFO] Complete execution of the SQL update statement: 3 rows written
// to table 'clicks_out' ('out/clicks.csv')."
func insertReport(sk tableSink) string {
	if ps, ok := sk.(*connector.PrintSink); ok {
		return fmt.Sprintf("%s: %s written to table '%s' ('%s').", strings.TrimSuffix(infoInserted, "."), plural(ps.Rows(), "row"), ps.Table().Name, ps.Table().Options["connector"])
	}
	if ks, ok := sk.(*connector.KafkaSink); ok {
		return fmt.Sprintf("%s: %s written to table '%s' (topic '%s').", strings.TrimSuffix(infoInserted, "."), plural(ks.Rows(), "record"), ks.Table().Name, ks.Topic())
	}
	fs := sk.(*connector.FileSink)
	rest := "."
	if fs.Overwrite() {
		rest = ", replacing its rows."
	}
	return fmt.Sprintf("%s: %s written to table '%s' ('%s')%s", strings.TrimSuffix(infoInserted, "."), plural(fs.Rows(), "row"), fs.Table().Name, fs.Table().Options["path"], rest)
}

// tableSink is the sink of one INSERT: a file sink or a Kafka sink.
type tableSink interface {
	CheckpointSink
	Table() *catalog.Table
	NoCheckpoints() string
	Close()
}

// sinkTarget names what a sink writes, so that a statement set writes
// each once.
func sinkTarget(sk tableSink) string {
	if ps, ok := sk.(*connector.PrintSink); ok {
		return "print\x00" + ps.Table().Name
	}
	if ks, ok := sk.(*connector.KafkaSink); ok {
		return "kafka\x00" + ks.Table().Options["properties.bootstrap.servers"] + "\x00" + ks.Topic()
	}
	return sk.(*connector.FileSink).Path()
}

// sameFileSinks reports whether two sinks write one file (by identity:
// through a link, or a hard link).
func sameFileSinks(a, b tableSink) bool {
	fa, okA := a.(*connector.FileSink)
	fb, okB := b.(*connector.FileSink)
	return okA && okB && connector.SameFile(fa.Path(), fb.Path())
}

// planInsert plans one INSERT INTO: the query, with the casts and the
// changelog form the table takes, and the table's file sink.
func (s *Session) planInsert(p *plan.Planner, ins *sqlmini.Insert) (exec.Node, tableSink, error) {
	name := string(ins.Table.Value)
	pos := ins.Table.Pos
	t, ok := s.cat.Table(name)
	if !ok {
		return nil, nil, sqlmini.Errorf(pos, "Object '%s' not found%s", name, s.cat.SuggestTable(name))
	}
	what := ""
	switch {
	case t.Stream:
		what = "a stream (INSERT INTO a stream stands alone, outside a statement set)"
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
	if err := connector.CheckWritable(t); err != nil {
		return nil, nil, sqlmini.Errorf(pos, "%w", err)
	}
	// A sink that takes deletes by key lets ChangelogFunctions emit them
	// ('sink.supports-delete-by-key', Flink's values-sink option).
	p.Required = types.RetractAll
	if byKey, err := connector.BoolOption(t, "sink.supports-delete-by-key"); err != nil {
		return nil, nil, sqlmini.Errorf(pos, "%w", err)
	} else if byKey {
		p.Required.KeyOnlyDeletes = true
	}
	n, err := p.Statement(ins.Query)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSinkColumns(t, n.Schema(), pos); err != nil {
		return nil, nil, err
	}
	if n, err = sinkChangelog(t, n, pos); err != nil {
		return nil, nil, err
	}
	if src := connector.FileReader(n, connector.TablePath(t)); src == t {
		return nil, nil, sqlmini.Errorf(pos, "INSERT INTO '%s' reads the table it writes ('%s'); write to another table", name, t.Options["path"])
	} else if src != nil {
		return nil, nil, sqlmini.Errorf(pos, "INSERT INTO '%s' writes '%s', which table '%s' reads ('%s': %s), so the INSERT would read the rows it writes; write to another file",
			name, t.Options["path"], src.Name, src.Options["path"], howSame(src, t))
	}
	sk := connector.NewFileSink(t, pos, n.Schema(), s.cfg.Store, s.cfg.Err, strings.EqualFold(s.settings[connector.SetNotNullEnforcer], "DROP"))
	if ins.Overwrite {
		sk.SetOverwrite()
	}
	return n, sk, nil
}

// planPrintInsert plans one INSERT INTO a print or blackhole table, which
// takes any changelog as it comes.
func (s *Session) planPrintInsert(p *plan.Planner, ins *sqlmini.Insert, t *catalog.Table) (exec.Node, tableSink, error) {
	pos := ins.Table.Pos
	if ins.Overwrite {
		return nil, nil, sqlmini.Errorf(pos, "INSERT OVERWRITE is not supported by a '%s' table ('%s'); use INSERT INTO", t.Options["connector"], t.Name)
	}
	p.Required = types.RetractAll
	n, err := p.Statement(ins.Query)
	if err != nil {
		return nil, nil, err
	}
	if err := checkSinkColumns(t, n.Schema(), pos); err != nil {
		return nil, nil, err
	}
	sk := connector.NewPrintSink(t, s.cfg.Out, s.cfg.Err)
	sk.SetEscapeControls(s.cfg.Terminal)
	return n, sk, nil
}

// howSame says how two tables with different paths reach one file (or a
// folder that holds it).
func howSame(a, b *catalog.Table) string {
	if fi, err := os.Stat(connector.TablePath(a)); err == nil && fi.IsDir() {
		return "a folder that holds it"
	}
	switch {
	case a.Options["path"] == b.Options["path"]:
		return "the same path"
	case connector.TablePath(a) == connector.TablePath(b):
		return "the same file"
	}
	return "the same file, through a symbolic link or a hard link"
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
	if connector.IsParquet(t) {
		return nil, sqlmini.Errorf(pos, "Table sink '%s' doesn't support consuming update changes which is produced by node %s; a parquet table holds insert-only rows: write the changelog to a csv or json table with an op column ('%s')",
			t.Name, plan.UpdatingNode(n).Explain(), connector.OptOpColumn)
	}
	if _, ok := t.Options[connector.OptOpColumn]; !ok {
		return nil, sqlmini.Errorf(pos, "Table sink '%s' doesn't support consuming update changes which is produced by node %s; give the table an op column ('%s') to write them with their row kinds",
			t.Name, plan.UpdatingNode(n).Explain(), connector.OptOpColumn)
	}
	byKey, _ := connector.BoolOption(t, "sink.supports-delete-by-key")
	if len(t.PrimaryKey) > 0 {
		traits := ptf.RequireFullDelete
		if byKey {
			traits = 0 // the sink takes deletes that carry only the key
		}
		n = plan.DeliverUpdates(n, traits, t.PrimaryKey)
	} else {
		n = plan.DeliverUpdates(n, ptf.RequireUpdateBefore|ptf.RequireFullDelete, nil)
	}
	m = n.Changelog()
	if m.KeyOnlyDeletes && !(byKey && len(t.PrimaryKey) > 0) {
		return nil, sqlmini.Errorf(pos, "table '%s' needs full deletes, but the query's deletes carry only the key and it has no upsert key to fill them", t.Name)
	}
	if declared, ok := t.Options[connector.OptChangelog]; ok {
		for _, k := range m.Kinds() {
			if !t.Changelog.Contains(k) {
				return nil, sqlmini.Errorf(pos, "table '%s' declares the changelog mode %s ('%s' = '%s'), but the query produces %s", t.Name, t.Changelog, connector.OptChangelog, declared, m)
			}
		}
	}
	return n, nil
}

// statementSetNode runs the queries of a statement set one after the
// other in one execution; setSink hands each row to its INSERT's sink.
type statementSetNode struct {
	ins    []exec.Node
	active int // the query whose rows are flowing
	// share: the queries may share their reads of a table (exec.Scan),
	// their sinks being files, whose rows do not change with the
	// interleaving of the queries' writes.
	share bool
}

// fileSinksOnly reports whether every sink writes a file.
func fileSinksOnly(sinks []tableSink) bool {
	for _, sk := range sinks {
		if _, ok := sk.(*connector.FileSink); !ok {
			return false
		}
	}
	return true
}

func (n *statementSetNode) Schema() types.Schema           { return types.Schema{} }
func (n *statementSetNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *statementSetNode) Children() []exec.Node          { return n.ins }
func (n *statementSetNode) Explain() string                { return "StatementSet()" }

// Open opens the queries. When they may share scans, in a statement that
// no later run goes on with (a scratch store, inputs that end, one worker,
// no timeline), the reads of a table by several queries are one, and the
// queries run as coroutines (exec.Coop); else one after the other.
func (n *statementSetNode) Open(ex *exec.Execution) (exec.Stream, error) {
	o := ex.Opts
	if !n.share || !o.Scratch || !o.EndOfInput || o.Parallelism > 1 || ex.Timeline != nil {
		ins, err := exec.OpenAll(ex, n.ins)
		if err != nil {
			return nil, err
		}
		return &setStream{n: n, ins: ins}, nil
	}
	coop := exec.NewCoop()
	ex.ShareScans(coop)
	var ins []exec.Stream
	for i, in := range n.ins {
		ex.ScanQuery(i)
		st, err := in.Open(ex)
		if err != nil {
			exec.CloseAll(ins)
			return nil, err
		}
		ins = append(ins, st)
	}
	s := &setStream{n: n, ins: ins}
	if ex.SharedScans() && ex.Opts.EndOfInput {
		coop.Start(ins)
		s.coop = coop
	}
	return s, nil
}

type setStream struct {
	n    *statementSetNode
	ins  []exec.Stream
	coop *exec.Coop // the queries run as coroutines: their reads are shared
}

func (s *setStream) Next() (exec.Event, error) {
	if s.coop != nil {
		q, ev, err := s.coop.Next()
		s.n.active = q
		return ev, err
	}
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
	if s.coop != nil {
		s.coop.Close() // the queries' goroutines return before their streams close
	}
	return exec.CloseAll(s.ins)
}

// setSink is the sinks of a statement set.
type setSink struct {
	node  *statementSetNode
	sinks []tableSink
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

// NoCheckpoints says why the statement set can take no checkpoint before
// its end: one of its sinks cannot.
func (s *setSink) NoCheckpoints() string {
	for _, k := range s.sinks {
		if why := k.NoCheckpoints(); why != "" {
			return why
		}
	}
	return ""
}

// Committed tells every sink that the checkpoint committed.
func (s *setSink) Committed() {
	for _, k := range s.sinks {
		k.Committed()
	}
}
