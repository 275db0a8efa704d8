package connector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// kafkaConnector is the 'kafka' connector, or 'upsert-kafka' with upsert.
type kafkaConnector struct{ upsert bool }

func (k kafkaConnector) Name() string {
	if k.upsert {
		return "upsert-kafka"
	}
	return "kafka"
}

func (k kafkaConnector) Options() []string { return optionNames(k.upsert) }

// PushesWatermark: a WATERMARK on a computed column is the source's, per
// partition, as Flink pushes it into its Kafka source.
func (kafkaConnector) PushesWatermark() bool { return true }

func (k kafkaConnector) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	s, err := parseKafka(t.ScanTable(), k.upsert) // computed columns are neither key nor value
	if err != nil {
		pos := ct.Pos
		var oe *kafkaOptionError
		if errors.As(err, &oe) && oe.key != "" {
			pos = optionPos(ct, oe.key)
		}
		return sqlmini.Errorf(pos, "%w", err)
	}
	switch {
	case k.upsert:
		// Flink's upsert-kafka source: inserts, updates after and deletes
		// (tombstones) that carry the key only.
		t.Changelog = types.NewChangelogMode(types.Insert, types.UpdateAfter, types.Delete)
		t.Changelog.KeyOnlyDeletes = true
	case s.value.name == fmtDebezium:
		t.Changelog = types.NewChangelogMode(types.Insert, types.UpdateBefore, types.UpdateAfter, types.Delete)
	}
	return nil
}

func (k kafkaConnector) Scan(t *catalog.Table, env Env, pos sqlmini.Pos) (exec.Node, error) {
	s, err := parseKafka(t, k.upsert)
	if err != nil {
		return nil, sqlmini.Errorf(pos, "%w", err)
	}
	if s.startMode == modeGroup && s.group == "" {
		// Checked when the table is read, as Flink checks a source's
		// options: a table only written needs no group.
		return nil, sqlmini.Errorf(pos, "table '%s' is read from 'scan.startup.mode' = 'group-offsets' (the default), which needs 'properties.group.id'; or read from 'earliest-offset'", t.Name)
	}
	return &kafkaNode{t: t, s: s, env: env, pos: pos}, nil
}

// kafkaNode reads a Kafka table.
type kafkaNode struct {
	t   *catalog.Table
	s   *kafkaSpec
	env Env
	pos sqlmini.Pos
}

func (n *kafkaNode) Schema() types.Schema { return n.t.Schema }
func (n *kafkaNode) Changelog() types.ChangelogMode {
	if n.t.Changelog.IsEmpty() {
		return types.InsertOnly
	}
	return n.t.Changelog
}

// UpsertKey is the primary key of an upsert-kafka table.
func (n *kafkaNode) UpsertKey() []int {
	if n.s.upsert {
		return n.t.PrimaryKey
	}
	return nil
}
func (n *kafkaNode) Children() []exec.Node { return nil }
func (n *kafkaNode) Explain() string {
	return "TableSourceScan(table=[[" + n.t.Name + "]], fields=" + n.t.Schema.ColumnList() + ")"
}

// Bounded reports whether a query over the table ends.
func (n *kafkaNode) Bounded() bool { return n.s.boundMode != modeUnbounded }

// kafkaRecord is a Kafka source's checkpointed position: the next offset
// of each partition ("topic/partition": offset) and, while the statement
// runs, its event time (kafka_time.go).
type kafkaRecord struct {
	Offsets map[string]int64 `json:"offsets"`
	WM      *kafkaWM         `json:"partitionWatermarks,omitempty"`
}

func kafkaSourceKey(t *catalog.Table, read int) []byte {
	k := "kafka\x00" + t.Name
	if read > 0 {
		k += "\x00" + strconv.Itoa(read)
	}
	return []byte(k)
}

func (n *kafkaNode) Open(ex *exec.Execution) (exec.Stream, error) {
	read := ex.SourceReads["kafka\x00"+n.t.Name]
	ex.SourceReads["kafka\x00"+n.t.Name]++
	ctx := ex.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	st := &kafkaStream{n: n, ex: ex, read: read, ctx: ctx}
	if err := st.open(); err != nil {
		st.Close()
		return nil, types.At(n.pos, fmt.Errorf("table '%s': %w", n.t.Name, err))
	}
	ex.Sources = append(ex.Sources, st)
	return st, nil
}

