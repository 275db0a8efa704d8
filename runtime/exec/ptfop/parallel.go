package ptfop

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Parallel PTF calls (--parallelism N, SET 'parallelism.default').
//
// A call that qualifies (parallelReason) runs its partitions on N workers.
// Its operator is then a Parallel, the coordinator, which wraps N
// ordinary Operators: each worker has an isolated instance
// (FuncDef.NewIsolated: a JavaScript runtime of its own), its own state
// cache, timers, ORDER BY buffers and output. The coordinator keeps one
// more Operator, its main operator, that reads the inputs (in the order
// parallelism 1 reads them: Operator.readNext) and keeps the call's event
// time as the statement sees it (its watermarks, the end of input, the
// counts the notes give); it never calls the function. The coordinator
// reads its input in batches of up to parBatch events, ending a batch at
// the end of the input. A row goes to the worker hash(partition key) mod N
// (with row semantics, row k to worker k mod N: its rows belong to no
// key); watermarks and the ends of the inputs go to every worker, so that
// each worker's event time is, event for event, that of parallelism 1.
// The workers run the batch concurrently, each its own events in input
// order, and record every call they make (parCall): the outputs it
// collected, the timers it registered, its console output.
//
// The coordinator then hands out the calls in the order parallelism 1
// makes them. For a row, that is the row's call. For a watermark (or the
// end of input), it is first the rows the ORDER BY buffers release, merged
// over the workers in ORDER BY order (time, the further keys, arrival:
// the coordinator numbers the rows in arrival order), then the timers that
// fire, merged by time and then by their place in the call's order of
// registration (timer.gseq: the coordinator numbers each registration as
// it hands out the call that made it, which is the numbering of
// parallelism 1), then the watermark itself. Each worker's calls are in
// that order already, so the merge takes, of the workers' next calls, the
// first. The output, the console output and the errors are therefore
// those of parallelism 1, row for row.
//
// The batches go through a pipeline: each worker is a goroutine that runs
// the batches in turn as they come, up to parDepth of them read ahead, so
// that a worker never waits for the others, nor for the coordinator while
// it reads or hands out: reading, running and printing overlap, and a
// worker that had more rows in one batch catches up in the next. A batch
// may also run in turn, the coordinator running each worker's events
// itself, when that hands out faster (parallel_pace.go). Before a
// checkpoint is due the coordinator reads no batch ahead: checkpoints are
// taken when no batch runs, so they see every worker
// drained. State, timers and buffered rows are kept under the same keys as
// at parallelism 1 (timers with their registration order over the whole
// call), so a checkpoint resumes at any parallelism.
//
// An error in a worker stops that worker; the others stop after the event
// of the failing one, so the error the statement reports is the one of the
// earliest failing call, as at parallelism 1, with the outputs of the
// events before it handed out first (those of the failing event are lost,
// as at parallelism 1, where the error leaves the operator before them).

// parBatch is how many input events a parallel call reads before it runs them.
const parBatch = 4096

// parDepth is how many batches a parallel call keeps running, the one it
// hands out next included. On a machine whose cores other processes share,
// a deeper queue keeps the workers busy while the coordinator waits for a
// core (the flights alert: 1.48x at four, 1.31x at two). A worker that is
// always inside a call is often seen by the memory guard (ptf.max-memory)
// in a call that only seems long because its thread waited; the guard,
// one for the process, then only reads counters (script/memguard.go) and
// forces no collection unless the heap grew by the limit.
const parDepth = 4

// parallelReason says why call n runs on one worker ("" when it may run on
// several).
func parallelReason(n *Node, ex *exec.Execution) string {
	switch {
	case n.Def.NewIsolated == nil:
		return "its instances cannot run apart (no isolated runtime, e.g. a built-in function)"
	case len(n.Tables) == 0:
		return "it takes no table argument"
	case len(n.Tables) == 1 && !n.Tables[0].Set && len(n.Def.State) > 0:
		return "row semantics with state (one key for every row)"
	case !n.Mode.IsInsertOnly():
		return "updating input or output"
	case ex.Trace != nil:
		return "tracing"
	case ex.Opts.Lineage:
		return "lineage"
	case ex.Timeline != nil: // its events in the order they happen (timeline.go)
		return "a timeline"
	case ex.Opts.StateTTL > 0:
		return "state TTL"
	}
	for _, t := range n.Tables {
		switch {
		case len(n.Tables) > 1 && !t.Set:
			return "a table argument with row semantics beside others"
		case t.Set && len(t.Partition) == 0 && len(n.Tables) == 1:
			return "its table argument has no PARTITION BY"
		case t.Set && len(t.Partition) == 0:
			return "table argument '" + t.Name + "' has no PARTITION BY"
		case !t.In.Changelog().IsInsertOnly():
			return "updating input or output"
		}
	}
	for _, sd := range n.Def.State {
		if sd.TTLSet && sd.TTL > 0 {
			return "state TTL"
		}
	}
	return ""
}

