package kafka

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/bits"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// batchWriter is the Writer of uncompressed records outside a
// transaction (at-least-once, the sink's default). It does what a
// producer does per record itself, on the caller's goroutine and without
// sharing anything with the client library's goroutines: it picks the
// partition (the partitioners of Writer), appends the record in Kafka's
// wire form to the open record batch of that partition, and hands sealed
// batches to a goroutine of its own that sends them, one produce request
// to a partition leader at a time (acks = all), and sends a batch again
// after a retriable error. Handing each record to the client library cost
// a lock shared with its goroutines, its partitioner, the clock and a
// callback per record: about 0.4 µs a record, half the cost of the
// keyed-count function itself.
//
// A batch is sent when it holds batchBytes, or when the linger has passed
// since the first record waiting was written (no linger: whenever the
// sending goroutine is free). Records without a timestamp get the time of
// the batch they wait in, read at most every clockEvery records and at
// most a linger before they are sent, as a producer stamps them when they
// are written. Batches carry no producer id: a batch sent again after a
// request whose answer was lost may be written twice, which at-least-once
// allows.
type batchWriter struct {
	c      *Client
	part   string // the partitioner
	linger time.Duration

	// ctx ends the requests when the writer closes.
	ctx  context.Context
	stop context.CancelFunc
	done chan struct{} // closed when the sending goroutine has ended

	mu sync.Mutex
	// cond wakes the sending goroutine (work, close) and the writers
	// waiting for room or for a flush (a request answered).
	cond   sync.Cond
	topics map[string]*topicBatches
	last   *topicBatches // the topic of the last record written
	// waiting counts the records in open batches; queue holds sealed
	// batches in the order they are to be sent, queued their bytes.
	waiting int
	queue   []*batch
	queued  int
	sending bool // a request is out
	err     error
	closed  bool
	timer   *time.Timer // seals the open batches when the linger has passed
	armed   bool
	// now is the time of records without one (epoch ms); sinceNow
	// counts the records since it was read.
	now      int64
	sinceNow int
	free     [][]byte // the bytes of batches sent, for the next
}

// topicBatches is what a batchWriter knows of a topic: its partitions'
// leaders and open batches.
type topicBatches struct {
	name    string
	id      [16]byte
	leaders []int32
	open    []*batch
	rr      int // the next partition of the round-robin partitioner
	sticky  int // the partition of records without a key (default partitioner)
	stale   bool
}

// batch is one record batch of a partition.
type batch struct {
	t     *topicBatches
	part  int32
	buf   []byte // batchHeader bytes of room for the header, then the records
	n     int32
	first int64 // the first record's timestamp, the batch's base
	max   int64
	tries int
}