// kafkaStream is a running Kafka source.
type kafkaStream struct {
	n                  *kafkaNode
	ex                 *exec.Execution
	ctx                context.Context
	read               int
	cl                 *kafka.Client
	r                  *kafka.Reader
	tps                []kafka.TP
	key, value         recordCodec
	keyRows, valueRows []types.Row
	// rows are the rows of the last record decoded; slab holds their
	// fields. valueIsRow: the value's columns are the table's, in order,
	// and no metadata: the value's row is the table's row.
	rows       []types.Row
	slab       types.RowSlab
	valueIsRow bool
	// queued are events not handed out yet, from queued[qi]: the rows of
	// a record (a Debezium update gives two), after the status that makes
	// an idle source active again.
	queued  []exec.Event
	qi      int
	time    *kafkaTime
	skips   format.SkipStats
	ignore  bool
	bounded bool
	// checkpointed are the offsets of the last checkpoint, which
	// Committed commits to the group.
	checkpointed map[kafka.TP]int64
	commitFailed bool
}

func (s *kafkaStream) open() error {
	sp := s.n.s
	var err error
	if s.key, err = s.codec(sp.key, sp.keyCols, true); err != nil {
		return err
	}
	if s.value, err = s.codec(sp.value, sp.valueCols, false); err != nil {
		return err
	}
	s.ignore = sp.value.opts["ignore-parse-errors"] == "true"
	s.valueIsRow = len(s.n.t.Metadata) == 0 && len(sp.valueCols) == s.n.t.Schema.Len()
	for j, i := range sp.valueCols {
		s.valueIsRow = s.valueIsRow && i == j
	}
	cfg := kafka.Config{Servers: sp.servers, ClientID: sp.clientID, ReadCommitted: sp.readCommitted, Auth: sp.auth}
	if s.cl, err = kafka.Dial(s.ctx, cfg); err != nil {
		return err
	}
	topics := sp.topics
	if sp.pattern != nil {
		if topics, err = s.cl.MatchTopics(s.ctx, sp.pattern.MatchString); err != nil {
			return err
		}
		if len(topics) == 0 {
			return fmt.Errorf("no topic matches 'topic-pattern' = '%s'", s.n.t.Options["topic-pattern"])
		}
	}
	if s.tps, err = s.cl.Partitions(s.ctx, topics); err != nil {
		return err
	}
	s.time = newKafkaTime(s.ex, s.tps, s.n.t.Watermark, s.n.env.WatermarkEvery, s.n.env)
	starts, resumed, err := s.starts()
	if err != nil {
		return err
	}
	var ends map[kafka.TP]int64
	if s.bounded = sp.boundMode != modeUnbounded; s.bounded {
		if ends, err = s.ends(); err != nil {
			return err
		}
	}
	if resumed {
		parts := make([]string, 0, len(s.tps))
		for _, tp := range s.tps {
			parts = append(parts, fmt.Sprintf("%s@%d", tp, starts[tp]))
		}
		s.ex.Notes = append(s.ex.Notes, fmt.Sprintf("note: table '%s' goes on at the offsets of the last checkpoint: %s", s.n.t.Name, strings.Join(parts, ", ")))
	}
	if s.r, err = s.cl.NewReader(s.tps, starts, ends); err != nil {
		return err
	}
	if s.bounded {
		s.finishEnded() // an empty range holds nothing back
		return nil
	}
	// An unbounded read is live: it fetches on a goroutine of its own,
	// which wakes the driver when records come.
	live := s.ex.Live()
	live.AddSource()
	s.r.Start(live.Wake)
	return nil
}

// codec makes the codec of a key or value format over its columns; a
// key's column names lose the 'key.fields-prefix'.
func (s *kafkaStream) codec(f *kafkaFormat, cols []int, key bool) (recordCodec, error) {
	if f == nil {
		return nil, nil
	}
	topic := ""
	if len(s.n.s.topics) > 0 {
		topic = s.n.s.topics[0]
	}
	return newRecordCodec(f, formatSchema(s.n.t, cols, key, s.n.s.keyPrefix), topic, key)
}