// parItem is one event of a batch: a row for one worker, a watermark or
// an end for every worker, or a tick for none.
type parItem struct {
	ev exec.Event
	in int // the input it came from
	w  int // the worker of a row; -1: every worker; -2: none
	// seq is a row's place in arrival order, for an input with ORDER BY.
	seq uint64
	// klo, khi: a row's encoded partition key, parWork.keys[klo:khi],
	// which the coordinator made to route it; khi 0: none.
	klo, khi int32
}

// parCall is what a worker recorded of one call of eval or onTimer. It
// holds no pointer and is kept small (a worker writes one per call, and
// the coordinator reads it from the worker's core): what few calls have
// beyond their outputs is in a parCallX.
type parCall struct {
	// lo, hi: its outputs, outs[w][lo:hi] of its batch; encoded, they are
	// enc[w][blo:bhi], and hi-lo counts them.
	lo, hi   int
	rlo, rhi int // the timers it registered: regs[w][rlo:rhi]
	blo, bhi int
	// xi: its parCallX, xs[w][xi-1] of its batch (0: none)
	xi      int32
	encoded bool
}

// parCallX is what a call recorded beyond its outputs: console output, an
// error, the timer it fired, the row an ORDER BY buffer released.
type parCallX struct {
	con []byte // its console output
	err error
	// fire is the timer it fired (nil: eval); time and wm are the timer's
	// time and the watermark that fired it.
	fire     *timer
	time, wm int64
	// released: eval of a row an ORDER BY buffer released, ent.
	released bool
	ent      sortEntry
}

// noCallX is the parCallX of a call that has none.
var noCallX parCallX

// callX returns call c's parCallX, of worker w.
func (b *parWork) callX(w int, c *parCall) *parCallX {
	if c.xi == 0 {
		return &noCallX
	}
	return &b.xs[w][c.xi-1]
}

// parWork is a batch of input events and what the workers made of it.
type parWork struct {
	items []parItem
	// idle: the batch ends with an EvIdle of a live input, and no batch is
	// read after it until the driver waited.
	idle bool
	// keys holds the encoded partition keys of the rows (parItem.klo):
	// the worker looks its key state up with them instead of encoding the
	// key again from a row another core decoded (B at two workers: a
	// twelfth of its time).
	keys  []byte
	idx   [][]int        // per worker, indexes into items of its events
	spans [][][2]int     // per worker, per event it ran: its calls, calls[w][lo:hi] (lo droppedSpan: a late row)
	errs  []parErr       // per worker, its first error
	outs  [][]exec.Event // per worker, the rows its calls collected
	enc   [][]byte       // per worker, those rows encoded (Parallel.EncodeRows)
	calls [][]parCall    // per worker, its calls
	xs    [][]parCallX   // per worker, what its calls recorded beyond their outputs
	regs  [][]*timer     // per worker, the timers its calls registered
	last  bool           // the inputs ended: no batch follows
	inErr error          // an input error that ended the batch's reading
	base  int64          // the number of its first item among all the call read
	// pending counts the workers still running it; the last closes done.
	pending atomic.Int32
	done    chan struct{}
	// mark is the pace's note of how it runs (parallel_pace.go)
	mark paceMark
}