const (
	// batchBytes is the size at which a partition's batch is sealed: below
	// the brokers' default limit on a batch (message.max.bytes, 1 MiB).
	batchBytes = 512 << 10
	// maxQueued is how many bytes of sealed batches may wait for the
	// sending goroutine before Write waits.
	maxQueued = 8 << 20
	// batchHeader is the size of a record batch's header (magic 2).
	batchHeader = 61
	// clockEvery is how many records may share one reading of the clock.
	clockEvery = 64
	// produceRetries is how often a batch is sent again after a
	// retriable error (the other writer's RecordRetries).
	produceRetries = 10
	// produceTimeout is the brokers' limit on a produce request's wait
	// for its replicas.
	produceTimeout = 30 * time.Second
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newBatchWriter(c *Client, cfg WriterConfig, linger time.Duration) *batchWriter {
	b := &batchWriter{c: c, part: cfg.Partitioner, linger: linger, topics: map[string]*topicBatches{}, done: make(chan struct{})}
	b.cond.L = &b.mu
	b.ctx, b.stop = context.WithCancel(context.Background())
	if linger > 0 {
		b.timer = time.AfterFunc(time.Hour, b.lingered)
		b.timer.Stop()
	}
	go b.run()
	return b
}

// write appends rec to its partition's open batch.
func (b *batchWriter) write(ctx context.Context, rec Record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.queued > maxQueued && !b.closed && ctx.Err() == nil {
		b.cond.Wait()
	}
	if b.closed || b.err != nil {
		return // what failed is said by the next Flush
	}
	t := b.last
	if t == nil || t.name != rec.Topic || t.stale {
		var err error
		if t, err = b.topic(ctx, rec.Topic); err != nil {
			b.err = err
			return
		}
		b.last = t
	}
	p, err := b.partition(t, rec)
	if err != nil {
		b.err = err
		return
	}
	ts := rec.Timestamp
	if ts <= 0 {
		if b.waiting == 0 || b.sinceNow >= clockEvery {
			b.now, b.sinceNow = time.Now().UnixMilli(), 0
		}
		b.sinceNow++
		ts = b.now
	}
	bt := t.open[p]
	if bt == nil {
		bt = &batch{t: t, part: int32(p), buf: b.room()}
		t.open[p] = bt
	}
	bt.add(rec.Key, rec.Value, ts, rec.Headers)
	b.waiting++
	if len(bt.buf) >= batchBytes {
		b.seal(bt)
		b.cond.Broadcast()
	}
	switch {
	case b.linger <= 0:
		if !b.sending {
			b.cond.Broadcast() // the sending goroutine takes it now
		}
	case !b.armed && b.waiting > 0:
		b.armed = true
		b.timer.Reset(b.linger)
	}
}

// room returns the bytes of a new batch, with room for its header.
func (b *batchWriter) room() []byte {
	if n := len(b.free); n > 0 {
		buf := b.free[n-1]
		b.free = b.free[:n-1]
		return buf[:batchHeader]
	}
	return make([]byte, batchHeader, 64<<10)
}

// partition picks the partition of rec in t, as the Writer's
// partitioner does.
func (b *batchWriter) partition(t *topicBatches, rec Record) (int, error) {
	n := len(t.open)
	switch b.part {
	case PartitionFixed:
		if rec.Partition < 0 || int(rec.Partition) >= n {
			return 0, fmt.Errorf("writing to topic '%s': partition %d of %d", t.name, rec.Partition, n)
		}
		return int(rec.Partition), nil
	case PartitionRoundRobin:
		p := t.rr % n
		t.rr = p + 1
		return p, nil
	}
	if rec.Key == nil {
		// Kafka's sticky partitioner: records without a key fill one
		// partition's batch, then the next's.
		return t.sticky % n, nil
	}
	return int(murmur2(rec.Key)&0x7fffffff) % n, nil
}

// topic looks up the partitions of a topic and their leaders.
func (b *batchWriter) topic(ctx context.Context, name string) (*topicBatches, error) {
	t := b.topics[name]
	if t != nil && !t.stale {
		return t, nil
	}
	id, leaders, err := b.c.leaders(ctx, name)
	if err != nil {
		return nil, err
	}
	if t == nil {
		t = &topicBatches{name: name}
		b.topics[name] = t
	}
	if len(t.open) < len(leaders) { // partitions added: the open batches stay
		t.open = append(t.open, make([]*batch, len(leaders)-len(t.open))...)
	}
	t.id, t.leaders, t.stale = id, leaders, false
	return t, nil
}

// seal moves a partition's open batch to the queue.
func (b *batchWriter) seal(bt *batch) {
	bt.t.open[bt.part] = nil
	if b.part == PartitionDefault || b.part == "" {
		bt.t.sticky = int(bt.part) + 1 // a new batch: the next partition
	}
	bt.finish()
	b.waiting -= int(bt.n)
	b.queue = append(b.queue, bt)
	b.queued += len(bt.buf)
}

// sealAll seals every open batch.
func (b *batchWriter) sealAll() {
	for _, t := range b.topics {
		for _, bt := range t.open {
			if bt != nil {
				b.seal(bt)
			}
		}
	}
	b.waiting = 0
}

// lingered seals what waited a linger.
func (b *batchWriter) lingered() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	if b.waiting > 0 {
		b.sealAll()
		b.cond.Broadcast()
	}
}

// run is the sending goroutine.
func (b *batchWriter) run() {
	defer close(b.done)
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if len(b.queue) == 0 && b.linger <= 0 && b.waiting > 0 {
			b.sealAll()
		}
		if len(b.queue) == 0 {
			if b.closed {
				return
			}
			b.cond.Wait()
			continue
		}
		// One request to one leader: at most one batch a partition.
		req, in, rest := b.request()
		b.queue = rest
		b.sending = true
		b.mu.Unlock()
		retry, err := b.send(req, in)
		b.mu.Lock()
		b.sending = false
		for _, bt := range in {
			if !contains(retry, bt) {
				b.queued -= len(bt.buf)
				b.free = append(b.free, bt.buf[:0])
			}
		}
		if err != nil && b.err == nil {
			b.err = err
		}
		if err != nil && len(in) == 0 {
			// The leaders of the queued batches' topics could not be
			// looked up: they are not sent (the error says why).
			kept := b.queue[:0]
			for _, bt := range b.queue {
				if bt.t.stale {
					b.queued -= len(bt.buf)
				} else {
					kept = append(kept, bt)
				}
			}
			b.queue = kept
		}
		if len(retry) > 0 {
			if b.err != nil || b.closed {
				for _, bt := range retry {
					b.queued -= len(bt.buf)
				}
			} else {
				// Before what came after them: a partition's batches go
				// out in order.
				b.queue = append(retry, b.queue...)
			}
		}
		b.cond.Broadcast()
	}
}