// formatSchema is the schema of the columns a format carries.
func formatSchema(t *catalog.Table, cols []int, key bool, prefix string) types.Schema {
	var sch types.Schema
	for _, i := range cols {
		c := t.Schema.Columns[i]
		c.TimeAttr = false
		if key {
			c.Name = strings.TrimPrefix(c.Name, prefix)
		}
		sch.Columns = append(sch.Columns, c)
	}
	return sch
}

// starts decides where each partition is read from: the last checkpoint,
// else 'scan.startup.mode'.
func (s *kafkaStream) starts() (map[kafka.TP]int64, bool, error) {
	sp := s.n.s
	key := kafkaSourceKey(s.n.t, s.read)
	var rec *kafkaRecord
	if !s.ex.Opts.ResetSources && s.ex.Store != nil {
		err := s.ex.Store.View(func(tx state.Tx) error {
			b, err := tx.Get(exec.SourceNamespace, key)
			if err != nil || b == nil {
				return err
			}
			rec = &kafkaRecord{}
			return json.Unmarshal(b, rec)
		})
		if err != nil {
			return nil, false, fmt.Errorf("reading its checkpointed offsets: %w", err)
		}
	}
	out := map[kafka.TP]int64{}
	if rec != nil {
		earliest, err := s.cl.Offsets(s.ctx, s.tps, kafka.Earliest)
		if err != nil {
			return nil, false, err
		}
		for _, tp := range s.tps {
			o, ok := rec.Offsets[tp.String()]
			if !ok {
				o = earliest[tp] // a partition added since: from its start, as Flink reads new partitions
			}
			out[tp] = o
		}
		s.time.restore(s.tps, rec.WM)
		return out, true, nil
	}
	switch sp.startMode {
	case modeEarliest:
		o, err := s.cl.Offsets(s.ctx, s.tps, kafka.Earliest)
		return o, false, err
	case modeLatest:
		o, err := s.cl.Offsets(s.ctx, s.tps, kafka.Latest)
		return o, false, err
	case modeTimestamp:
		o, err := s.cl.Offsets(s.ctx, s.tps, sp.startTimestamp)
		return o, false, err
	case modeSpecific:
		// Partitions without an offset start from the group's committed
		// offset, else the earliest (Flink's specific-offsets rule).
		fallback, err := s.groupOr(kafka.Earliest)
		if err != nil {
			return nil, false, err
		}
		for _, tp := range s.tps {
			if o, ok := sp.startOffsets[tp.Partition]; ok {
				out[tp] = o
			} else {
				out[tp] = fallback[tp]
			}
		}
		return out, false, nil
	}
	// group-offsets: a partition without a committed offset follows
	// 'properties.auto.offset.reset', and without it is an error, as in Flink.
	g, err := s.cl.GroupOffsets(s.ctx, sp.group, s.tps)
	if err != nil {
		return nil, false, err
	}
	var reset map[kafka.TP]int64
	for _, tp := range s.tps {
		if o, ok := g[tp]; ok {
			out[tp] = o
			continue
		}
		if !sp.resetEarliest && !sp.resetLatest {
			return nil, false, fmt.Errorf("group '%s' has no committed offset for partition %s, and 'properties.auto.offset.reset' is not set; read from 'scan.startup.mode' = 'earliest-offset', or set 'properties.auto.offset.reset' = 'earliest' or 'latest'", sp.group, tp)
		}
		if reset == nil {
			at := int64(kafka.Earliest)
			if sp.resetLatest {
				at = kafka.Latest
			}
			if reset, err = s.cl.Offsets(s.ctx, s.tps, at); err != nil {
				return nil, false, err
			}
		}
		out[tp] = reset[tp]
	}
	return out, false, nil
}

// groupOr returns the group's committed offsets where there are, else
// the offsets at 'at'.
func (s *kafkaStream) groupOr(at int64) (map[kafka.TP]int64, error) {
	base, err := s.cl.Offsets(s.ctx, s.tps, at)
	if err != nil {
		return nil, err
	}
	if s.n.s.group != "" {
		g, err := s.cl.GroupOffsets(s.ctx, s.n.s.group, s.tps)
		if err != nil {
			return nil, err
		}
		for tp, o := range g {
			base[tp] = o
		}
	}
	return base, nil
}