// Parallel runs a PTF call on several workers (see above). It is the
// call's Stream and Call; its outputs are queued in the main operator's
// Out, so that the watermarks and ticks the main operator makes go out in
// their place.
type Parallel struct {
	main    *Operator       // reads the input and keeps the call's event time
	workers []*Operator     // run the rows, each with an instance of its own
	queue   []*parWork      // read and running, oldest first
	free    []*parWork      // handed out, to reuse
	feeds   []chan *parWork // per worker, the batches it is to run
	running sync.WaitGroup  // the workers' goroutines
	readEnd bool            // the last batch, or an input error, was read
	read    int64           // events read
	stop    atomic.Int64    // the number of the earliest failing event (MaxInt64: none)
	inErr   error           // an input or call error, reported after the outputs before it
	// cons is console output of the calls, to replay as the outputs
	// before which the calls printed it are handed out.
	cons consoleQueue
	// rows counts the rows handed out: with row semantics, row k goes to
	// worker k mod N (a row of a table with row semantics belongs to no
	// key, and Flink may hand it to any instance).
	rows int
	// arrival numbers the rows of inputs with ORDER BY as they are read.
	arrival uint64
	// gseq counts the timers registered over every worker, in the order
	// of parallelism 1 (timerService.seq there).
	gseq uint64
	// during a hand-out: per worker, its next span, and the bounds of its
	// calls of the event being handed out
	cursor, at, lim []int
	// pace decides, batch by batch, whether the workers run concurrently
	// or in turn on the coordinator's goroutine (parallel_pace.go).
	pace parPace
	// encoding: the workers encode their output rows for the
	// statement's printer (EncodeRows), and the hand-out gathers the
	// bytes of consecutive rows, encBuf[encFrom:], encRows of them, into
	// one EvEncoded event.
	encoding         bool
	encBuf           []byte
	encFrom, encRows int
	// direct: the workers keep nothing from one event to the next but
	// their event time (row semantics without state: no state, no timers,
	// no ORDER BY), so that in turn the main operator runs the events
	// itself, as at parallelism 1 (runDirect); behind: it did, and the
	// workers' event time is to catch up with the main operator's.
	direct, behind bool
}

var (
	_ exec.Call        = (*Parallel)(nil)
	_ exec.RowEncoding = (*Parallel)(nil)
)

// parConsole is console output to replay before out[at] is handed out.
type parConsole struct {
	at int
	b  []byte
	cb consoleBuffer
}

type parErr struct {
	seq int
	err error
}

// consoleBuffer is implemented by isolated instances that keep console
// output for the coordinator to replay in input order.
type consoleBuffer interface {
	TakeConsole() []byte
	ReplayConsole([]byte) error
}

// newParallel wraps main, an opened call, with n workers; the timers and
// buffered rows main restored go to the workers that own them. On an
// error it closes what it opened, main included.
func newParallel(main *Operator, spec ptf.CallSpec, n int) (*Parallel, error) {
	p := &Parallel{main: main, cursor: make([]int, n), at: make([]int, n), lim: make([]int, n)}
	node, ex := main.node, main.ex
	p.pace = newParPace(ex.Opts.ParallelWorkers, time.Now, processCPU)
	ins := len(main.ins)
	for i := 0; i < n; i++ {
		inst, err := node.Def.NewIsolated(spec)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("%s: %w", node.Fn, err)
		}
		w := &Operator{node: node, inst: inst, ex: ex, keyedState: newKeyedState(node, ex), views: main.views.worker(), ttl: main.ttl}
		w.ctx = ptf.NewContext(host{w})
		p.workers = append(p.workers, w)
		if len(node.Def.State) > 0 {
			codec, ok := inst.(ptf.StateCodec)
			if !ok {
				p.Close()
				return nil, fmt.Errorf("%s declares state but its instance cannot keep state", node.Fn)
			}
			w.codec = codec
			w.stored, w.vals = main.stored, main.vals
		}
		// The workers start at the restored event time (without firing
		// anything: a restored timer at or before the watermark waits for
		// the next one, as at parallelism 1).
		w.ended = make([]bool, ins)
		w.eventClock = eventClock{wm: main.wm, hasWM: main.hasWM, inWM: slices.Clone(main.inWM), inHas: slices.Clone(main.inHas), SawWM: main.SawWM}
		w.buffers = make([]*sortBuffer, ins)
		for j, b := range main.buffers {
			if b != nil {
				w.buffers[j] = newSortBuffer(b.timeCol, b.keys)
			}
		}
		w.rec = &parRec{}
		w.rec.cb, _ = inst.(consoleBuffer)
	}
	p.adopt()
	p.stop.Store(math.MaxInt64)
	t := &node.Tables[0]
	p.direct = len(node.Tables) == 1 && !t.Set && len(node.Def.State) == 0 && main.buffers[0] == nil && !ex.Paced
	for i, w := range p.workers {
		w.timers.logging = true
		feed := make(chan *parWork, parDepth)
		p.feeds = append(p.feeds, feed)
		p.running.Add(1)
		go p.work(i, feed)
	}
	return p, nil
}

