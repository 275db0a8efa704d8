package connector

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// KafkaSink writes the rows of an INSERT INTO a Kafka table to its topic.
// The query's columns are the table's persisted columns (its physical
// columns and the metadata columns that are not VIRTUAL; not its computed
// columns), in order. Each
// row becomes a record: its key from 'key.fields' (an upsert-kafka table's
// PRIMARY KEY) in the key format, its value in the value format, its
// timestamp and headers from the 'timestamp' and 'headers' metadata
// columns. An upsert-kafka table takes +I and +U as records and -D as a
// tombstone (a null value); a debezium-json table takes every kind as a
// Debezium event; a kafka table with another format takes inserts only.
//
// At a checkpoint the sink waits until the brokers have acknowledged
// every record written so far (at-least-once, Flink's default): a run
// killed after a checkpoint and started again writes the records after
// it again.
//
// With 'sink.delivery-guarantee' = 'exactly-once' the records between two
// checkpoints go in one Kafka transaction, with the transactional id
// '<sink.transactional-id-prefix>-<n>' for the n-th transaction of the
// table, as Flink's sink names one per checkpoint. A checkpoint flushes
// the transaction and records its id, producer id and epoch in the state
// store (two-phase commit: prepared); when the checkpoint has committed,
// the sink commits the transaction. A run killed in between commits it
// when it starts again (Kafka's EndTxn with the recorded producer id and
// epoch, as Flink resumes a transaction), and the transaction a killed run
// left open after its last checkpoint is aborted when the next id's
// producer starts. A consumer reading with isolation.level =
// read_committed so sees every result once.
type KafkaSink struct {
	t     *catalog.Table
	s     *kafkaSpec
	pos   sqlmini.Pos
	ctx   context.Context
	cl    *kafka.Client
	w     *kafka.Writer
	topic string
	// cols are the table's persisted columns: where each query column goes.
	cols       []int
	key, value recordCodec
	keyRow     types.Row
	valueRow   types.Row
	// full is a row's fields by table column, for one Row call.
	full []any
	// buf is where a record's key and value are encoded, for the writer
	// to copy.
	buf      []byte
	rows     int64
	ts, hdr  int // the query's timestamp and headers columns, or -1
	topicCol int

	// Exactly-once: store keeps the prepared transaction; seq numbers
	// the open one, whose writer is w; inTxn counts its records;
	// prepared is the writer of the transaction a checkpoint recorded
	// (record) and Committed is to commit; err is a failure of
	// Committed, said at the next call.
	store    state.Store
	seq      int64
	inTxn    int64
	prepared *kafka.Writer
	record   eosRecord
	err      error
}

// eosRecord is an exactly-once sink's checkpointed transaction.
type eosRecord struct {
	Seq   int64  `json:"seq"`
	TxnID string `json:"txn"`
	PID   int64  `json:"producer_id"`
	Epoch int16  `json:"epoch"`
	// Servers are the brokers, so that a transaction a killed run left
	// prepared is committed when the state file is opened again
	// (FinishKafkaCommits), even if its statement does not run again.
	Servers []string `json:"servers"`
	// Committed: the sink committed the transaction after the checkpoint.
	Committed bool `json:"committed,omitempty"`
}

func (k *KafkaSink) exactlyOnce() bool { return k.s.delivery == deliveryExactlyOnce }

func (k *KafkaSink) recordKey() []byte { return []byte("kafka\x00" + k.t.Name + "\x00" + k.topic) }

// txnID is the transactional id of the n-th transaction.
func (k *KafkaSink) txnID(n int64) string { return fmt.Sprintf("%s-%d", k.s.txnPrefix, n) }