func contains(bs []*batch, bt *batch) bool {
	for _, x := range bs {
		if x == bt {
			return true
		}
	}
	return false
}

// request takes from the queue the batches of one request: those of the
// first batch's leader, the first of each partition.
func (b *batchWriter) request() (*kmsg.ProduceRequest, []*batch, []*batch) {
	first := b.queue[0]
	leader := first.t.leaders[first.part]
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = int32(produceTimeout / time.Millisecond)
	var in, rest []*batch
	for _, bt := range b.queue {
		if bt.t.stale || bt.t.leaders[bt.part] != leader || inRequest(in, bt) {
			rest = append(rest, bt)
			continue
		}
		in = append(in, bt)
		rt := requestTopic(&req.Topics, bt.t.name, func(rt *kmsg.ProduceRequestTopic) string { return rt.Topic }, func() kmsg.ProduceRequestTopic {
			rt := kmsg.NewProduceRequestTopic()
			rt.Topic, rt.TopicID = bt.t.name, bt.t.id
			return rt
		})
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition, rp.Records = bt.part, bt.buf
		rt.Partitions = append(rt.Partitions, rp)
	}
	return req, in, rest
}

func inRequest(in []*batch, bt *batch) bool {
	for _, x := range in {
		if x.t == bt.t && x.part == bt.part {
			return true
		}
	}
	return false
}

// send sends one request and returns the batches to send again, and the
// first failure that is not to be retried.
func (b *batchWriter) send(req *kmsg.ProduceRequest, in []*batch) ([]*batch, error) {
	if len(in) == 0 {
		// Every queued batch's topic waits for its leaders: look them up.
		return nil, b.refresh(b.queueTopics())
	}
	leader := in[0].t.leaders[in[0].part]
	var resp *kmsg.ProduceResponse
	var err error
	if leader < 0 {
		err = kerr.LeaderNotAvailable
	} else {
		var kr kmsg.Response
		kr, err = b.c.cl.Broker(int(leader)).RetriableRequest(b.ctx, req)
		if err == nil {
			resp = kr.(*kmsg.ProduceResponse)
		}
	}
	if err != nil {
		if b.ctx.Err() != nil {
			return nil, errors.New("the writer was closed")
		}
		return b.again(in, fmt.Errorf("writing to topic '%s': %w", in[0].t.name, err))
	}
	var retry []*batch
	var failed error
	answered := 0
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			bt := findBatch(in, rt, rp.Partition)
			if bt == nil {
				continue
			}
			answered++
			err := kerr.ErrorForCode(rp.ErrorCode)
			switch {
			case err == nil:
			case kerr.IsRetriable(err) && bt.tries < produceRetries:
				bt.tries++
				bt.t.stale = true
				retry = append(retry, bt)
			case failed == nil:
				failed = fmt.Errorf("writing to topic '%s' partition %d: %w", bt.t.name, bt.part, err)
			}
		}
	}
	if answered < len(in) && failed == nil {
		failed = fmt.Errorf("writing to topic '%s': the broker answered for %d of %d partitions", in[0].t.name, answered, len(in))
	}
	if len(retry) > 0 && failed == nil {
		time.Sleep(backoff(retry[0].tries))
		if err := b.refresh(retry); err != nil {
			return nil, err
		}
	}
	return retry, failed
}

// again is the retry of every batch of a request that failed as a whole.
func (b *batchWriter) again(in []*batch, err error) ([]*batch, error) {
	for _, bt := range in {
		if bt.tries >= produceRetries {
			return nil, err
		}
		bt.tries++
		bt.t.stale = true
	}
	time.Sleep(backoff(in[0].tries))
	if rerr := b.refresh(in); rerr != nil {
		return nil, fmt.Errorf("%w (%v)", err, rerr)
	}
	return in, nil
}

func backoff(tries int) time.Duration {
	return min(time.Duration(tries)*100*time.Millisecond, time.Second)
}