// adopt hands the timers and the ORDER BY rows that the main operator
// restored to the workers that own their keys.
func (p *Parallel) adopt() {
	m, n := p.main, len(p.workers)
	p.gseq = m.timers.seq
	if len(m.timers.q) > 0 {
		for _, t := range m.timers.q {
			if t.dead {
				continue
			}
			w := p.workers[workerOfKey(t.ks.enc, n)]
			ks := w.lookup(t.ks.key, nil)
			w.timers.register(ks, t.name, t.named, t.time)
			nt := ks.unnamed[t.time]
			if t.named {
				nt = ks.named[t.name]
			}
			nt.seq, nt.gseq = t.seq, t.seq
			w.timers.seq = max(w.timers.seq, t.seq)
		}
		for _, w := range p.workers {
			w.timers.q.init()
		}
		// The main operator keeps none: the key states it made to read
		// them hold no values.
		m.timers = timerService{seq: m.timers.seq}
		m.keys, m.live, m.hand, m.warmBytes = map[string]keySlot{}, nil, 0, 0
		m.dirtyWarm, m.dirtyAll = nil, false
	}
	for j, b := range m.buffers {
		if b == nil {
			continue
		}
		t := &m.node.Tables[j]
		k := 0
		b.each(func(e *sortEntry) {
			w := k % n
			k++
			if t.Set {
				w = workerOfKey(keycodec.Encode(keycodec.Pick(e.row, t.Partition)), n)
			}
			p.workers[w].buffers[j].addSeq(e.row, e.ts, e.seq)
		})
		b.reset()
		p.arrival = max(p.arrival, b.seq)
	}
}

// Notes are the main operator's, which keeps the call's event time, and
// how many batches the workers ran in turn when the pace chose it.
func (p *Parallel) Notes() []string {
	notes := p.main.Notes()
	if p.pace.fixed == paceAuto && p.pace.InTurn > 0 {
		notes = append(notes, fmt.Sprintf("note: %s: its %d workers took turns on one thread for %d of %d batches of rows, as that ran faster than a thread each (a busy machine, or a function cheaper than handing rows over; ptfsh.parallel.workers)",
			p.main.node.Fn, len(p.workers), p.pace.InTurn, p.pace.Batches))
	}
	return notes
}

// MarkNotes marks the notes of the main operator, which holds them.
func (p *Parallel) MarkNotes() { p.main.MarkNotes() }

// WhyNot is "": a call with lineage runs on one worker.
func (p *Parallel) WhyNot() string { return "" }

// Quiescent reports whether the call holds no output and no batch: a
// parallel call that failed has handed out the rows before the failing
// one, but its workers may have run rows after it, which no checkpoint
// may record.
func (p *Parallel) Quiescent() bool {
	return p.main.Quiescent() && p.inErr == nil && len(p.queue) == 0
}

func (p *Parallel) Next() (exec.Event, error) {
	m := p.main
	for {
		at := m.oi
		if at >= len(m.out) {
			at = -1
		}
		if err := p.cons.replay(at); err != nil {
			return exec.Event{}, err
		}
		if err := m.cons.replay(at); err != nil { // the main operator's own calls (runDirect)
			return exec.Event{}, err
		}
		if ev, ok := m.pop(); ok {
			return ev, nil
		}
		if m.done {
			return exec.Event{Kind: exec.EvEnd}, nil
		}
		if err := p.step(); err != nil {
			return exec.Event{}, err
		}
	}
}

// runDirect runs up to parBatch events of a call whose workers keep
// nothing between events (Parallel.direct) on the main operator, as at
// parallelism 1: in turn, without handing the rows to the workers and
// their outputs back.
func (p *Parallel) runDirect() error {
	m := p.main
	mark := p.pace.take(true)
	run := func() error {
		n, err := m.stepRunN(parBatch, math.MaxInt)
		p.read += int64(n)
		p.pace.handed(mark, n, m.idled)
		return err
	}
	var err error
	if bt, ok := m.inst.(ptf.Batcher); ok {
		err = bt.Batch(run)
	} else {
		err = run()
	}
	p.behind = true
	p.readEnd = m.done
	if err != nil {
		// The outputs before the failing event go out first, as at
		// parallelism 1; the next step reports the error.
		p.inErr = err
		p.readEnd = true
	}
	return nil
}