// NewKafkaSink returns the sink of INSERT INTO Kafka table t, named at
// pos; ctx bounds its calls to the brokers; an exactly-once sink keeps its
// prepared transaction in store.
func NewKafkaSink(ctx context.Context, t *catalog.Table, pos sqlmini.Pos, store state.Store) (*KafkaSink, error) {
	t = t.ScanTable() // computed columns are not written
	s, err := parseKafka(t, t.Options["connector"] == "upsert-kafka")
	if err != nil {
		return nil, sqlmini.Errorf(pos, "%w", err)
	}
	if s.pattern != nil || len(s.topics) != 1 {
		return nil, sqlmini.Errorf(pos, "table '%s' is written to one topic: give it a single 'topic' (not a list or 'topic-pattern')", t.Name)
	}
	k := &KafkaSink{t: t, s: s, pos: pos, ctx: ctx, topic: s.topics[0], ts: -1, hdr: -1, topicCol: -1, store: store}
	for i := range t.Schema.Columns {
		m, isMeta := t.Metadata[i]
		if isMeta && m.Virtual {
			continue
		}
		if isMeta {
			switch m.Key {
			case "timestamp":
				k.ts = len(k.cols)
			case "headers":
				k.hdr = len(k.cols)
			case "topic":
				k.topicCol = len(k.cols)
			}
		}
		k.cols = append(k.cols, i)
	}
	if s.key != nil {
		if k.key, err = newRecordCodec(s.key, formatSchema(t, s.keyCols, true, s.keyPrefix), k.topic, true); err != nil {
			return nil, sqlmini.Errorf(pos, "table '%s': %w", t.Name, err)
		}
	}
	if k.value, err = newRecordCodec(s.value, formatSchema(t, s.valueCols, false, ""), k.topic, false); err != nil {
		return nil, sqlmini.Errorf(pos, "table '%s': %w", t.Name, err)
	}
	return k, nil
}

// Schema is the columns an INSERT into the table gives, in order.
func (k *KafkaSink) Schema() types.Schema {
	var sch types.Schema
	for _, i := range k.cols {
		sch.Columns = append(sch.Columns, k.t.Schema.Columns[i])
	}
	return sch
}

// Table is the table the sink writes.
func (k *KafkaSink) Table() *catalog.Table { return k.t }

// Topic is the topic the sink writes.
func (k *KafkaSink) Topic() string { return k.topic }

// Rows is the number of records written.
func (k *KafkaSink) Rows() int64 { return k.rows }

// Upsert reports whether the table is an upsert-kafka table.
func (k *KafkaSink) Upsert() bool { return k.s.upsert }

// Changelog reports whether the value format writes a changelog
// (debezium-json).
func (k *KafkaSink) Changelog() bool { return !k.value.changelog().IsEmpty() }

// Begin connects and checks that the topic exists.
func (k *KafkaSink) Begin(types.Schema) error {
	var err error
	if k.cl, err = kafka.Dial(k.ctx, kafka.Config{Servers: k.s.servers, ClientID: k.s.clientID, Auth: k.s.auth}); err != nil {
		return k.fail(err)
	}
	if _, err := k.cl.Partitions(k.ctx, []string{k.topic}); err != nil {
		return k.fail(err)
	}
	if !k.exactlyOnce() {
		k.w, err = k.cl.NewWriter(k.writerConfig())
		return k.fail(err)
	}
	var rec *eosRecord
	err = k.store.View(func(tx state.Tx) error {
		b, err := tx.Get(exec.SinkNamespace, k.recordKey())
		if err != nil || b == nil {
			return err
		}
		rec = &eosRecord{}
		return json.Unmarshal(b, rec)
	})
	if err != nil {
		return k.fail(fmt.Errorf("reading the sink's checkpointed transaction: %w", err))
	}
	k.seq = 1
	if rec != nil {
		// The transaction of the last checkpoint, prepared by a run that
		// stopped before it could commit it.
		if !rec.Committed {
			if err := resumeCommit(k.ctx, k.cl, k.store, k.recordKey(), rec); err != nil {
				return k.fail(err)
			}
		}
		k.seq = rec.Seq + 1
	}
	return k.fail(k.begin())
}

// writerConfig is the configuration of the sink's writers.
func (k *KafkaSink) writerConfig() kafka.WriterConfig {
	cfg := kafka.WriterConfig{Partitioner: k.s.partitioner, Compression: k.s.compression}
	switch {
	case k.s.lingerMs == 0:
		cfg.Linger = -1 // no wait
	case k.s.lingerMs > 0:
		cfg.Linger = time.Duration(k.s.lingerMs) * time.Millisecond
	}
	return cfg
}

// begin starts the transaction of k.seq (a producer of its own id, which
// fences what a killed run left open under it).
func (k *KafkaSink) begin() error {
	timeout := 15 * time.Minute
	if k.s.txnTimeoutMs > 0 {
		timeout = time.Duration(k.s.txnTimeoutMs) * time.Millisecond
	}
	var err error
	cfg := k.writerConfig()
	cfg.TransactionalID, cfg.TransactionTimeout = k.txnID(k.seq), timeout
	k.w, err = k.cl.NewWriter(cfg)
	k.inTxn = 0
	return err
}

func (k *KafkaSink) fail(err error) error {
	if err == nil {
		return nil
	}
	return sqlmini.Errorf(k.pos, "table '%s': %w", k.t.Name, err)
}

