package exec

import (
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Parallel PTF calls (--parallelism N, SET 'parallelism.default').
//
// A call that qualifies (parallelReason) runs its partitions on N workers.
// Its operator is then a ParallelOp, the coordinator, which wraps N
// ordinary PtfOps: each worker has an isolated instance
// (FuncDef.NewIsolated: a JavaScript runtime of its own), its own state
// cache and its own output. The coordinator keeps one more PtfOp, its main
// operator, that reads the input and keeps the call's event time (its
// watermarks, and the end of input); it never calls the function. The
// coordinator reads its input in batches of up to parBatch events, ending
// a batch at the end of the input. A row goes to the worker
// hash(partition key) mod N (with row semantics, row k to worker k mod N:
// its rows belong to no key); watermarks go to every worker. The workers
// run the batch concurrently, each its own rows in input order, and the
// coordinator then hands out the outputs of the batch in input order: the
// rows the call of input row i emitted, then those of row i+1. The output
// is therefore the same as at parallelism 1, row for row.
//
// The batches go through a pipeline: while the workers run batch k, the
// coordinator reads batch k+1; it starts k+1 on the workers before it
// hands out the outputs of k, so that reading, running and printing
// overlap. Before a checkpoint is due the coordinator reads no batch ahead:
// checkpoints are taken when no batch runs, so they see every worker
// drained. State is kept under the same keys as at parallelism 1 (the
// partition key).
//
// An error in a worker stops that worker; the others stop before rows
// after the failing one, but finish the rows before it, so the error the
// statement reports is the one of the earliest failing row, as at
// parallelism 1, with the outputs of the rows before it handed out first.

// SetParallelism is Flink's option for the default parallelism.
const SetParallelism = "parallelism.default"

// parBatch is how many input events a parallel call reads before it runs them.
const parBatch = 4096

// parallelReason says why call n runs on one worker ("" when it may run on
// several).
func parallelReason(n *PtfNode, ex *Execution) string {
	switch {
	case n.Def.NewIsolated == nil:
		return "its instances cannot run apart (no isolated runtime, e.g. a built-in function)"
	case len(n.Tables) != 1:
		return "it does not take exactly one table argument"
	case !n.Tables[0].Set && len(n.Def.State) > 0:
		return "row semantics with state (one key for every row)"
	case n.Tables[0].Set && len(n.Tables[0].Partition) == 0:
		return "its table argument has no PARTITION BY"
	case len(n.Tables[0].Sem.OrderBy) > 0:
		return "ORDER BY"
	case n.Rowtime || n.Tables[0].Sem.TimeColumn >= 0:
		return "on_time"
	case n.Def.HasOnTimer:
		return "it has onTimer"
	case !n.Tables[0].In.Changelog().IsInsertOnly() || !n.Mode.IsInsertOnly():
		return "updating input or output"
	case ex.Trace != nil:
		return "tracing"
	case ex.Lineage:
		return "lineage"
	case ex.Timeline != nil: // its events in the order they happen (timeline_hook.go)
		return "a timeline"
	case ex.DefaultTTL > 0:
		return "state TTL"
	}
	for _, sd := range n.Def.State {
		if sd.Kind != ptf.ValueState {
			return "ListView/MapView state"
		}
		if sd.TTLSet && sd.TTL > 0 {
			return "state TTL"
		}
	}
	return ""
}

// parItem is one event of a batch: a row for worker w, or a watermark or
// tick for everyone.
type parItem struct {
	ev  Event
	w   int // worker of a row
	lo  int // the row's outputs: out[lo:hi] of its worker
	hi  int
	con []byte // console output of the row's call
}

// parWork is a batch of input events and what the workers made of it.
type parWork struct {
	items []parItem
	idx   [][]int   // per worker, indexes into items of its events
	errs  []parErr  // per worker, its first error
	outs  [][]Event // per worker, the rows its calls collected
	end   *Event    // the end of input, read in this batch
	inErr error     // an input error that ended the batch's reading
	stop  chan int  // the earliest failing item (-1: none), once the workers are done
}

// ParallelOp runs a PTF call on several workers (see above). It is the
// call's Stream and Call; its outputs are queued in the main operator's
// Out, so that the watermarks and ticks the main operator makes go out in
// their place.
type ParallelOp struct {
	main     *PtfOp   // reads the input and keeps the call's event time
	workers  []*PtfOp // run the rows, each with an instance of its own
	inflight *parWork // running on the workers
	spare    *parWork // handed out, to reuse
	end      *Event   // the end of input, handled after the last batch
	inErr    error    // an input or call error, reported after the outputs before it
	// cons is console output of the calls, to replay as the outputs
	// before which the calls printed it are handed out.
	cons []parConsole
	ci   int
	// rows counts the rows handed out: with row semantics, row k goes to
	// worker k mod N (a row of a table with row semantics belongs to no
	// key, and Flink may hand it to any instance).
	rows int
}

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

// newParallelOp wraps main, an opened call, with n workers. On an error
// it closes what it opened, main included.
func newParallelOp(main *PtfOp, spec ptf.CallSpec, n int) (*ParallelOp, error) {
	p := &ParallelOp{main: main}
	node, ex := main.Node, main.Ex
	for i := 0; i < n; i++ {
		inst, err := node.Def.NewIsolated(spec)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("%s: %w", node.Fn, err)
		}
		w := &PtfOp{Node: node, inst: inst, Ex: ex, keyedState: newKeyedState(node, ex), Views: newViewState(node, ex, main.Ttl), Ttl: main.Ttl}
		w.ctx = ptf.NewContext(w)
		p.workers = append(p.workers, w)
		if len(node.Def.State) > 0 {
			codec, ok := inst.(ptf.StateCodec)
			if !ok {
				p.Close()
				return nil, fmt.Errorf("%s declares state but its instance cannot keep state", node.Fn)
			}
			w.codec = codec
			w.stored = main.stored
		}
		w.ended = []bool{false}
		w.inWM, w.inHas = []int64{0}, []bool{false}
		w.Buffers = []*sortBuffer{nil}
	}
	p.dropWorkerTimers() // the workers start at the restored watermark
	return p, nil
}