// catchUp gives the workers the main operator's event time, which moved
// on while it ran events itself (runDirect).
func (p *Parallel) catchUp() {
	m := p.main
	for _, w := range p.workers {
		w.eventClock = m.eventClock
		w.inWM, w.inHas = slices.Clone(m.inWM), slices.Clone(m.inHas)
		w.inIdle, w.inBehind = slices.Clone(m.inIdle), slices.Clone(m.inBehind)
		w.EndFire = 0
		copy(w.ended, m.ended)
	}
	p.behind = false
}

// batch returns an empty batch.
func (p *Parallel) batch() *parWork {
	var b *parWork
	if k := len(p.free); k > 0 {
		b, p.free = p.free[k-1], p.free[:k-1]
	} else {
		n := len(p.workers)
		b = &parWork{idx: make([][]int, n), spans: make([][][2]int, n), errs: make([]parErr, n),
			outs: make([][]exec.Event, n), enc: make([][]byte, n), calls: make([][]parCall, n), xs: make([][]parCallX, n), regs: make([][]*timer, n)}
	}
	b.items, b.keys, b.last, b.inErr, b.idle = b.items[:0], b.keys[:0], false, nil, false
	for w := range b.idx {
		b.idx[w], b.spans[w], b.errs[w] = b.idx[w][:0], b.spans[w][:0], parErr{}
		clear(b.outs[w])
		clear(b.xs[w])
		clear(b.regs[w])
		b.outs[w], b.calls[w], b.regs[w], b.enc[w], b.xs[w] = b.outs[w][:0], b.calls[w][:0], b.regs[w][:0], b.enc[w][:0], b.xs[w][:0]
	}
	b.base = p.read
	b.done = make(chan struct{})
	return b
}

// WorkerOf picks the worker, of n, of a row by a hash of its partition
// key (the columns cols).
func WorkerOf(r types.Row, cols []int, n int) int {
	return workerOfKey(keycodec.Encode(keycodec.Pick(r, cols)), n)
}

// workerOfKey picks the worker, of n, of an encoded partition key: FNV-1a
// of the encoding, mod n.
func workerOfKey(enc []byte, n int) int {
	h := uint32(2166136261)
	for _, c := range enc {
		h ^= uint32(c)
		h *= 16777619
	}
	return int(h % uint32(n))
}

// step hands out the outputs of the next batch in the order of
// parallelism 1, with the batches after it already running (see the
// pipeline above).
func (p *Parallel) step() error {
	m := p.main
	if p.inErr != nil {
		return p.inErr
	}
	if err := m.compactValues(); err != nil { // the workers' tables too: they share them
		return err
	}
	if len(p.queue) == 0 && p.direct && !p.readEnd && p.pace.inline() {
		return p.runDirect()
	}
	p.fill(false)
	if len(p.queue) == 0 { // not reached: the last batch ends the call
		m.done = true
		return nil
	}
	cur := p.queue[0]
	<-cur.done
	p.queue[0] = nil
	p.queue = p.queue[1:]
	stopAt := -1
	for _, e := range cur.errs {
		if e.err != nil && (stopAt < 0 || e.seq < stopAt) {
			stopAt = e.seq
		}
	}
	p.fill(true) // the workers run on while cur is handed out
	err := p.handOut(cur, stopAt)
	p.pace.handed(cur.mark, len(cur.items), cur.idle)
	p.free = append(p.free, cur)
	switch {
	case err != nil:
		// The outputs before the failing event go out first, as at
		// parallelism 1; the next step reports the error.
		p.inErr = err
		p.stop.Store(-1) // the batches after it run no more
	case cur.inErr != nil:
		p.inErr = cur.inErr
	case cur.last:
		m.done = true
	}
	return nil
}