// ends decides where a bounded read stops ('scan.bounded.mode').
func (s *kafkaStream) ends() (map[kafka.TP]int64, error) {
	sp := s.n.s
	latest, err := s.cl.Offsets(s.ctx, s.tps, kafka.Latest)
	if err != nil {
		return nil, err
	}
	switch sp.boundMode {
	case modeTimestamp:
		return s.cl.Offsets(s.ctx, s.tps, sp.boundTimestamp)
	case modeSpecific:
		for tp := range latest {
			if o, ok := sp.boundOffsets[tp.Partition]; ok {
				latest[tp] = o
			}
		}
	case modeGroup:
		g, err := s.cl.GroupOffsets(s.ctx, sp.group, s.tps)
		if err != nil {
			return nil, err
		}
		for _, tp := range s.tps {
			o, ok := g[tp]
			if !ok {
				return nil, fmt.Errorf("'scan.bounded.mode' = 'group-offsets': group '%s' has no committed offset for partition %s", sp.group, tp)
			}
			latest[tp] = o
		}
	}
	return latest, nil
}

func (s *kafkaStream) Next() (exec.Event, error) {
	for {
		if s.qi < len(s.queued) {
			ev := s.queued[s.qi]
			s.queued[s.qi] = exec.Event{}
			if s.qi++; s.qi == len(s.queued) {
				s.queued, s.qi = s.queued[:0], 0
			}
			if ev.Kind == exec.EvRow {
				s.ex.RowsIn++
			}
			return ev, nil
		}
		if s.time.due(s.bounded) {
			return s.time.emit(), nil
		}
		var rec kafka.Record
		var ok bool
		var err error
		if s.bounded {
			rec, ok, err = s.r.Next(s.ctx, 0)
			if err == nil && !ok {
				s.reportSkipped()
				return exec.Event{Kind: exec.EvEnd}, nil
			}
		} else {
			if s.ex.Stopping() {
				// A stop ends the table where it is, without the end of
				// input: the offsets read go into the final checkpoint.
				if s.time.pending {
					return s.time.emit(), nil
				}
				s.reportSkipped()
				return exec.Event{Kind: exec.EvEnd}, nil
			}
			if s.time.sinceCheck >= idleCheckEvery {
				if ev, ok := s.time.checkIdle(false); ok {
					s.queued = append(s.queued, ev)
					continue
				}
			}
			rec, ok, err = s.r.TryNext()
			if err == nil && !ok {
				return s.idle()
			}
		}
		if err != nil {
			if s.ctx.Err() != nil {
				return exec.Event{}, exec.ErrCancelled
			}
			return exec.Event{}, types.At(s.n.pos, fmt.Errorf("table '%s': %w", s.n.t.Name, err))
		}
		if err := s.take(rec); err != nil {
			return exec.Event{}, err
		}
	}
}

// idle is Next of an unbounded read when no record has come: a watermark
// that waits for its interval goes out when due, partitions without
// records become idle, and the driver is told when to pull again.
func (s *kafkaStream) idle() (exec.Event, error) {
	if ev, ok := s.time.checkIdle(true); ok {
		if s.time.pending {
			// The watermark the partitions made goes before the source
			// says it is idle.
			s.queued = append(s.queued, ev)
			return s.time.emit(), nil
		}
		return ev, nil
	}
	if s.time.pending {
		s.time.pace.wake(s.ex)
	}
	return exec.Event{Kind: exec.EvIdle}, nil
}

// finishEnded marks the partitions of a bounded read that reached their
// end: they hold no watermark back from now on, as a finished split of
// Flink's. (A partition may end while another's record is read: the
// transaction marker after its last record.)
func (s *kafkaStream) finishEnded() {
	for p := range s.tps {
		if !s.time.done[p] && s.r.DoneAt(p) {
			s.time.finish(p)
		}
	}
}