// Main returns the operator that keeps the call's event time.
func (p *ParallelOp) Main() *PtfOp { return p.main }

// Quiescent reports whether the call holds no output and no batch: a
// parallel call that failed has handed out the rows before the failing
// one, but its workers may have run rows after it, which no checkpoint
// may record.
func (p *ParallelOp) Quiescent() bool {
	return p.main.Quiescent() && p.inErr == nil && p.inflight == nil
}

func (p *ParallelOp) Next() (Event, error) {
	m := p.main
	for {
		at := m.Oi
		if at >= len(m.Out) {
			at = -1
		}
		if err := p.replayConsole(at); err != nil {
			return Event{}, err
		}
		if ev, ok := m.pop(); ok {
			return ev, nil
		}
		if m.done {
			return Event{Kind: EvEnd}, nil
		}
		if err := p.step(); err != nil {
			return Event{}, err
		}
	}
}

// batch returns an empty batch.
func (p *ParallelOp) batch() *parWork {
	b := p.spare
	p.spare = nil
	if b == nil {
		n := len(p.workers)
		b = &parWork{idx: make([][]int, n), errs: make([]parErr, n), outs: make([][]Event, n)}
	}
	b.items, b.end, b.inErr = b.items[:0], nil, nil
	for w := range b.idx {
		b.idx[w], b.errs[w] = b.idx[w][:0], parErr{}
		clear(b.outs[w])
		b.outs[w] = b.outs[w][:0]
	}
	b.stop = make(chan int, 1)
	return b
}

// replayConsole writes the console output due before out[at] (all of it
// when at < 0).
func (p *ParallelOp) replayConsole(at int) error {
	for p.ci < len(p.cons) && (at < 0 || p.cons[p.ci].at <= at) {
		c := p.cons[p.ci]
		p.cons[p.ci] = parConsole{}
		p.ci++
		if err := c.cb.ReplayConsole(c.b); err != nil {
			return err
		}
	}
	if p.ci == len(p.cons) {
		p.cons, p.ci = p.cons[:0], 0
	}
	return nil
}

// WorkerOf picks the worker, of n, of a row by a hash of its partition
// key (the columns cols).
func WorkerOf(r types.Row, cols []int, n int) int {
	h := fnv.New32a()
	h.Write(keycodec.Encode(keycodec.Pick(r, cols)))
	return int(h.Sum32() % uint32(n))
}

