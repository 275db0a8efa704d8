package kafka

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Partitioners of a Writer: Flink's 'sink.partitioner' values.
const (
	// PartitionDefault is Kafka's default: a keyed record goes to the
	// murmur2 hash of its key, a record without key to a sticky partition.
	PartitionDefault = "default"
	// PartitionFixed sends every record of one writer to one partition
	// (Flink's FlinkFixedPartitioner: the sink's subtask index modulo the
	// partitions; ptfsh's sink is one subtask, so partition 0).
	PartitionFixed = "fixed"
	// PartitionRoundRobin spreads records over the partitions in turn.
	PartitionRoundRobin = "round-robin"
)

// WriterConfig configures a Writer.
type WriterConfig struct {
	// Partitioner is one of the Partition constants ("" is the default).
	Partitioner string
	// TransactionalID makes a transactional writer (exactly-once); empty:
	// an idempotent writer that commits nothing (at-least-once).
	TransactionalID string
	// TransactionTimeout is the broker's limit on an open transaction.
	TransactionTimeout time.Duration
	// Compression is Kafka's compression.type of the batches written:
	// "none", "gzip", "snappy", "lz4", "zstd"; "" is none, Kafka's
	// default.
	Compression string
	// Linger is how long a batch waits for more records (Kafka's
	// linger.ms); zero: Kafka's default, 5 ms; negative: not at all.
	Linger time.Duration
}

// DefaultLinger is Kafka's default linger.ms.
const DefaultLinger = 5 * time.Millisecond

// Writer produces records. Write hands a record to the client and returns
// at once; Flush waits until every record written so far is acknowledged
// and returns the first failure. A transactional writer (a TransactionalID
// given) writes in one transaction that Commit ends: a writer commits one
// transaction in its life (the exactly-once sink makes one writer per
// checkpoint, each with an id of its own, as Flink's sink does). Close
// releases it.
type Writer struct {
	c     *Client
	cl    *kgo.Client
	txnID string

	mu  sync.Mutex
	err error // the first failed write since the last Flush
	// written is, by partition, the last offset a transactional writer
	// wrote (Commit waits until reads of committed records see it).
	written map[TP]int64
	// acked is w.ack, made once: what the client calls for each record.
	acked func(*kgo.Record, error)
	// done holds the records the client let go of (acknowledged or
	// failed), under mu; free those Write took from done, to make the
	// next records of. A record keeps the room of its key and value, so
	// a writer makes new records and bytes only for more in flight.
	done, free []*kgo.Record
	// b writes the records of an uncompressed writer outside a
	// transaction (then cl is nil).
	b *batchWriter
}

// NewWriter returns a writer to the cluster of c.
func (c *Client) NewWriter(cfg WriterConfig) (*Writer, error) {
	linger := max(cfg.Linger, 0)
	if cfg.Linger == 0 {
		linger = DefaultLinger
	}
	opts := append(c.cfg.opts(), kgo.ProducerLinger(linger), kgo.RecordRetries(10))
	switch cfg.Compression {
	case "", "none":
		// Kafka's producers (and so Flink's sink) write uncompressed
		// batches unless told otherwise; the client library's default is
		// snappy. Uncompressed, a topic read and written on one machine
		// took less CPU and memory than with snappy.
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	case "gzip":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.GzipCompression()))
	case "snappy":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	case "lz4":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	case "zstd":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	default:
		return nil, fmt.Errorf("unknown compression type '%s'", cfg.Compression)
	}
	switch cfg.Partitioner {
	case "", PartitionFixed, PartitionRoundRobin, PartitionDefault:
	default:
		return nil, fmt.Errorf("unknown partitioner '%s'", cfg.Partitioner)
	}
	if cfg.TransactionalID == "" && (cfg.Compression == "" || cfg.Compression == "none") {
		if cfg.Partitioner == "" {
			cfg.Partitioner = PartitionDefault
		}
		return &Writer{c: c, b: newBatchWriter(c, cfg, linger)}, nil
	}
	switch cfg.Partitioner {
	case "", PartitionDefault:
		opts = append(opts, kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	case PartitionFixed:
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	case PartitionRoundRobin:
		opts = append(opts, kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	default:
		return nil, fmt.Errorf("unknown partitioner '%s'", cfg.Partitioner)
	}
	if cfg.TransactionalID != "" {
		opts = append(opts, kgo.TransactionalID(cfg.TransactionalID))
		if cfg.TransactionTimeout > 0 {
			opts = append(opts, kgo.TransactionTimeout(cfg.TransactionTimeout))
		}
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	w := &Writer{c: c, cl: cl, txnID: cfg.TransactionalID, written: map[TP]int64{}}
	w.acked = w.ack
	if cfg.TransactionalID != "" {
		// Taking the producer id now fences (and so aborts) a transaction
		// an earlier writer of the same id left open.
		ctx, cancel := c.ctx(context.Background())
		defer cancel()
		if _, _, err := cl.ProducerID(ctx); err != nil {
			cl.Close()
			return nil, fmt.Errorf("starting the transactional producer '%s': %w", cfg.TransactionalID, err)
		}
		if err := cl.BeginTransaction(); err != nil {
			cl.Close()
			return nil, err
		}
	}
	return w, nil
}

// ProducerID returns the producer id and epoch of a transactional
// writer's open transaction: what ResumeCommit needs to commit it from
// another process.
func (w *Writer) ProducerID(ctx context.Context) (int64, int16, error) {
	return w.cl.ProducerID(ctx)
}

// Commit flushes and commits the open transaction. It returns when a
// read of committed records sees the records written (up to a few
// seconds): a broker answers the commit before it has written the
// transaction's markers, and until then a read of committed records
// ends before the transaction.
func (w *Writer) Commit(ctx context.Context) error {
	if err := w.Flush(ctx); err != nil {
		return err
	}
	if err := w.cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
		return fmt.Errorf("committing the transaction of '%s': %w", w.txnID, err)
	}
	w.waitVisible(ctx)
	return nil
}

// visibleWait bounds how long Commit waits for the markers of the
// transaction it committed.
const visibleWait = 5 * time.Second

// waitVisible waits until the last stable offset of every partition the
// transaction wrote is past its records, at most visibleWait; the records
// are committed either way, so a failed look-up only ends the wait.
func (w *Writer) waitVisible(ctx context.Context) {
	w.mu.Lock()
	written := w.written
	w.written = map[TP]int64{}
	w.mu.Unlock()
	if len(written) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, visibleWait)
	defer cancel()
	topics := topicsOf(slices.Collect(maps.Keys(written)))
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		l, err := w.c.adm.ListCommittedOffsets(ctx, topics...)
		if err != nil {
			return
		}
		behind := false
		for tp, last := range written {
			if o, ok := l.Lookup(tp.Topic, tp.Partition); !ok || o.Err != nil || o.Offset <= last {
				behind = true
			}
		}
		if !behind {
			return
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return
		}
	}
}