// fill reads batches and hands them to the workers until parDepth run,
// the inputs end, or a checkpoint is due (then the workers drain before
// it); ahead: the batch to hand out next is read, these are extra, so a
// checkpoint that is due stops it even with no batch running.
func (p *Parallel) fill(ahead bool) {
	for !p.readEnd && len(p.queue) < parDepth && p.inErr == nil {
		if (ahead || len(p.queue) > 0) && p.main.ex.CheckpointDue(parBatch) {
			return
		}
		if k := len(p.queue); k > 0 && p.queue[k-1].idle {
			return // a live input was idle: read on once the driver waited for it
		}
		inline := p.pace.inline()
		if inline && (ahead || len(p.queue) > 0) {
			// an inline batch runs when the batches before it have been
			// handed out, and nothing is read ahead of it
			return
		}
		if inline && p.direct {
			return // step runs it on the main operator
		}
		b := p.batch()
		p.readBatch(b)
		p.read += int64(len(b.items))
		p.readEnd = b.last || b.inErr != nil
		if p.behind {
			p.catchUp()
		}
		b.mark = p.pace.take(inline)
		if inline {
			p.runInline(b)
		} else {
			b.pending.Store(int32(len(p.workers)))
			for _, f := range p.feeds {
				f <- b
			}
		}
		p.queue = append(p.queue, b)
	}
}

// readBatch reads up to parBatch events of the inputs into b.
func (p *Parallel) readBatch(b *parWork) {
	m := p.main
	n := len(p.workers)
	for len(b.items) < parBatch {
		in, ev, ok, err := m.readNext()
		if err != nil {
			b.inErr = err
			break
		}
		if !ok {
			b.last = true
			break
		}
		it := parItem{ev: ev, in: in, w: -2}
		switch ev.Kind {
		case exec.EvRow:
			t := &m.node.Tables[in]
			if t.Set {
				lo := len(b.keys)
				b.keys = keycodec.AppendPick(b.keys, ev.Row, t.Partition)
				it.w = workerOfKey(b.keys[lo:], n)
				it.klo, it.khi = int32(lo), int32(len(b.keys))
			} else {
				it.w = p.rows % n
				p.rows++
			}
			if m.buffers[in] != nil {
				p.arrival++
				it.seq = p.arrival
			}
			b.idx[it.w] = append(b.idx[it.w], len(b.items))
		case exec.EvWatermark, exec.EvEnd, exec.EvStatus:
			it.w = -1
			for w := range b.idx {
				b.idx[w] = append(b.idx[w], len(b.items))
			}
		}
		b.items = append(b.items, it)
		if ev.Kind == exec.EvIdle {
			b.idle = true // a live input has nothing now: the batch goes as it is
			break
		}
	}
}

// Flush writes the call's event time, the workers' timers, buffered rows
// and state to tx; final marks the end of the statement. It is called
// between batches (CheckpointDue), when the workers are idle and every
// call they made has been handed out, and at the end of the statement.
func (p *Parallel) Flush(tx state.Tx, final bool) error {
	m := p.main
	// A statement that stopped pulling before the end (LIMIT) takes its
	// final checkpoint with batches still running: they end first.
	for _, b := range p.queue {
		<-b.done
	}
	if err := m.flushMeta(tx, final); err != nil {
		return err
	}
	if uid := m.node.UID; uid != "" {
		if err := tx.DeleteNamespace(exec.TimerNamespace(uid)); err != nil {
			return err
		}
		for _, w := range p.workers {
			if err := w.timers.put(tx, uid, true); err != nil {
				return err
			}
		}
		for j, b := range m.buffers {
			if b == nil {
				continue
			}
			ns := exec.SortBufferNamespace(uid, m.node.Tables[j].Name)
			if err := tx.DeleteNamespace(ns); err != nil {
				return err
			}
			for _, w := range p.workers {
				if err := w.buffers[j].put(tx, ns); err != nil {
					return err
				}
			}
		}
	}
	if err := m.views.flush(tx); err != nil { // the workers' tables too: they share them
		return err
	}
	for _, w := range p.workers {
		if err := w.flushValues(tx, final); err != nil {
			return err
		}
		if final {
			w.release()
		}
	}
	return nil
}

// Close closes the main operator (and so the input), lets the running
// batches end (a statement that stopped runs no more of their events),
// and closes the workers' instances.
func (p *Parallel) Close() error {
	first := p.main.Close()
	p.stop.Store(-1)
	for _, f := range p.feeds {
		close(f)
	}
	p.feeds, p.queue = nil, nil
	p.running.Wait()
	for _, w := range p.workers {
		if c, ok := w.inst.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