// take queues the rows of a record, after the event that makes an idle
// source active again; their watermark follows them.
func (s *kafkaStream) take(rec kafka.Record) error {
	p := rec.Part
	rows, err := s.decode(rec)
	if s.bounded {
		defer s.finishEnded()
	}
	if err != nil {
		var pe *format.ParseError
		if s.ignore && errors.As(err, &pe) {
			c := *pe
			c.File = recordPlace(rec)
			s.skips.Add(&c)
			return nil
		}
		hint := ""
		if contains(kafkaFormatOptions[s.n.s.value.name], "ignore-parse-errors") {
			hint = s.n.s.value.prefix
		}
		return types.At(s.n.pos, fmt.Errorf("table '%s': %w", s.n.t.Name, recordError(rec, err, hint)))
	}
	if ev, ok := s.time.record(p); ok {
		s.queued = append(s.queued, ev)
	}
	for _, r := range rows {
		s.time.observe(p, r)
		s.queued = append(s.queued, exec.Event{Kind: exec.EvRow, Row: r})
	}
	return nil
}

// decode turns a record into the table's rows: the key's and the value's
// columns, then the metadata.
func (s *kafkaStream) decode(rec kafka.Record) ([]types.Row, error) {
	t, sp := s.n.t, s.n.s
	var err error
	var keyRow types.Row
	if raw, ok := s.key.(*rawCodec); ok && s.valueIsRow && rec.Value != nil {
		// The value's row is the table's: the key is only checked.
		if err := raw.check(rec.Key); err != nil {
			return nil, &partError{"key", err}
		}
	} else if s.key != nil {
		if s.keyRows, err = s.key.decode(rec.Key, s.keyRows[:0]); err != nil {
			return nil, &partError{"key", err}
		}
		if len(s.keyRows) > 0 {
			keyRow = s.keyRows[0]
		}
	}
	if s.valueRows, err = s.value.decode(rec.Value, s.valueRows[:0]); err != nil {
		return nil, &partError{"value", err}
	}
	vals := s.valueRows
	if rec.Value == nil {
		if !sp.upsert {
			return nil, nil // a tombstone: no row, as Flink's kafka source skips it
		}
		if keyRow.Fields == nil {
			return nil, &partError{"key", &format.ParseError{Line: 1, Col: 1, Msg: "a tombstone without a key"}}
		}
		vals = []types.Row{{Kind: types.Delete}}
	}
	out := s.rows[:0]
	for _, v := range vals {
		if s.valueIsRow && v.Fields != nil {
			// The value holds every column, after the key's (which Flink
			// overwrites with the value's too): its row is the table's.
			out = append(out, v)
			continue
		}
		fields := s.slab.Fields(t.Schema.Len())
		for k, i := range sp.keyCols {
			if keyRow.Fields != nil {
				fields[i] = keyRow.Fields[k]
			}
		}
		if v.Kind != types.Delete || v.Fields != nil {
			for k, i := range sp.valueCols {
				fields[i] = v.Fields[k]
			}
		}
		for i, m := range t.Metadata {
			fields[i] = metadataValue(rec, m.Key, t.Schema.Columns[i].Type)
		}
		// An upsert source's value is +I and its tombstone -D, as in
		// Flink; the planner makes updates of them by key.
		out = append(out, types.Row{Kind: v.Kind, Fields: fields})
	}
	s.rows = out
	return out, nil
}

// metadataValue is a metadata column's value for a record.
func metadataValue(rec kafka.Record, key string, t types.Type) any {
	switch key {
	case "topic":
		return rec.Topic
	case "partition":
		return int64(rec.Partition)
	case "offset":
		return rec.Offset
	case "timestamp":
		if t.Kind == types.KindTimestamp {
			return types.LocalDateTime{Millis: rec.Timestamp}
		}
		return types.Instant{Millis: rec.Timestamp}
	case "timestamp-type":
		return "CreateTime"
	case "leader-epoch":
		return nil
	case "headers":
		m := &types.Map{}
		for _, h := range rec.Headers {
			m.Keys = append(m.Keys, h.Key)
			m.Values = append(m.Values, h.Value)
		}
		return m
	}
	return nil
}

// partError says whether a record's key or value failed.
type partError struct {
	part string
	err  error
}

func (e *partError) Error() string { return e.part + ": " + e.err.Error() }
func (e *partError) Unwrap() error { return e.err }

// recordPlace names a record: topic 'clicks', partition 0, offset 17.
func recordPlace(rec kafka.Record) string {
	return fmt.Sprintf("topic '%s', partition %d, offset %d", rec.Topic, rec.Partition, rec.Offset)
}