// refresh looks up again the leaders of the batches' topics.
func (b *batchWriter) refresh(bs []*batch) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := map[string]bool{}
	for _, bt := range bs {
		if !seen[bt.t.name] {
			seen[bt.t.name] = true
			if _, err := b.topic(b.ctx, bt.t.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// queueTopics is a batch of each stale topic of the queue.
func (b *batchWriter) queueTopics() []*batch {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*batch
	for _, bt := range b.queue {
		if bt.t.stale {
			out = append(out, bt)
		}
	}
	return out
}

func findBatch(in []*batch, rt kmsg.ProduceResponseTopic, part int32) *batch {
	for _, bt := range in {
		if bt.part == part && (rt.Topic == bt.t.name || rt.Topic == "" && rt.TopicID == bt.t.id) {
			return bt
		}
	}
	return nil
}

// flush sends every record written so far, waits for the answers and
// returns the first failure since the last flush.
func (b *batchWriter) flush(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	})
	defer stop()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiting > 0 {
		b.sealAll()
		b.cond.Broadcast()
	}
	for (len(b.queue) > 0 || b.sending) && !b.closed {
		if err := ctx.Err(); err != nil {
			return err
		}
		b.cond.Wait()
	}
	err := b.err
	b.err = nil
	return err
}

// close ends the sending goroutine; records not flushed are dropped.
func (b *batchWriter) close() {
	b.mu.Lock()
	b.closed = true
	b.queue = nil
	b.cond.Broadcast()
	b.mu.Unlock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.stop()
	<-b.done
}

// add appends a record (Kafka's record format of magic 2: its length,
// attributes, timestamp and offset deltas, key, value and headers, the
// numbers as zigzag varints).
func (bt *batch) add(key, value []byte, ts int64, headers []Header) {
	if bt.n == 0 {
		bt.first, bt.max = ts, ts
	}
	bt.max = max(bt.max, ts)
	delta := ts - bt.first
	size := 1 + varintLen(delta) + varintLen(int64(bt.n)) + bytesLen(key) + bytesLen(value) + varintLen(int64(len(headers)))
	for _, h := range headers {
		size += varintLen(int64(len(h.Key))) + len(h.Key) + bytesLen(h.Value)
	}
	buf := binary.AppendVarint(bt.buf, int64(size))
	buf = append(buf, 0)
	buf = binary.AppendVarint(buf, delta)
	buf = binary.AppendVarint(buf, int64(bt.n))
	buf = appendBytes(buf, key)
	buf = appendBytes(buf, value)
	buf = binary.AppendVarint(buf, int64(len(headers)))
	for _, h := range headers {
		buf = binary.AppendVarint(buf, int64(len(h.Key)))
		buf = append(buf, h.Key...)
		buf = appendBytes(buf, h.Value)
	}
	bt.buf = buf
	bt.n++
}

// finish writes the batch's header: no compression, CreateTime, no
// producer id, and the CRC-32C of what follows the CRC.
func (bt *batch) finish() {
	h := bt.buf[:batchHeader]
	be := binary.BigEndian
	be.PutUint64(h[0:], 0)                      // base offset
	be.PutUint32(h[8:], uint32(len(bt.buf)-12)) // length of what follows
	be.PutUint32(h[12:], 0xffffffff)            // partition leader epoch: -1
	h[16] = 2                                   // magic
	be.PutUint16(h[21:], 0)                     // attributes
	be.PutUint32(h[23:], uint32(bt.n-1))        // last offset delta
	be.PutUint64(h[27:], uint64(bt.first))      // base timestamp
	be.PutUint64(h[35:], uint64(bt.max))        // max timestamp
	be.PutUint64(h[43:], 0xffffffffffffffff)    // producer id: -1
	be.PutUint16(h[51:], 0xffff)                // producer epoch: -1
	be.PutUint32(h[53:], 0xffffffff)            // base sequence: -1
	be.PutUint32(h[57:], uint32(bt.n))          // records
	be.PutUint32(h[17:], crc32.Checksum(bt.buf[21:], castagnoli))
}

// varintLen is the length of x as a zigzag varint.
func varintLen(x int64) int {
	ux := uint64(x) << 1
	if x < 0 {
		ux = ^ux
	}
	return (bits.Len64(ux|1) + 6) / 7
}

// bytesLen is the length of a record's key or value: its length as a
// varint (-1: null), then its bytes.
func bytesLen(b []byte) int {
	if b == nil {
		return 1
	}
	return varintLen(int64(len(b))) + len(b)
}

func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(b))), b...)
}

// murmur2 is Kafka's hash of a record key for its default partitioner
// (org.apache.kafka.common.utils.Utils.murmur2: seed 0x9747b28c).
func murmur2(data []byte) uint32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	for len(data) >= 4 {
		k := binary.LittleEndian.Uint32(data)
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return h
}
