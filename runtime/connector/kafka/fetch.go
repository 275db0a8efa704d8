package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetcher is how a Reader fetches: on a goroutine of its own, it sends
// fetch requests to the leaders of the partitions (the brokers'
// metadata), one request a leader at a time, and parses the record
// batches of the answers itself (batchParser) into records that are
// slices of the answers' bytes. The client library's consumer makes an
// object of each record and buffers each partition's fetches itself,
// about 0.15 µs a record. Transaction markers come as control records;
// aborted transactions are read, as read_uncommitted reads them.
//
// A read of committed records (read_committed) asks the brokers for them
// and drops the aborted transactions with the client library's parser
// (kgo.ProcessFetchPartition), which also reads record batches of a
// format before magic 2 (Kafka 0.11) in either read.
//
// Either way a partition's position is the offset after the last batch
// fetched whole, not after its last record: a bounded read reaches its
// end past transaction markers, aborted transactions and the offsets
// that a compaction removed at the end of a batch. (Flink's
// KafkaPartitionSplitReader finishes a split when the consumer's
// position reaches the stopping offset, for the same reason: "Control
// messages may follow the last record".) An answer with no batch at all
// ends a bounded read whose end is at or before the partition's high
// watermark (emptyUpTo).
//
// On a retriable error (a leader moved, a broker restarting) the fetcher
// looks the leaders up again and fetches again, a few times with a
// back-off; on an offset out of range it starts again at the partition's
// first offset.
type fetcher struct {
	c      *Client
	parts  []fetchPart
	topics map[string]*fetchTopic
	parser batchParser
	// round counts the rounds of requests: each asks for the partitions
	// of a leader in another order. A broker gives a batch larger than
	// a partition's share only to the first partition of a request that
	// has one, so that the others wait for a round where they are first.
	round int

	// out carries the fetches to the Reader; free brings back the
	// record slices it copied.
	out  chan fetchResult
	free chan []fetchedRecord
	// more wakes the fetcher when the Reader has handed out a fetch.
	more chan struct{}
}

// fetchPart is a partition as the fetcher sees it: the offset to fetch
// next, where a bounded read ends (-1: never), and the retriable errors
// in a row.
type fetchPart struct {
	tp        TP
	next, end int64
	fails     int
	topic     *fetchTopic
	// pending counts the bytes of the fetches of the partition that the
	// Reader has not handed out: the partition is fetched again when
	// they are less than a fetch's share, so that a read that merges
	// partitions by time, waiting for one, does not hold all of the
	// others meanwhile.
	pending atomic.Int64
}

func (p *fetchPart) active() bool { return p.end < 0 || p.next < p.end }

// fetchTopic is a topic's id and its partitions' leaders; stale when they
// are to be looked up again.
type fetchTopic struct {
	name    string
	id      [16]byte
	leaders []int32
	stale   atomic.Bool
}

// fetchChunk is what one fetch gave of the part-th partition: its
// records, and the offset it fetched up to (after gaps and markers).
type fetchChunk struct {
	part int
	recs []fetchedRecord
	upTo int64
	size int // the bytes it came in
}

// fetchResult is one round of fetches: chunks, or an error that ends the
// read. retries is the most retriable errors in a row of a partition
// fetched in the round (the fetcher waits a back-off before the next).
type fetchResult struct {
	chunks  []fetchChunk
	err     error
	retries int
}

const (
	// fetchRetries is how many retriable errors in a row a partition may
	// meet before the read fails.
	fetchRetries = 10
	// fetchWait is how long a broker holds a fetch with nothing to give.
	fetchWait = 200 * time.Millisecond
)