// step hands out the outputs of the next batch in input order, with the
// batch after it already running (see the pipeline above).
func (p *ParallelOp) step() error {
	m := p.main
	if p.inErr != nil {
		return p.inErr
	}
	if p.inflight == nil {
		if p.end != nil {
			ev := *p.end
			p.end = nil
			if err := m.process(0, ev); err != nil {
				return err
			}
			p.dropWorkerTimers()
			m.done = true
			return nil
		}
		b := p.batch()
		p.readBatch(b)
		p.startBatch(b)
		p.inflight = b
	}
	cur := p.inflight
	var next *parWork
	if cur.end == nil && cur.inErr == nil && !m.Ex.CheckpointDue(parBatch) {
		next = p.batch()
		p.readBatch(next) // while the workers run cur
	}
	stopAt := <-cur.stop
	for w, wk := range p.workers {
		cur.outs[w], wk.Out = wk.Out, nil
	}
	p.inflight = nil
	if stopAt < 0 && next != nil {
		p.startBatch(next) // it runs while cur is handed out
		p.inflight = next
	}
	if cur.end != nil {
		p.end = cur.end
	}
	// Hand out in input order, up to the earliest failure.
	for i := range cur.items {
		it := &cur.items[i]
		if it.ev.Kind == EvRow && len(it.con) > 0 {
			if cb, ok := p.workers[it.w].inst.(consoleBuffer); ok {
				p.cons = append(p.cons, parConsole{at: len(m.Out), b: it.con, cb: cb})
			}
		}
		if i == stopAt {
			break // what the failing call printed goes out, not what it collected
		}
		switch it.ev.Kind {
		case EvRow:
			if it.hi == it.lo {
				m.quietRow()
			}
			m.Out = append(m.Out, cur.outs[it.w][it.lo:it.hi]...)
		default:
			if err := m.process(0, it.ev); err != nil {
				return err
			}
		}
	}
	p.spare = cur
	if cur.inErr != nil {
		p.inErr = cur.inErr
	}
	if stopAt >= 0 {
		// The outputs before the failing row go out first, as at
		// parallelism 1; the next step reports the error.
		for _, e := range cur.errs {
			if e.err != nil && e.seq == stopAt {
				p.inErr = e.err
			}
		}
		p.end = nil
	}
	return nil
}

// readBatch reads up to parBatch events of the input into b.
func (p *ParallelOp) readBatch(b *parWork) {
	in := p.main.Ins[0]
	cols := p.main.Node.Tables[0].Partition
	rowSem := !p.main.Node.Tables[0].Set
	for len(b.items) < parBatch {
		ev, err := in.Next()
		if err != nil {
			b.inErr = err
			break
		}
		if ev.Kind == EvEnd {
			b.end = &ev
			break
		}
		it := parItem{ev: ev, w: -1}
		if ev.Kind == EvRow {
			if rowSem {
				it.w = p.rows % len(p.workers)
				p.rows++
			} else {
				it.w = WorkerOf(ev.Row, cols, len(p.workers))
			}
			b.idx[it.w] = append(b.idx[it.w], len(b.items))
		} else if ev.Kind == EvWatermark {
			for w := range b.idx {
				b.idx[w] = append(b.idx[w], len(b.items))
			}
		}
		b.items = append(b.items, it)
	}
}

// startBatch runs b's items on the workers concurrently; b.stop receives
// the index of the earliest item that failed (-1: none) when all are done.
func (p *ParallelOp) startBatch(b *parWork) {
	var stop atomic.Int64
	stop.Store(int64(len(b.items)))
	var wg sync.WaitGroup
	for w, wk := range p.workers {
		wk.Out = b.outs[w][:0]
		if len(b.idx[w]) == 0 {
			continue
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if err := p.runWorker(w, b, &stop); err != nil {
				// lower the stop mark to the failing item
				for {
					cur := stop.Load()
					if int64(b.errs[w].seq) >= cur || stop.CompareAndSwap(cur, int64(b.errs[w].seq)) {
						break
					}
				}
			}
		}(w)
	}
	go func() {
		wg.Wait()
		first := -1
		for _, e := range b.errs {
			if e.err != nil && (first < 0 || e.seq < first) {
				first = e.seq
			}
		}
		b.stop <- first
	}()
}