// Row writes one row as a record.
func (k *KafkaSink) Row(r types.Row) error {
	if err := k.ready(); err != nil {
		return err
	}
	if k.s.upsert && r.Kind == types.UpdateBefore {
		return nil // the +U that follows replaces the key's row
	}
	if k.full == nil {
		k.full = make([]any, k.t.Schema.Len())
	}
	full := k.full
	for j, i := range k.cols {
		full[i] = r.Fields[j]
	}
	defer clear(full)
	rec := kafka.Record{TP: kafka.TP{Topic: k.topic}}
	if k.topicCol >= 0 {
		if s, ok := r.Fields[k.topicCol].(string); ok && s != "" {
			rec.Topic = s
		}
	}
	if k.ts >= 0 {
		if ms, ok := types.TimeMillis(r.Fields[k.ts]); ok {
			rec.Timestamp = ms
		}
	}
	if k.hdr >= 0 {
		if m, ok := r.Fields[k.hdr].(*types.Map); ok {
			for i, key := range m.Keys {
				ks, _ := key.(string)
				vb, _ := m.Values[i].([]byte)
				rec.Headers = append(rec.Headers, kafka.Header{Key: ks, Value: vb})
			}
		}
	}
	var err error
	k.buf = k.buf[:0]
	if k.key != nil {
		k.keyRow.Fields = k.keyRow.Fields[:0]
		for _, i := range k.s.keyCols {
			k.keyRow.Fields = append(k.keyRow.Fields, full[i])
		}
		k.keyRow.Kind = types.Insert
		if rec.Key, err = k.encode(k.key, k.keyRow); err != nil {
			return k.fail(err)
		}
	}
	if !(k.s.upsert && r.Kind == types.Delete) {
		k.valueRow.Fields = k.valueRow.Fields[:0]
		for _, i := range k.s.valueCols {
			k.valueRow.Fields = append(k.valueRow.Fields, full[i])
		}
		k.valueRow.Kind = r.Kind
		if rec.Value, err = k.encode(k.value, k.valueRow); err != nil {
			return k.fail(err)
		}
	}
	k.w.Write(k.ctx, rec)
	k.rows++
	k.inTxn++
	return nil
}

// encode appends r encoded with c to the record's bytes so far (the
// writer copies them, so the next record starts anew) and returns its
// part: nil for a null key or value.
func (k *KafkaSink) encode(c recordCodec, r types.Row) ([]byte, error) {
	start := len(k.buf)
	room := k.buf[start:]
	b, err := c.encode(room, r)
	if err != nil || len(b) == 0 {
		return b[:0:0], err // nil stays nil (a null key or value)
	}
	if cap(room) > 0 && &b[0] == &room[:1][0] {
		k.buf = k.buf[:start+len(b)]
	} else { // it grew out of the buffer (or the codec has bytes of its own)
		k.buf = make([]byte, 0, 2*(start+len(b))) // for the next parts
	}
	return b[:len(b):len(b)], nil
}

// ready says a failure of the last commit, and starts the next
// transaction when the last one was committed.
func (k *KafkaSink) ready() error {
	if k.err != nil {
		return k.err
	}
	if k.w == nil && k.exactlyOnce() {
		if err := k.begin(); err != nil {
			k.err = k.fail(err)
			return k.err
		}
	}
	return nil
}

// End waits for every record to be acknowledged.
func (k *KafkaSink) End() error {
	if k.err != nil {
		return k.err
	}
	return k.flush()
}

func (k *KafkaSink) flush() error {
	if k.w == nil {
		return nil
	}
	return k.fail(k.w.Flush(k.ctx))
}

// Checkpoint makes the records written so far durable: the brokers have
// them. An exactly-once sink records its transaction in tx as prepared
// (when it holds records; an empty one stays open for the next).
func (k *KafkaSink) Checkpoint(tx state.Tx) error {
	if err := k.ready(); err != nil {
		return err
	}
	if err := k.flush(); err != nil {
		return err
	}
	if !k.exactlyOnce() || k.inTxn == 0 {
		return nil
	}
	pid, epoch, err := k.w.ProducerID(k.ctx)
	if err != nil {
		return k.fail(err)
	}
	k.record = eosRecord{Seq: k.seq, TxnID: k.txnID(k.seq), PID: pid, Epoch: epoch, Servers: k.s.servers}
	if err := putEOS(tx, k.recordKey(), k.record); err != nil {
		return err
	}
	// The transaction is sealed: it waits for the checkpoint's commit,
	// and the rows after the checkpoint go to the next one (a checkpoint
	// may commit in the background while rows go on).
	k.prepared, k.w = k.w, nil
	k.seq++
	return nil
}

