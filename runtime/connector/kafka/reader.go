package kafka

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
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
// Client was configured. The fetched records stay in the fetched bytes
// until they are handed out: a Record's Key and Value are slices of
// those bytes, never copied.
type Reader struct {
	f     *fetcher
	parts []partQueue
	// index finds a partition among parts.
	index map[TP]int
	// queued counts the records of every queue.
	queued int

	// stop ends the fetcher's goroutine, and stopped is closed when it
	// has ended.
	stop    context.CancelFunc
	stopped chan struct{}
}

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
	// out.
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
	select {
	case r.f.free <- q.recs[:0]:
	default:
	}
	r.f.handedOut(q.pending, q.size)
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
		r.f.handedOut(q.pending, c.size)
		return
	}
	r.queued += len(c.recs)
	if q.head == len(q.recs) {
		q.recs, q.head, q.size = c.recs, 0, c.size
		return
	}
	q.more = append(q.more, c)
}

// NewReader reads partitions tps from starts (the next offset to read).
// ends, when not nil, bounds the read: a partition is done when its next
// offset reaches its end.
func (c *Client) NewReader(tps []TP, starts, ends map[TP]int64) (*Reader, error) {
	r := &Reader{parts: make([]partQueue, len(tps)), index: make(map[TP]int, len(tps))}
	for i, tp := range tps {
		q := &r.parts[i]
		q.tp, q.next, q.end = tp, starts[tp], -1
		r.index[tp] = i
		if ends != nil {
			q.end = ends[tp]
		}
	}
	r.f = newFetcher(c, tps, starts, ends)
	for i := range r.parts {
		r.parts[i].pending = &r.f.parts[i].pending
	}
	return r, nil
}

// Done reports whether a bounded read of tp has reached its end.
func (r *Reader) Done(tp TP) bool {
	i, ok := r.index[tp]
	return ok && r.parts[i].done()
}

// DoneAt reports whether a bounded read of the i-th partition given to
// NewReader has reached its end.
func (r *Reader) DoneAt(i int) bool { return r.parts[i].done() }

// Position returns, by partition, where a resumed read starts: the
// offset after the last record handed out, or past the transaction
// markers, aborted records and compaction gaps fetched after it.
func (r *Reader) Position() map[TP]int64 {
	out := make(map[TP]int64, len(r.parts))
	for i := range r.parts {
		out[r.parts[i].tp] = r.parts[i].next
	}
	return out
}

// fetchPartitionBytes is the most a fetch asks of one partition (a
// batch larger than that still comes whole): 256 KiB, where the client
// library's default is 1 MiB. The records fetched and not yet handed out
// are most of a read's memory, and 1 MiB or 4 MiB took as much CPU for a
// topic read from its start.
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
func (r *Reader) Start(wake func()) { r.startFetcher(wake) }

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
		select {
		case res, ok := <-r.f.out:
			if err := r.queueResult(res, ok); err != nil {
				return Record{}, false, err
			}
		default:
			return Record{}, false, nil
		}
	}
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

// fetch waits for the fetcher's next result (at most wait when
// positive) and queues it.
func (r *Reader) fetch(ctx context.Context, wait time.Duration) error {
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
	if r.stopped != nil {
		<-r.stopped
	}
}