// runWorker runs worker w's items of batch b in order; it stops at its
// first error or before an item past the stop mark.
func (p *ParallelOp) runWorker(wi int, b *parWork, stop *atomic.Int64) (err error) {
	current := len(b.items)
	defer func() {
		// A panic on a worker goroutine would end the process: it becomes
		// the worker's error instead (a bug of ptfsh, reported as one).
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error on parallel worker %d: %v; this is a bug in ptfsh: please report it with the statement and this message", wi, r)
			b.errs[wi] = parErr{seq: current, err: err}
		}
	}()
	w := p.workers[wi]
	cb, _ := w.inst.(consoleBuffer)
	fail := func(seq int, err error) error {
		b.errs[wi] = parErr{seq: seq, err: err}
		return err
	}
	if bt, ok := w.inst.(ptf.Batcher); ok {
		// The worker's calls run in one batch, as on one worker (PtfOp.steps).
		return bt.Batch(func() error { return p.runItems(w, wi, b, stop, cb, &current, fail) })
	}
	return p.runItems(w, wi, b, stop, cb, &current, fail)
}

// runItems runs worker w's items of batch b (see runWorker).
func (p *ParallelOp) runItems(w *PtfOp, wi int, b *parWork, stop *atomic.Int64, cb consoleBuffer, current *int, fail func(int, error) error) error {
	for _, i := range b.idx[wi] {
		if int64(i) > stop.Load() {
			return nil
		}
		if err := w.Ex.Ctx.Err(); err != nil {
			return fail(i, types.At(w.Node.Pos, ptf.ErrInterrupted))
		}
		*current = i
		it := &b.items[i]
		if it.ev.Kind == EvWatermark {
			w.workerWatermark(it.ev.Wm)
			continue
		}
		it.lo = len(w.Out)
		err := w.evalRow(0, it.ev.Row)
		it.hi = len(w.Out)
		if cb != nil {
			it.con = cb.TakeConsole()
		}
		if err != nil {
			return fail(i, err)
		}
	}
	return nil
}

// workerWatermark advances a worker's watermark: ctx.currentWatermark
// reads it, and timers it passes are dropped (parallel calls have no
// onTimer, so firing them does nothing).
func (w *PtfOp) workerWatermark(wm int64) {
	if w.hasWM && wm <= w.wm {
		return
	}
	w.wm, w.hasWM = wm, true
	w.inWM[0], w.inHas[0] = wm, true
	for t := w.timers.Next(wm); t != nil; t = w.timers.Next(wm) {
	}
}

// dropWorkerTimers applies the main operator's watermark (the restored
// one, or the end of input) to the workers.
func (p *ParallelOp) dropWorkerTimers() {
	if m := p.main; m.hasWM {
		for _, w := range p.workers {
			w.workerWatermark(m.wm)
		}
	}
}

// Flush writes the call's event time, the workers' timers and state, and
// the main operator's state to tx; final marks the end of the statement.
// It is called between batches (CheckpointDue), when the workers are idle.
func (p *ParallelOp) Flush(tx state.Tx, final bool) error {
	m := p.main
	if err := m.flushMeta(tx, final); err != nil {
		return err
	}
	if uid := m.Node.Uid; uid != "" {
		if err := p.saveTimers(tx, uid); err != nil {
			return err
		}
	}
	for _, w := range p.workers {
		if err := w.flushState(tx); err != nil {
			return err
		}
	}
	return m.flushState(tx)
}

// saveTimers replaces the stored timers of the call with those the
// workers hold (registered without onTimer, they wait for a watermark).
func (p *ParallelOp) saveTimers(tx state.Tx, uid string) error {
	if err := tx.DeleteNamespace(TimerNamespace(uid)); err != nil {
		return err
	}
	for _, w := range p.workers {
		if err := w.timers.put(tx, uid); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the main operator (and so the input), lets a running batch
// end and closes the workers' instances.
func (p *ParallelOp) Close() error {
	first := p.main.Close()
	if p.inflight != nil {
		<-p.inflight.stop // a statement that stopped: let the running batch end
		p.inflight = nil
	}
	for _, w := range p.workers {
		if c, ok := w.inst.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