func newFetcher(c *Client, tps []TP, starts, ends map[TP]int64) *fetcher {
	f := &fetcher{
		c: c, parts: make([]fetchPart, len(tps)), topics: map[string]*fetchTopic{},
		parser: batchParser{decompressor: kgo.DefaultDecompressor()},
		out:    make(chan fetchResult, 2), free: make(chan []fetchedRecord, 8), more: make(chan struct{}, 1),
	}
	for i, tp := range tps {
		p := &f.parts[i]
		p.tp, p.next, p.end = tp, starts[tp], -1
		if ends != nil {
			p.end = ends[tp]
		}
		t := f.topics[tp.Topic]
		if t == nil {
			t = &fetchTopic{name: tp.Topic}
			t.stale.Store(true)
			f.topics[tp.Topic] = t
		}
		p.topic = t
	}
	return f
}

// run fetches until ctx ends, or until a bounded read has fetched every
// partition to its end; it closes out when it returns. wake is called
// after each result it sends.
func (f *fetcher) run(ctx context.Context, wake func()) {
	defer close(f.out)
	for ctx.Err() == nil {
		byLeader, retries, held, err := f.plan(ctx)
		if err != nil {
			f.send(ctx, fetchResult{err: err}, wake)
			return
		}
		if len(byLeader) == 0 && retries == 0 {
			if !held {
				return // a bounded read fetched it all
			}
			select {
			case <-f.more:
			case <-ctx.Done():
			}
			continue
		}
		res := fetchResult{retries: retries}
		if len(byLeader) == 1 {
			for leader, parts := range byLeader {
				r := f.fetchFrom(ctx, leader, parts)
				r.retries = max(r.retries, res.retries)
				res = r
			}
		} else {
			r := f.fetchAll(ctx, byLeader)
			r.retries = max(r.retries, res.retries)
			res = r
		}
		if ctx.Err() != nil {
			return
		}
		if res.err != nil || len(res.chunks) > 0 {
			if !f.send(ctx, res, wake) || res.err != nil {
				return
			}
		}
		if res.retries > 0 {
			select {
			case <-time.After(backoff(res.retries)):
			case <-ctx.Done():
			}
		}
	}
}

func (f *fetcher) send(ctx context.Context, res fetchResult, wake func()) bool {
	select {
	case f.out <- res:
		if wake != nil {
			wake()
		}
		return true
	case <-ctx.Done():
		return false
	}
}

// plan groups the partitions to fetch now by leader, looking up the
// leaders of the topics that need it; retries counts the retriable
// errors in a row of a partition without a leader now, held says that a
// partition waits for the Reader to hand out what was fetched.
func (f *fetcher) plan(ctx context.Context) (byLeader map[int32][]int, retries int, held bool, err error) {
	byLeader = map[int32][]int{}
	for i := range f.parts {
		p := &f.parts[i]
		if !p.active() {
			continue
		}
		if p.pending.Load() >= fetchPartitionBytes {
			held = true
			continue
		}
		t := p.topic
		if t.stale.Load() {
			id, leaders, err := f.c.leaders(ctx, t.name)
			if err != nil {
				if ctx.Err() != nil {
					return nil, 0, false, nil
				}
				return nil, 0, false, fmt.Errorf("reading partition %s at offset %d: %w", p.tp, p.next, err)
			}
			t.id, t.leaders = id, leaders
			t.stale.Store(false)
		}
		leader := int32(-1)
		if int(p.tp.Partition) < len(t.leaders) {
			leader = t.leaders[p.tp.Partition]
		}
		if leader < 0 {
			if err := f.retry(p, kerr.LeaderNotAvailable); err != nil {
				return nil, 0, false, err
			}
			retries = max(retries, p.fails)
			continue
		}
		byLeader[leader] = append(byLeader[leader], i)
	}
	f.round++
	for _, parts := range byLeader {
		k := f.round % len(parts)
		slices.Reverse(parts[:k])
		slices.Reverse(parts[k:])
		slices.Reverse(parts)
	}
	return byLeader, retries, held, nil
}

// retry counts a retriable error of a partition and marks its topic's
// leaders to be looked up again; the error it returns ends the read when
// the partition has failed too often.
func (f *fetcher) retry(p *fetchPart, err error) error {
	p.fails++
	if p.fails > fetchRetries {
		return fmt.Errorf("reading partition %s at offset %d: %w (after %d tries)", p.tp, p.next, err, fetchRetries)
	}
	p.topic.stale.Store(true)
	return nil
}