// Abort aborts the open transaction.
func (w *Writer) Abort(ctx context.Context) error {
	if err := w.cl.AbortBufferedRecords(ctx); err != nil {
		return err
	}
	return w.cl.EndTransaction(ctx, kgo.TryAbort)
}

// Write sends rec to its topic; its Partition counts only for the fixed
// partitioner. Write copies rec's key and value (the caller may reuse
// them at once) and keeps its headers' values until the write is
// acknowledged. Write is for one goroutine at a time.
func (w *Writer) Write(ctx context.Context, rec Record) {
	if w.b != nil {
		w.b.write(ctx, rec)
		return
	}
	if len(w.free) == 0 {
		w.mu.Lock()
		w.free, w.done = w.done, w.free
		w.mu.Unlock()
	}
	var kr *kgo.Record
	if n := len(w.free); n > 0 {
		kr = w.free[n-1]
		w.free = w.free[:n-1]
	} else {
		kr = new(kgo.Record)
	}
	// The key's slice keeps the room of both (the value's, when the key
	// is null).
	room := kr.Key[:0]
	if room == nil {
		room = kr.Value[:0]
	}
	headers := kr.Headers[:0]
	*kr = kgo.Record{Topic: rec.Topic, Partition: rec.Partition}
	b := append(append(room, rec.Key...), rec.Value...)
	if b == nil {
		b = []byte{} // an empty key or value is not a null one
	}
	if n := len(rec.Key); rec.Key != nil {
		kr.Key = b[:n]
		if rec.Value != nil {
			kr.Value = b[n:len(b):len(b)]
		}
	} else if rec.Value != nil {
		kr.Value = b
	}
	if rec.Timestamp > 0 {
		kr.Timestamp = time.UnixMilli(rec.Timestamp)
	}
	for _, h := range rec.Headers {
		headers = append(headers, kgo.RecordHeader{Key: h.Key, Value: h.Value})
	}
	if len(headers) > 0 {
		kr.Headers = headers
	}
	w.cl.Produce(ctx, kr, w.acked)
}

// ack keeps the first failure of a record written, and the record for
// the next Write.
func (w *Writer) ack(kr *kgo.Record, err error) {
	w.mu.Lock()
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("writing to topic '%s': %w", kr.Topic, err)
	}
	if err == nil && w.txnID != "" {
		tp := TP{kr.Topic, kr.Partition}
		if last, ok := w.written[tp]; !ok || kr.Offset > last {
			w.written[tp] = kr.Offset
		}
	}
	w.done = append(w.done, kr) // the client is done with it
	w.mu.Unlock()
}

// Flush waits for every record written so far and returns the first
// failure since the last Flush.
func (w *Writer) Flush(ctx context.Context) error {
	if w.b != nil {
		return w.b.flush(ctx)
	}
	if err := w.cl.Flush(ctx); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	w.err = nil
	return err
}

// Close releases the writer; records not flushed may be lost.
func (w *Writer) Close() {
	if w.b != nil {
		w.b.close()
		return
	}
	w.cl.Close()
}