// recordError words a record that cannot be decoded, with its topic,
// partition and offset, the part (key or value), where in it and what;
// valuePrefix, when not empty, is the prefix of the value format's
// 'ignore-parse-errors' option, which the message suggests.
func recordError(rec kafka.Record, err error, valuePrefix string) error {
	part := "value"
	var pe *partError
	if errors.As(err, &pe) {
		part = pe.part
		err = pe.err
	}
	var fe *format.ParseError
	if errors.As(err, &fe) {
		hint := ""
		if part == "value" && valuePrefix != "" {
			hint = fmt.Sprintf("; skip such records with '%signore-parse-errors' = 'true'", valuePrefix)
		}
		return fmt.Errorf("%s: %s%s", recordPlace(rec), recordProblem(part, fe), hint)
	}
	return fmt.Errorf("%s: bad %s: %w", recordPlace(rec), part, err)
}

// recordProblem words what is wrong in a record's key or value: bad
// value (byte 26): column "score": cannot parse "x" as INT.
func recordProblem(part string, fe *format.ParseError) string {
	at := ""
	if fe.Line > 1 {
		at = fmt.Sprintf(" (line %d, column %d)", fe.Line, fe.Col)
	} else if fe.Col > 1 {
		at = fmt.Sprintf(" (byte %d)", fe.Col)
	}
	col := ""
	if fe.Column != "" {
		col = "column " + strconv.Quote(fe.Column) + ": "
	}
	return fmt.Sprintf("bad %s%s: %s%s", part, at, col, fe.Msg)
}

// reportSkipped notes how many bad records were skipped, and the first.
func (s *kafkaStream) reportSkipped() {
	n, first := s.skips.Skipped()
	if n == 0 {
		return
	}
	var b strings.Builder
	recs := "records"
	if n == 1 {
		recs = "record"
	}
	fmt.Fprintf(&b, "note: table '%s' skipped %d bad %s ('%signore-parse-errors' = 'true')", s.n.t.Name, n, recs, s.n.s.value.prefix)
	for _, e := range first {
		fmt.Fprintf(&b, "\n  %s: %s", e.File, recordProblem("value", &e))
	}
	if more := n - int64(len(first)); more > 0 {
		fmt.Fprintf(&b, "\n  and %d more", more)
	}
	s.ex.Notes = append(s.ex.Notes, b.String())
}

// Checkpoint records the next offset of each partition; finished: the
// bounded read ended, and the position goes.
func (s *kafkaStream) Checkpoint(tx state.Tx, finished, final bool) error {
	key := kafkaSourceKey(s.n.t, s.read)
	pos := s.r.Position()
	s.checkpointed = pos
	if finished {
		return tx.Delete(exec.SourceNamespace, key)
	}
	rec := kafkaRecord{Offsets: map[string]int64{}}
	names := make([]kafka.TP, 0, len(pos))
	for tp := range pos {
		names = append(names, tp)
	}
	sort.Slice(names, func(i, j int) bool { return names[i].String() < names[j].String() })
	for _, tp := range names {
		rec.Offsets[tp.String()] = pos[tp]
	}
	if !final {
		rec.WM = s.time.state(s.tps)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.Put(exec.SourceNamespace, key, b)
}

// Committed commits the offsets of the checkpoint that committed to the
// table's consumer group ('properties.group.id'), for monitoring, as
// Flink's source does after each checkpoint: never ahead of the
// checkpoint. A failure is a note, not an error (Flink logs it too).
func (s *kafkaStream) Committed() {
	if s.n.s.group == "" || s.checkpointed == nil || s.cl == nil {
		return
	}
	pos := s.checkpointed
	s.checkpointed = nil
	if err := s.cl.CommitGroupOffsets(s.ctx, s.n.s.group, pos); err != nil && !s.commitFailed {
		s.commitFailed = true
		s.ex.Notes = append(s.ex.Notes, fmt.Sprintf("note: table '%s': committing the offsets of group '%s' failed (the checkpoint holds them): %v", s.n.t.Name, s.n.s.group, err))
	}
}

func (s *kafkaStream) Close() error {
	if s.r != nil {
		s.r.Close()
	}
	if s.cl != nil {
		s.cl.Close()
	}
	return nil
}
