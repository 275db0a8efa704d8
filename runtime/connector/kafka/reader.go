package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Header is a record header.
type Header struct {
	Key   string
	Value []byte
}

// Record is one Kafka record. A Record that a Reader hands out shares its
// byte slices with the fetch they came in: they are not to be changed.
type Record struct {
	TP
	// Part is the place of the record's partition among those a Reader
	// was made for (NewReader's tps); a Writer ignores it.
	Part   int
	Offset int64
	// Timestamp is the record's time in epoch milliseconds.
	Timestamp int64
	// Key and Value are nil for a null key or value (a tombstone).
	Key, Value []byte
	Headers    []Header
}

// Reader fetches the records of chosen partitions, each from a start
// offset up to an end offset (bounded) or without end, each partition in
// offset order. A bounded read merges the partitions by timestamp (ties by
// the order of the partitions given), so that it gives the same records in
// the same order every time (Next). An unbounded read fetches on a
// goroutine of its own once started (Start) and hands out, without
// waiting, the records fetched so far, the earliest of one fetch first
// (TryNext). Close releases it.
//
// A Reader fetches with a fetcher of its own, which reads every record
// (read_uncommitted) or only committed ones (read_committed) as the
// Client was configured. The fetched records stay in
// the fetched bytes until they are handed out: a Record's Key and Value
// are slices of those bytes, never copied.
type Reader struct {
	c     *Client
	cl    *kgo.Client // the client library's consumer, or nil
	f     *fetcher    // the fetcher of a read of every record, or nil
	parts []partQueue
	// index finds a partition among parts.
	index map[TP]int
	// queued counts the records of every queue.
	queued int

	// fetched carries the fetches of the goroutine of an unbounded read
	// (Start); stop ends it, and stopped is closed when it has ended.
	fetched chan kgo.Fetches
	stop    context.CancelFunc
	stopped chan struct{}
}

// ownFetch says whether Readers use the fetcher; false, the client
// library's consumer, is what tests compare the fetcher with (it does
// not see where a fetch got to past the last record it gives, so a
// bounded read whose end is past the last record of a partition never
// ends).
var ownFetch = true

// partQueue is one partition of a Reader: where it is, where it ends,
// and its records fetched and not handed out yet (recs[head:]).
type partQueue struct {
	tp TP
	// next is the offset after the last record handed out.
	next int64
	// end is the offset a bounded read stops before; -1: unbounded.
	end int64
	// upTo is the offset the fetcher fetched the partition up to: when
	// every record fetched has been handed out, the partition is there
	// (past transaction markers and the gaps of a compacted topic).
	upTo int64
	// recs[head:] are the records of the oldest fetch not handed out
	// yet, and more the records of the fetches after it, each fetch's
	// slice as it came.
	recs []fetchedRecord
	head int
	more []fetchChunk
	// size is the bytes the fetch of recs came in; pending, the
	// fetcher's count of the partition's bytes fetched and not handed
	// out (nil: the client library's consumer).
	size    int
	pending *atomic.Int64
	// ready says that recs[head] is a record, not a transaction marker,
	// and ts is its timestamp in epoch milliseconds.
	ready bool
	ts    int64
}

// done reports whether a bounded read of the partition reached its end.
func (q *partQueue) done() bool { return q.end >= 0 && q.next >= q.end }

// front drops the transaction markers at the head of the queue (they only
// move the partition's next offset) and reports whether a record is
// there; ts is then its timestamp.
func (q *partQueue) front(r *Reader) bool {
	if q.ready {
		return true
	}
	for q.head < len(q.recs) {
		kr := &q.recs[q.head]
		if !kr.control {
			q.ts, q.ready = kr.ts, true
			return true
		}
		if kr.offset >= q.next {
			q.next = kr.offset + 1
		}
		q.pop(r)
	}
	if q.upTo > q.next {
		q.next = q.upTo
	}
	return false
}

// pop drops the record at the head of the queue.
func (q *partQueue) pop(r *Reader) {
	q.head++
	q.ready = false
	r.queued--
	if q.head < len(q.recs) {
		return
	}
	// The fetch is handed out: its slice goes back to the fetcher (the
	// slots keep their records' bytes until it is used again), which
	// may fetch the partition again.
	if r.f != nil {
		select {
		case r.f.free <- q.recs[:0]:
		default:
		}
		r.f.handedOut(q.pending, q.size)
	}
	q.recs, q.head, q.size = nil, 0, 0
	if len(q.more) > 0 {
		q.recs, q.size = q.more[0].recs, q.more[0].size
		q.more[0] = fetchChunk{}
		q.more = q.more[1:]
	}
}

// queue adds the records of one fetch.
func (q *partQueue) queue(r *Reader, c fetchChunk) {
	if len(c.recs) == 0 {
		if r.f != nil {
			r.f.handedOut(q.pending, c.size)
		}
		return
	}
	r.queued += len(c.recs)
	if q.head == len(q.recs) {
		q.recs, q.head, q.size = c.recs, 0, c.size
		return
	}
	q.more = append(q.more, c)
}