// fetchAll sends a request to each leader at once and joins the answers.
func (f *fetcher) fetchAll(ctx context.Context, byLeader map[int32][]int) fetchResult {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var res fetchResult
	for leader, parts := range byLeader {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.fetchFrom(ctx, leader, parts)
			mu.Lock()
			defer mu.Unlock()
			res.chunks = append(res.chunks, r.chunks...)
			res.retries = max(res.retries, r.retries)
			if res.err == nil {
				res.err = r.err
			}
		}()
	}
	wg.Wait()
	return res
}

// fetchFrom sends one fetch request to a leader for the given
// partitions and parses its answer. It touches only those partitions
// (and, under no lock, marks their topics stale).
func (f *fetcher) fetchFrom(ctx context.Context, leader int32, parts []int) fetchResult {
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis = int32(fetchWait / time.Millisecond)
	req.MinBytes = 1
	req.MaxBytes = 50 << 20
	if f.c.cfg.ReadCommitted {
		req.IsolationLevel = 1
	}
	for _, i := range parts {
		p := &f.parts[i]
		rt := requestTopic(&req.Topics, p.tp.Topic, func(rt *kmsg.FetchRequestTopic) string { return rt.Topic }, func() kmsg.FetchRequestTopic {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic, rt.TopicID = p.tp.Topic, p.topic.id
			return rt
		})
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = p.tp.Partition, p.next, fetchPartitionBytes
		rt.Partitions = append(rt.Partitions, rp)
	}
	kr, err := f.c.cl.Broker(int(leader)).RetriableRequest(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return fetchResult{}
		}
		// The leader cannot be reached now (it may have moved): a
		// retriable error of each partition.
		return f.failed(ctx, parts, retriable{f.c.unreachable(err)})
	}
	resp := kr.(*kmsg.FetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return f.failed(ctx, parts, err)
	}
	var res fetchResult
	// bytesBefore says that a partition before in the answer had bytes.
	bytesBefore := false
	for _, rt := range resp.Topics {
		for k := range rt.Partitions {
			rp := &rt.Partitions[k]
			i := f.find(parts, rt, rp.Partition)
			if i < 0 {
				continue
			}
			p := &f.parts[i]
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				if rerr := f.partitionError(ctx, p, err); rerr != nil {
					return fetchResult{chunks: res.chunks, err: rerr}
				}
				res.retries = max(res.retries, p.fails)
				continue
			}
			var recs []fetchedRecord
			select {
			case recs = <-f.free:
			default:
			}
			from := p.next
			recs, upTo, err := f.parse(p, rp, recs[:0])
			if err == nil && upTo == from && len(rp.RecordBatches) == 0 && !bytesBefore && resp.ThrottleMillis == 0 {
				upTo = f.emptyUpTo(p, rp)
			}
			bytesBefore = bytesBefore || len(rp.RecordBatches) > 0
			if err == nil && p.end >= 0 && upTo > p.end {
				n := len(recs)
				for n > 0 && recs[n-1].offset >= p.end {
					n--
				}
				recs, upTo = recs[:n], p.end
			}
			if upTo > from {
				p.next, p.fails = upTo, 0
				p.pending.Add(int64(len(rp.RecordBatches)))
				res.chunks = append(res.chunks, fetchChunk{part: i, recs: recs, upTo: upTo, size: len(rp.RecordBatches)})
			}
			if err != nil {
				return fetchResult{chunks: res.chunks, err: err}
			}
		}
	}
	return res
}

