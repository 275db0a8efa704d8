package exec

import (
	"errors"
	"fmt"
)

// Shared scans. The INSERTs of a statement set that read the same table
// read it once, as the sources of one Flink job are read once for all its
// sinks. The queries of the statement then run as coroutines (Coop): one
// goroutine per query, only one of them running at any time, each handing
// control to the next through channels, so that no operator runs
// concurrently with another and none needs a lock. The query that reads a
// row of a shared table first queues it for the others (scanConsumer);
// once a query has scanShareQueue events queued that it has not taken, the
// reader hands control to that query, which takes them and reads on in its
// turn. What is queued stays small, whatever each query makes of its rows.
//
// Each query's rows, in its sink, are those and in the order of a query
// run alone: a query sees every event of the table in the table's order.
// Only the interleaving of the sinks' writes differs, which is why the
// session shares scans only between file sinks, and only in a statement
// that no later run goes on with (a scratch state store, inputs that end,
// one worker, no timeline), since the position of a shared read is not
// that of each query's: such a statement takes no checkpoint before its
// end.

// scanShareQueue is how many events a query may have queued, not taken,
// before the query that reads the table hands control to it. A hand-over
// costs more than the cache misses of a longer queue: on the flights
// workflow (two queries over 3M rows) 256 takes 1.07x the CPU of 1024,
// and 4096 is not measurably cheaper (0.98x-0.99x, within the noise).
const scanShareQueue = 1024

// errCoopClosed ends a query's goroutine when the statement is closed
// while the query waits for its turn.
var errCoopClosed = errors.New("statement closed")

// Coop runs the queries of a statement set as coroutines. Next and Close
// are for the driver's goroutine; the queries' streams run on goroutines of
// their own, one at a time, while the driver waits. A query's turn takes
// up to coopBatch of its events, which the driver then hands out: each
// switch of goroutine costs about a microsecond, more than a row.
type Coop struct {
	ins      []Stream
	wake     []chan struct{} // per query: take a turn (a new batch, or on after a yield)
	report   chan coopReport // from the query whose turn it is
	quit     chan struct{}   // closed by Close
	started  []bool
	finished []bool
	out      [][]Event // per query: its events of the turn, the driver's once it reports
	pend     []coopEvent
	at       int   // pend[at:] are still to hand out
	err      error // a query's error, handed out after pend
	errQ     int
	exited   chan struct{} // a query's goroutine has returned
	running  int           // goroutines started and not returned
	cur      int           // the query whose turn is next
}

type coopEvent struct {
	q  int
	ev Event
}

// coopBatch is how many events a query's turn takes at most.
const coopBatch = 256

// coopReport is what a query's goroutine says when it hands control back:
// its turn ended (its events are in out), or it yields to query to.
type coopReport struct {
	q        int
	yield    bool
	to       int
	err      error
	panicked any
}

// NewCoop returns the coroutines of a statement set's queries; ShareScans
// makes the reads opened after it share their tables, and Start gives the
// coroutines their streams.
func NewCoop() *Coop {
	return &Coop{report: make(chan coopReport), quit: make(chan struct{}), exited: make(chan struct{})}
}

// Start gives c the queries' streams, opened after ShareScans.
func (c *Coop) Start(ins []Stream) {
	c.ins = ins
	c.wake = make([]chan struct{}, len(ins))
	for i := range c.wake {
		c.wake[i] = make(chan struct{})
	}
	c.started = make([]bool, len(ins))
	c.finished = make([]bool, len(ins))
	c.out = make([][]Event, len(ins))
}

// Next returns the next event of one of the queries and which: the
// events of a query in its order, the end when all have ended.
func (c *Coop) Next() (int, Event, error) {
	for {
		if c.at < len(c.pend) {
			e := c.pend[c.at]
			c.pend[c.at] = coopEvent{}
			c.at++
			return e.q, e.ev, nil
		}
		c.pend, c.at = c.pend[:0], 0
		if c.err != nil {
			return c.errQ, Event{}, c.err
		}
		q := c.cur
		for c.finished[q] {
			q = (q + 1) % len(c.ins)
			if q == c.cur {
				return 0, Event{Kind: EvEnd}, nil
			}
		}
		c.cur = q
		if !c.started[q] {
			c.started[q] = true
			c.running++
			go c.loop(q)
		}
		c.wake[q] <- struct{}{}
		r := <-c.report
		if r.panicked != nil {
			panic(r.panicked) // on the driver's goroutine, where it would have happened
		}
		for i, ev := range c.out[r.q] {
			if ev.Kind == EvEnd {
				c.finished[r.q] = true
			} else {
				c.pend = append(c.pend, coopEvent{q: r.q, ev: ev})
			}
			c.out[r.q][i] = Event{}
		}
		c.out[r.q] = c.out[r.q][:0]
		if r.err != nil {
			c.err, c.errQ = r.err, r.q
		}
		if r.yield {
			c.cur = r.to
		}
	}
}

// loop is query q's goroutine: each turn, a batch of its stream's events.
func (c *Coop) loop(q int) {
	defer func() { c.exited <- struct{}{} }()
	for {
		select {
		case <-c.wake[q]:
		case <-c.quit:
			return
		}
		r := c.turn(q)
		select {
		case c.report <- r:
		case <-c.quit:
			return
		}
	}
}