// push queues the records of one fetch of the partition by the client
// library: those before the end of a bounded read.
func (q *partQueue) push(r *Reader, recs []*kgo.Record) {
	if q.end >= 0 {
		n := 0
		for n < len(recs) && recs[n].Offset < q.end {
			n++
		}
		recs = recs[:n]
	}
	if len(recs) == 0 {
		return
	}
	out := fetchChunk{recs: make([]fetchedRecord, 0, len(recs))}
	for _, kr := range recs {
		fr := fetchedRecord{offset: kr.Offset, ts: kr.Timestamp.UnixMilli(), key: kr.Key, value: kr.Value, control: kr.Attrs.IsControl()}
		if len(kr.Headers) > 0 {
			fr.headers = make([]Header, len(kr.Headers))
			for j, h := range kr.Headers {
				fr.headers[j] = Header{Key: h.Key, Value: h.Value}
			}
		}
		out.recs = append(out.recs, fr)
	}
	q.queue(r, out)
}

// NewReader reads partitions tps from starts (the next offset to read).
// ends, when not nil, bounds the read: a partition is done when its next
// offset reaches its end.
func (c *Client) NewReader(tps []TP, starts, ends map[TP]int64) (*Reader, error) {
	r := &Reader{c: c, parts: make([]partQueue, len(tps)), index: make(map[TP]int, len(tps))}
	for i, tp := range tps {
		q := &r.parts[i]
		q.tp, q.next, q.end = tp, starts[tp], -1
		r.index[tp] = i
		if ends != nil {
			q.end = ends[tp]
		}
	}
	if ownFetch {
		r.f = newFetcher(c, tps, starts, ends)
		for i := range r.parts {
			r.parts[i].pending = &r.f.parts[i].pending
		}
		return r, nil
	}
	if err := r.consume(starts); err != nil {
		return nil, err
	}
	return r, nil
}

