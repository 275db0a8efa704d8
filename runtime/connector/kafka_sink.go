package connector

import (
	"context"
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// KafkaSink writes the rows of an INSERT INTO a Kafka table to its topic.
// The query's columns are the table's persisted columns (its physical
// columns and the metadata columns that are not VIRTUAL), in order. Each
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
	rows       int64
	ts, hdr    int // the query's timestamp and headers columns, or -1
	topicCol   int
}

// NewKafkaSink returns the sink of INSERT INTO Kafka table t, named at
// pos; ctx bounds its calls to the brokers.
func NewKafkaSink(ctx context.Context, t *catalog.Table, pos sqlmini.Pos) (*KafkaSink, error) {
	s, err := parseKafka(t, t.Options["connector"] == "upsert-kafka")
	if err != nil {
		return nil, sqlmini.Errorf(pos, "%w", err)
	}
	if s.pattern != nil || len(s.topics) != 1 {
		return nil, sqlmini.Errorf(pos, "table '%s' is written to one topic: give it a single 'topic' (not a list or 'topic-pattern')", t.Name)
	}
	if s.delivery == deliveryExactlyOnce {
		return nil, sqlmini.Errorf(pos, "table '%s': 'sink.delivery-guarantee' = 'exactly-once' is not available yet in ptfsh; use 'at-least-once'", t.Name)
	}
	k := &KafkaSink{t: t, s: s, pos: pos, ctx: ctx, topic: s.topics[0], ts: -1, hdr: -1, topicCol: -1}
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
		if k.key, err = newRecordCodec(s.key, formatSchema(t, s.keyCols, true, s.keyPrefix), nil); err != nil {
			return nil, sqlmini.Errorf(pos, "table '%s': %w", t.Name, err)
		}
	}
	if k.value, err = newRecordCodec(s.value, formatSchema(t, s.valueCols, false, ""), nil); err != nil {
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
	if k.cl, err = kafka.Dial(k.ctx, kafka.Config{Servers: k.s.servers, ClientID: k.s.clientID}); err != nil {
		return k.fail(err)
	}
	if _, err := k.cl.Partitions(k.ctx, []string{k.topic}); err != nil {
		return k.fail(err)
	}
	k.w, err = k.cl.NewWriter(kafka.WriterConfig{Partitioner: k.s.partitioner})
	return k.fail(err)
}

func (k *KafkaSink) fail(err error) error {
	if err == nil {
		return nil
	}
	return sqlmini.Errorf(k.pos, "table '%s': %w", k.t.Name, err)
}

// Row writes one row as a record.
func (k *KafkaSink) Row(r types.Row) error {
	if k.s.upsert && r.Kind == types.UpdateBefore {
		return nil // the +U that follows replaces the key's row
	}
	full := make([]any, k.t.Schema.Len())
	for j, i := range k.cols {
		full[i] = r.Fields[j]
	}
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
	if k.key != nil {
		k.keyRow.Fields = k.keyRow.Fields[:0]
		for _, i := range k.s.keyCols {
			k.keyRow.Fields = append(k.keyRow.Fields, full[i])
		}
		k.keyRow.Kind = types.Insert
		if rec.Key, err = k.key.encode(nil, k.keyRow); err != nil {
			return k.fail(err)
		}
	}
	if !(k.s.upsert && r.Kind == types.Delete) {
		k.valueRow.Fields = k.valueRow.Fields[:0]
		for _, i := range k.s.valueCols {
			k.valueRow.Fields = append(k.valueRow.Fields, full[i])
		}
		k.valueRow.Kind = r.Kind
		if rec.Value, err = k.value.encode(nil, k.valueRow); err != nil {
			return k.fail(err)
		}
	}
	k.w.Write(k.ctx, rec)
	k.rows++
	return nil
}

// End waits for every record to be acknowledged.
func (k *KafkaSink) End() error { return k.flush() }

func (k *KafkaSink) flush() error {
	if k.w == nil {
		return nil
	}
	return k.fail(k.w.Flush(k.ctx))
}

// Checkpoint makes the records written so far durable: the brokers have
// them. Nothing goes into tx.
func (k *KafkaSink) Checkpoint(state.Tx) error { return k.flush() }

// Committed implements the checkpoint protocol; at-least-once has nothing
// to do then.
func (k *KafkaSink) Committed() {}

// NoCheckpoints says the sink can take checkpoints.
func (k *KafkaSink) NoCheckpoints() string { return "" }

// Close releases the connection.
func (k *KafkaSink) Close() {
	if k.w != nil {
		k.w.Close()
	}
	if k.cl != nil {
		k.cl.Close()
	}
}

// String names the sink's topic for the INSERT's report.
func (k *KafkaSink) String() string { return fmt.Sprintf("topic '%s'", k.topic) }