// turn takes up to coopBatch events of query q, up to its end or an
// error.
func (c *Coop) turn(q int) (r coopReport) {
	r.q = q
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
		}
	}()
	for range coopBatch {
		ev, err := c.ins[q].Next()
		if err != nil {
			r.err = err
			return r
		}
		c.out[q] = append(c.out[q], ev)
		if ev.Kind == EvEnd || ev.Kind == EvIdle {
			return r
		}
	}
	return r
}

// yield hands control from query q, whose turn it is (cur), to query to,
// and waits for q's next turn.
func (c *Coop) yield(q, to int) error {
	select {
	case c.report <- coopReport{q: q, yield: true, to: to}:
	case <-c.quit:
		return errCoopClosed
	}
	select {
	case <-c.wake[q]:
		return nil
	case <-c.quit:
		return errCoopClosed
	}
}

// Close stops the queries' goroutines and waits until they have returned;
// the caller then closes the streams.
func (c *Coop) Close() {
	select {
	case <-c.quit:
		return
	default:
	}
	close(c.quit)
	for ; c.running > 0; c.running-- {
		<-c.exited
	}
}

// sharedScan is one read of a table that several queries take: the
// events read that some query has not taken yet, evs[0] being event
// number base of the read.
type sharedScan struct {
	in   Stream
	coop *Coop
	cons []*scanConsumer
	open int // consumers not closed
	evs  []Event
	base int64
	read int64 // the events read: base + len(evs)
}

// scanConsumer is one query's read of a shared table; at is the number of
// the next event it takes. by is the query that took from it last: the
// query that opened it (q), or another that shares a call (a TeeNode)
// over it.
type scanConsumer struct {
	sh     *sharedScan
	q      int
	by     int
	pulled bool // by is known: a query has taken from c
	at     int64
}

// ShareScans makes the reads of one table by different queries opened
// after it one read, whose queries c runs; ScanQuery says which query is
// being opened.
func (ex *Execution) ShareScans(c *Coop) {
	ex.coop = c
	ex.scans = map[string]*sharedScan{}
}

// ScanQuery says that the nodes opened next are those of query q of the
// statement set (ShareScans).
func (ex *Execution) ScanQuery(q int) { ex.query = q }

// SharedScans reports whether a read is shared by queries.
func (ex *Execution) SharedScans() bool {
	for _, sh := range ex.scans {
		if len(sh.cons) > 1 {
			return true
		}
	}
	return false
}

// Scan opens a read of the source key (table names that as one read
// whose what is the table's name, for notes) through open: after
// ShareScans, a read that another query opened already is shared with it.
// A query's second read of the same table is a read of its own.
func (ex *Execution) Scan(key, what string, open func() (Stream, error)) (Stream, error) {
	if ex.coop == nil {
		return open()
	}
	sh := ex.scans[key]
	if sh == nil {
		in, err := open()
		if err != nil {
			return nil, err
		}
		sh = &sharedScan{in: in, coop: ex.coop}
		ex.scans[key] = sh
	} else {
		for _, c := range sh.cons {
			if c.q == ex.query {
				return open()
			}
		}
		ex.NoCheckpoints(fmt.Sprintf("the INSERTs of the statement set read table '%s' once, together", what))
	}
	c := &scanConsumer{sh: sh, q: ex.query, by: ex.query}
	sh.cons = append(sh.cons, c)
	sh.open++
	return c, nil
}

// Next takes the query's next event of the table: one another query has
// read, or else the next of the table, once no other query waits with
// scanShareQueue events not taken.
func (c *scanConsumer) Next() (Event, error) {
	sh := c.sh
	// The query whose turn it is: not always the one that opened c.
	run := sh.coop.cur
	c.by, c.pulled = run, true
	yielded := false
	for {
		if c.at < sh.read {
			ev := sh.evs[c.at-sh.base]
			c.at++
			return ev, nil
		}
		// After a yield the query reads on even if another is still
		// behind: that one may wait in turn on a table this one has not
		// read, and one of them must go on.
		if to := sh.behind(run); to >= 0 && !yielded {
			if err := sh.coop.yield(run, to); err != nil {
				return Event{}, err
			}
			yielded = true
			continue
		}
		ev, err := sh.in.Next()
		if err != nil {
			return ev, err
		}
		sh.keep(ev)
		c.at++
		return ev, nil
	}
}

// behind returns the query to hand control to, other than run, when a
// consumer not ended has scanShareQueue events of the read not taken: the
// query that takes from it, or, before any has, another query not ended,
// which will. It returns -1 when there is none.
func (sh *sharedScan) behind(run int) int {
	co := sh.coop
	for _, o := range sh.cons {
		if sh.read-o.at < scanShareQueue {
			continue
		}
		if o.pulled {
			if o.by != run && !co.finished[o.by] {
				return o.by
			}
			continue
		}
		for i := range co.finished {
			if i != run && !co.finished[i] {
				return i
			}
		}
	}
	return -1
}

// keep adds the event just read for the queries that have not taken it,
// first forgetting those that every query not ended has taken.
func (sh *sharedScan) keep(ev Event) {
	if len(sh.evs) == cap(sh.evs) {
		low := sh.read
		for _, o := range sh.cons {
			if !sh.coop.finished[o.by] {
				low = min(low, o.at)
			}
		}
		n := copy(sh.evs, sh.evs[low-sh.base:])
		clear(sh.evs[n:])
		sh.evs, sh.base = sh.evs[:n], low
	}
	sh.evs = append(sh.evs, ev)
	sh.read++
}

func (c *scanConsumer) Close() error {
	c.sh.open--
	if c.sh.open == 0 {
		c.sh.evs = nil
		return c.sh.in.Close()
	}
	return nil
}