// parse reads the records of a partition's answer from the partition's
// next offset, and the offset after the last batch read whole: with the
// batch parser when every record of batches of magic 2 is read, with the
// client library's parser otherwise.
func (f *fetcher) parse(p *fetchPart, rp *kmsg.FetchResponseTopicPartition, out []fetchedRecord) ([]fetchedRecord, int64, error) {
	if !f.c.cfg.ReadCommitted {
		recs, upTo, err := f.parser.parse(p.tp, rp.RecordBatches, p.next, out)
		if !errors.Is(err, errOldFormat) {
			return recs, upTo, err
		}
		out = recs[:0]
	}
	level := kgo.ReadUncommitted()
	if f.c.cfg.ReadCommitted {
		level = kgo.ReadCommitted()
	}
	fp, upTo := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{
		Offset: p.next, IsolationLevel: level, Topic: p.tp.Topic, Partition: p.tp.Partition,
	}, rp, f.parser.decompressor, nil)
	for _, kr := range fp.Records {
		fr := fetchedRecord{offset: kr.Offset, ts: kr.Timestamp.UnixMilli(), key: kr.Key, value: kr.Value}
		if len(kr.Headers) > 0 {
			fr.headers = make([]Header, len(kr.Headers))
			for j, h := range kr.Headers {
				fr.headers[j] = Header{Key: h.Key, Value: h.Value}
			}
		}
		out = append(out, fr)
	}
	if fp.Err != nil {
		return out, upTo, parseError(p.tp, upTo, "%v", fp.Err)
	}
	return out, upTo, nil
}

// emptyUpTo is where a bounded read of a partition is when its answer
// had no bytes: at its end when the answer's high watermark (last stable
// offset, reading committed records) is at or past it. A broker gives
// the first partition of an answer with records at least one batch, so
// an empty answer before any bytes means no batch is left from the
// partition's offset up to the watermark: the last batches of a
// compacted partition were removed.
func (f *fetcher) emptyUpTo(p *fetchPart, rp *kmsg.FetchResponseTopicPartition) int64 {
	mark := rp.HighWatermark
	if f.c.cfg.ReadCommitted {
		mark = rp.LastStableOffset
	}
	if p.end >= 0 && p.next < p.end && mark >= p.end {
		return p.end
	}
	return p.next
}

// failed handles an error of a whole request or answer.
func (f *fetcher) failed(ctx context.Context, parts []int, err error) fetchResult {
	var res fetchResult
	for _, i := range parts {
		p := &f.parts[i]
		if rerr := f.partitionError(ctx, p, err); rerr != nil {
			return fetchResult{err: rerr}
		}
		res.retries = max(res.retries, p.fails)
	}
	return res
}

// partitionError handles a partition's error in an answer: a retriable
// one is retried, an offset out of range starts again at the first
// offset, any other ends the read.
func (f *fetcher) partitionError(ctx context.Context, p *fetchPart, err error) error {
	switch {
	case errors.Is(err, kerr.OffsetOutOfRange):
		first, lerr := f.c.Offsets(ctx, []TP{p.tp}, Earliest)
		if lerr != nil {
			return fmt.Errorf("reading partition %s at offset %d: %w; looking up its first offset: %v", p.tp, p.next, err, lerr)
		}
		p.next = first[p.tp]
		return nil
	case kerr.IsRetriable(err) || errors.As(err, new(retriable)):
		return f.retry(p, err)
	}
	return fmt.Errorf("reading partition %s at offset %d: %w", p.tp, p.next, err)
}

// find is the partition of parts that an answer's partition is.
func (f *fetcher) find(parts []int, rt kmsg.FetchResponseTopic, partition int32) int {
	for _, i := range parts {
		p := &f.parts[i]
		if p.tp.Partition == partition && (rt.Topic == p.tp.Topic || rt.Topic == "" && rt.TopicID == p.topic.id) {
			return i
		}
	}
	return -1
}

// retriable is a failure to be retried.
type retriable struct{ error }

func (r retriable) Unwrap() error { return r.error }

// handedOut is the Reader's word that it has handed out a fetch of size
// bytes of a partition.
func (f *fetcher) handedOut(pending *atomic.Int64, size int) {
	if pending.Add(-int64(size)) < fetchPartitionBytes {
		select {
		case f.more <- struct{}{}:
		default:
		}
	}
}