// consume makes the client library's consumer of the Reader's
// partitions, each from its offset in starts.
func (r *Reader) consume(starts map[TP]int64) error {
	c := r.c
	assign := map[string]map[int32]kgo.Offset{}
	for i := range r.parts {
		q := &r.parts[i]
		tp := q.tp
		if q.end >= 0 && starts[tp] >= q.end {
			continue
		}
		if assign[tp.Topic] == nil {
			assign[tp.Topic] = map[int32]kgo.Offset{}
		}
		assign[tp.Topic][tp.Partition] = kgo.NewOffset().At(starts[tp])
	}
	opts := append(c.cfg.opts(),
		kgo.ConsumePartitions(assign),
		kgo.KeepControlRecords(),
		// Fetches of 256 KiB a partition (the client's default is 1 MiB):
		// the records fetched and not yet handed out are most of a read's
		// memory, and 1 MiB or 4 MiB took as much CPU for a topic read
		// from its start.
		kgo.FetchMaxPartitionBytes(fetchPartitionBytes),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if c.cfg.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	r.cl = cl
	return nil
}

// Done reports whether a bounded read of tp has reached its end.
func (r *Reader) Done(tp TP) bool {
	i, ok := r.index[tp]
	return ok && r.parts[i].done()
}

// DoneAt reports whether a bounded read of the i-th partition given to
// NewReader has reached its end.
func (r *Reader) DoneAt(i int) bool { return r.parts[i].done() }

// Position returns, by partition, the offset after the last record
// handed out: where a resumed read starts.
func (r *Reader) Position() map[TP]int64 {
	out := make(map[TP]int64, len(r.parts))
	for i := range r.parts {
		out[r.parts[i].tp] = r.parts[i].next
	}
	return out
}

// fetchPartitionBytes is the most a fetch asks of one partition (a
// batch larger than that still comes whole).
const fetchPartitionBytes = 256 << 10

// ErrIdle is what Next returns when no record came within the wait.
var ErrIdle = errors.New("no record within the wait")

// Next returns the next record. ok is false when a bounded read has
// reached the end of every partition. With wait > 0, Next returns ErrIdle
// when a partition it needs stayed empty that long.
func (r *Reader) Next(ctx context.Context, wait time.Duration) (rec Record, ok bool, err error) {
	bounded := len(r.parts) > 0 && r.parts[0].end >= 0
	for {
		best, missing := -1, false
		for i := range r.parts {
			q := &r.parts[i]
			if !q.front(r) {
				if q.done() {
					continue
				}
				if bounded {
					// A bounded read merges: it waits for every partition.
					missing = true
					break
				}
				continue // an unbounded read hands out what has come
			}
			if best < 0 || q.ts < r.parts[best].ts {
				best = i
			}
		}
		if !missing && (best >= 0 || bounded) {
			if best < 0 {
				return Record{}, false, nil
			}
			return r.take(best), true, nil
		}
		if err := r.fetch(ctx, wait); err != nil {
			return Record{}, false, err
		}
	}
}

// take hands out the record at the head of partition i's queue, which
// front found.
func (r *Reader) take(i int) Record {
	q := &r.parts[i]
	kr := &q.recs[q.head]
	rec := Record{TP: q.tp, Part: i, Offset: kr.offset, Timestamp: q.ts, Key: kr.key, Value: kr.value, Headers: kr.headers}
	q.next = kr.offset + 1
	q.pop(r)
	return rec
}

// Start makes an unbounded read fetch on a goroutine of its own until
// Close, so that TryNext never waits: wake is called on that goroutine
// whenever a fetch (records, or an error) has come. At most a few fetches
// wait for TryNext; the goroutine waits when they do.
func (r *Reader) Start(wake func()) {
	if r.f != nil {
		r.startFetcher(wake)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	r.fetched, r.stop, r.stopped = make(chan kgo.Fetches, 2), stop, make(chan struct{})
	go func() {
		defer close(r.stopped)
		for {
			fs := r.cl.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			select {
			case r.fetched <- fs:
				wake()
			case <-ctx.Done():
				return
			}
		}
	}()
}

// TryNext returns the next record of an unbounded read that Start
// started, without waiting: ok is false when none has been fetched. The
// records of one fetch come the earliest first; a partition's, in offset
// order.
func (r *Reader) TryNext() (rec Record, ok bool, err error) {
	for {
		if r.queued > 0 {
			best := -1
			for i := range r.parts {
				if q := &r.parts[i]; q.front(r) && (best < 0 || q.ts < r.parts[best].ts) {
					best = i
				}
			}
			if best >= 0 {
				return r.take(best), true, nil
			}
		}
		if r.f != nil {
			select {
			case res, ok := <-r.f.out:
				if err := r.queueResult(res, ok); err != nil {
					return Record{}, false, err
				}
			default:
				return Record{}, false, nil
			}
			continue
		}
		select {
		case fs := <-r.fetched:
			if err := r.queueFetches(fs); err != nil {
				return Record{}, false, err
			}
		default:
			return Record{}, false, nil
		}
	}
}

// fetch polls once and queues what came.
func (r *Reader) fetch(ctx context.Context, wait time.Duration) error {
	if r.f != nil {
		return r.fetchOwn(ctx, wait)
	}
	pctx := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	fs := r.cl.PollFetches(pctx)
	if err := ctx.Err(); err != nil {
		return err
	}
	got := r.queued > 0
	if err := r.queueFetches(fs); err != nil {
		return err
	}
	if !got && r.queued == 0 && wait > 0 && pctx.Err() != nil {
		return ErrIdle
	}
	return nil
}

// queueFetches queues the records of fetches, or returns the first error
// of a partition.
func (r *Reader) queueFetches(fs kgo.Fetches) error {
	var ferr error
	fs.EachError(func(t string, p int32, err error) {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return
		}
		if ferr == nil {
			ferr = fmt.Errorf("reading partition %s: %w", TP{t, p}, err)
		}
	})
	if ferr != nil {
		return ferr
	}
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if i, ok := r.index[TP{p.Topic, p.Partition}]; ok {
			r.parts[i].push(r, p.Records)
		}
	})
	return nil
}

// startFetcher starts the fetcher's goroutine, once.
func (r *Reader) startFetcher(wake func()) {
	if r.stop != nil {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	r.stop, r.stopped = stop, make(chan struct{})
	go func() {
		defer close(r.stopped)
		r.f.run(ctx, wake)
	}()
}

// fetchOwn waits for the fetcher's next result (at most wait when
// positive) and queues it.
func (r *Reader) fetchOwn(ctx context.Context, wait time.Duration) error {
	r.startFetcher(nil)
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case res, ok := <-r.f.out:
		return r.queueResult(res, ok)
	case <-ctx.Done():
		return ctx.Err()
	case <-timeout:
		return ErrIdle
	}
}

// queueResult queues the records of one result of the fetcher; ok is
// false when the fetcher has ended.
func (r *Reader) queueResult(res fetchResult, ok bool) error {
	if !ok {
		return errors.New("the fetch of the partitions ended before their end offsets")
	}
	for _, c := range res.chunks {
		q := &r.parts[c.part]
		q.upTo = max(q.upTo, c.upTo)
		q.queue(r, c) // the fetcher stopped them at the end of a bounded read
	}
	return res.err
}

// Close releases the reader and ends the goroutine of an unbounded read.
func (r *Reader) Close() {
	if r.stop != nil {
		r.stop()
	}
	if r.cl != nil {
		r.cl.Close()
	}
	if r.stopped != nil {
		<-r.stopped
	}
}