func putEOS(tx state.Tx, key []byte, rec eosRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return tx.Put(exec.SinkNamespace, key, b)
}

// markCommitted records that the transaction of rec is committed.
func markCommitted(st state.Store, key []byte, rec eosRecord) error {
	rec.Committed = true
	return st.Update(func(tx state.Tx) error { return putEOS(tx, key, rec) })
}

// resumeCommit commits the transaction a run left prepared and records
// that it did.
func resumeCommit(ctx context.Context, cl *kafka.Client, st state.Store, key []byte, rec *eosRecord) error {
	if err := cl.ResumeCommit(ctx, rec.TxnID, rec.PID, rec.Epoch); err != nil {
		return fmt.Errorf("%w; its records are not in the topic (was the run stopped longer than 'properties.transaction.timeout.ms'?)", err)
	}
	return markCommitted(st, key, *rec)
}

// FinishKafkaCommits commits the transactions of exactly-once Kafka sinks
// that a run left prepared: killed after a checkpoint committed and before
// its sink committed the transaction of that checkpoint. The session calls
// it when it opens a state file, since the statement may not run again (a
// script skips the INSERTs that finished). A broker that cannot be reached
// is a note: the sink commits the transaction when its INSERT runs again.
func FinishKafkaCommits(st state.Store, notes io.Writer) error {
	type pending struct {
		key []byte
		rec eosRecord
	}
	var todo []pending
	err := st.View(func(tx state.Tx) error {
		return tx.Scan(exec.SinkNamespace, []byte("kafka\x00"), func(key, value []byte) error {
			var rec eosRecord
			if err := json.Unmarshal(value, &rec); err != nil {
				return fmt.Errorf("the record of a Kafka sink's transaction is damaged: %q", value)
			}
			if !rec.Committed {
				todo = append(todo, pending{key: bytes.Clone(key), rec: rec})
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("reading the sinks' records: %w", err)
	}
	for _, p := range todo {
		table := strings.SplitN(string(p.key), "\x00", 3)[1]
		ctx := context.Background()
		cl, err := kafka.Dial(ctx, kafka.Config{Servers: p.rec.Servers})
		if err == nil {
			err = resumeCommit(ctx, cl, st, p.key, &p.rec)
			cl.Close()
		}
		if err != nil {
			fmt.Fprintf(notes, "note: table '%s': the Kafka transaction '%s' of the last run's last checkpoint is not committed yet: %v\n", table, p.rec.TxnID, err)
		}
	}
	return nil
}

// Committed commits the transaction the checkpoint prepared; the next
// one starts with the next row (or checkpoint). A failure is said by the
// next call.
func (k *KafkaSink) Committed() {
	if k.prepared == nil {
		return
	}
	w := k.prepared
	k.prepared = nil
	err := w.Commit(k.ctx)
	w.Close()
	if err == nil {
		err = markCommitted(k.store, k.recordKey(), k.record)
	}
	if err != nil && k.err == nil {
		k.err = k.fail(err)
	}
}

// Abort aborts an exactly-once sink's open transaction when the statement
// fails.
func (k *KafkaSink) Abort() {
	if k.exactlyOnce() && k.w != nil {
		_ = k.w.Abort(k.ctx)
	}
}

// NoCheckpoints says the sink can take checkpoints.
func (k *KafkaSink) NoCheckpoints() string { return "" }

// Close releases the connection.
func (k *KafkaSink) Close() {
	if k.w != nil {
		k.w.Close()
	}
	if k.prepared != nil {
		k.prepared.Close()
	}
	if k.cl != nil {
		k.cl.Close()
	}
}

// String names the sink's topic for the INSERT's report.
func (k *KafkaSink) String() string { return fmt.Sprintf("topic '%s'", k.topic) }

// KafkaTopics lists the topics (internal ones left out) of the cluster at
// servers (comma-separated), for SHOW TOPICS.
func KafkaTopics(ctx context.Context, servers string) ([]kafka.Topic, error) {
	var list []string
	for _, sv := range strings.Split(servers, ",") {
		if sv = strings.TrimSpace(sv); sv != "" {
			list = append(list, sv)
		}
	}
	cl, err := kafka.Dial(ctx, kafka.Config{Servers: list})
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	all, err := cl.Topics(ctx)
	if err != nil {
		return nil, err
	}
	var out []kafka.Topic
	for _, t := range all {
		if !t.Internal {
			out = append(out, t)
		}
	}
	return out, nil
}
