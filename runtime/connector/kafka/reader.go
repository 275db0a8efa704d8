package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Header is a record header.
type Header struct {
	Key   string
	Value []byte
}

// Record is one Kafka record. Its byte slices belong to the record.
type Record struct {
	TP
	Offset int64
	// Timestamp is the record's time in epoch milliseconds.
	Timestamp int64
	// Key and Value are nil for a null key or value (a tombstone).
	Key, Value []byte
	Headers    []Header
	// control marks a transaction marker queued behind records: it only
	// moves its partition's next offset.
	control bool
}

// Reader fetches the records of chosen partitions, each from a start
// offset up to an end offset (bounded) or without end, each partition in
// offset order. A bounded read merges the partitions by timestamp (ties by
// topic and partition), so that it gives the same records in the same
// order every time (Next). An unbounded read fetches on a goroutine of its
// own once started (Start) and hands out, without waiting, the records
// fetched so far, the earliest of one fetch first (TryNext). Close
// releases it.
type Reader struct {
	c   *Client
	cl  *kgo.Client
	tps []TP
	// next is the offset after the last record handed out, by partition.
	next map[TP]int64
	// ends are the offsets a bounded read stops before; absent: unbounded.
	ends map[TP]int64
	// queue holds fetched records not handed out yet, by partition.
	queue map[TP][]Record
	// queued counts the records of queue.
	queued int

	// fetched carries the fetches of the goroutine of an unbounded read
	// (Start); stop ends it, and stopped is closed when it has ended.
	fetched chan kgo.Fetches
	stop    context.CancelFunc
	stopped chan struct{}
}

// NewReader reads partitions tps from starts (the next offset to read).
// ends, when not nil, bounds the read: a partition is done when its next
// offset reaches its end.
func (c *Client) NewReader(tps []TP, starts, ends map[TP]int64) (*Reader, error) {
	r := &Reader{c: c, tps: tps, next: map[TP]int64{}, ends: ends, queue: map[TP][]Record{}}
	assign := map[string]map[int32]kgo.Offset{}
	for _, tp := range tps {
		r.next[tp] = starts[tp]
		if r.done(tp) {
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
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if c.cfg.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	r.cl = cl
	return r, nil
}

// Done reports whether a bounded read of tp has reached its end.
func (r *Reader) Done(tp TP) bool { return r.done(tp) }

// done reports whether a bounded read of tp has reached its end.
func (r *Reader) done(tp TP) bool {
	end, ok := r.ends[tp]
	return ok && r.next[tp] >= end
}

// Position returns, by partition, the offset after the last record
// handed out: where a resumed read starts.
func (r *Reader) Position() map[TP]int64 {
	out := make(map[TP]int64, len(r.next))
	for tp, o := range r.next {
		out[tp] = o
	}
	return out
}

// ErrIdle is what Next returns when no record came within the wait.
var ErrIdle = errors.New("no record within the wait")

// Next returns the next record. ok is false when a bounded read has
// reached the end of every partition. With wait > 0, Next returns ErrIdle
// when a partition it needs stayed empty that long.
func (r *Reader) Next(ctx context.Context, wait time.Duration) (rec Record, ok bool, err error) {
	for {
		best, any := TP{}, false
		missing := false
		for _, tp := range r.tps {
			if r.done(tp) {
				continue
			}
			q := r.queue[tp]
			if len(q) == 0 {
				if r.ends != nil {
					// A bounded read merges: it waits for every partition.
					missing = true
					break
				}
				continue // an unbounded read hands out what has come
			}
			if !any || q[0].Timestamp < r.queue[best][0].Timestamp {
				best, any = tp, true
			}
		}
		if !missing && (any || r.ends != nil) {
			if !any {
				return Record{}, false, nil
			}
			rec, ok := r.take(best)
			if !ok {
				continue
			}
			return rec, true, nil
		}
		if err := r.fetch(ctx, wait); err != nil {
			return Record{}, false, err
		}
	}
}

// take hands out the first record queued for tp; false for a transaction
// marker, which only moves the partition's next offset.
func (r *Reader) take(tp TP) (Record, bool) {
	q := r.queue[tp]
	rec := q[0]
	q[0] = Record{}
	if len(q) == 1 {
		q = q[:0] // keeps the room for the next fetch
	} else {
		q = q[1:]
	}
	r.queue[tp] = q
	r.queued--
	r.next[tp] = rec.Offset + 1
	return rec, !rec.control
}

// Start makes an unbounded read fetch on a goroutine of its own until
// Close, so that TryNext never waits: wake is called on that goroutine
// whenever a fetch (records, or an error) has come. At most a few fetches
// wait for TryNext; the goroutine waits when they do.
func (r *Reader) Start(wake func()) {
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
			best, any := TP{}, false
			for _, tp := range r.tps {
				if q := r.queue[tp]; len(q) > 0 && (!any || q[0].Timestamp < r.queue[best][0].Timestamp) {
					best, any = tp, true
				}
			}
			if rec, ok := r.take(best); ok {
				return rec, true, nil
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
// of a partition; control records only move a partition's next offset.
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
	fs.EachRecord(func(kr *kgo.Record) {
		tp := TP{kr.Topic, kr.Partition}
		if kr.Attrs.IsControl() {
			if q := r.queue[tp]; len(q) == 0 && kr.Offset >= r.next[tp] {
				r.next[tp] = kr.Offset + 1
			} else {
				// A marker after queued records: a record without a
				// value stands for it, dropped when handed out.
				r.queue[tp] = append(q, Record{TP: tp, Offset: kr.Offset, Timestamp: -1 << 62, control: true})
				r.queued++
			}
			return
		}
		if end, ok := r.ends[tp]; ok && kr.Offset >= end {
			return
		}
		rec := Record{TP: tp, Offset: kr.Offset, Timestamp: kr.Timestamp.UnixMilli(), Key: kr.Key, Value: kr.Value}
		for _, h := range kr.Headers {
			rec.Headers = append(rec.Headers, Header{Key: h.Key, Value: h.Value})
		}
		r.queue[tp] = append(r.queue[tp], rec)
		r.queued++
	})
	return nil
}

// Close releases the reader and ends the goroutine of an unbounded read.
func (r *Reader) Close() {
	if r.stop != nil {
		r.stop()
	}
	r.cl.Close()
	if r.stopped != nil {
		<-r.stopped
	}
}
