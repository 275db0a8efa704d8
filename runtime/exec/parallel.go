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
// Each worker is a ptfOp of its own with an isolated instance
// (FuncDef.NewIsolated: a JavaScript runtime of its own), its own state
// cache and its own output. The call's operator (the coordinator) reads
// its input in batches of up to parWork events, ending a batch at the end
// of the input. A row goes to the worker hash(partition key) mod N;
// watermarks go to every worker. The workers run the batch concurrently,
// each its own rows in input order, and the coordinator then hands out
// the outputs of the batch in input order: the rows the call of input row
// i emitted, then those of row i+1. The output is therefore the same as at
// parallelism 1, row for row.
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

// parWork is how many input events a parallel call reads before it runs them.
const parBatch = 4096

// parallelReason says why call n runs on one worker ("" when it may run on
// several).
func parallelReason(n *PtfNode, ex *Execution) string {
	switch {
	case n.Def.NewIsolated == nil:
		return "its instances cannot run apart (no isolated runtime, e.g. a built-in function)"
	case len(n.Tables) != 1:
		return "it does not take exactly one table argument"
	case !n.Tables[0].Set || len(n.Tables[0].Partition) == 0:
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

// parState is the coordinator's side of a parallel call.
type ParState struct {
	Workers  []*PtfOp
	inflight *parWork // running on the workers
	spare    *parWork // handed out, to reuse
	end      *Event   // the end of input, handled after the last batch
	inErr    error    // an input or call error, reported after the outputs before it
	// cons is console output of the calls, to replay as the outputs
	// before which the calls printed it are handed out.
	cons []parConsole
	ci   int
}

// batch returns an empty batch.
func (p *ParState) batch() *parWork {
	b := p.spare
	p.spare = nil
	if b == nil {
		n := len(p.Workers)
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
func (p *ParState) replayConsole(at int) error {
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

// openWorkers makes the n workers of op.
func (o *PtfOp) openWorkers(spec ptf.CallSpec, n int) error {
	p := &ParState{}
	o.par = p
	for i := 0; i < n; i++ {
		inst, err := o.Node.Def.NewIsolated(spec)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Node.Fn, err)
		}
		w := &PtfOp{Node: o.Node, inst: inst, Ex: o.Ex, keyedState: newKeyedState(o.Node, o.Ex), Views: newViewState(o.Node, o.Ex, o.Ttl), Ttl: o.Ttl}
		w.ctx = ptf.NewContext(w)
		p.Workers = append(p.Workers, w)
		if len(o.Node.Def.State) > 0 {
			codec, ok := inst.(ptf.StateCodec)
			if !ok {
				return fmt.Errorf("%s declares state but its instance cannot keep state", o.Node.Fn)
			}
			w.codec = codec
			w.stored = o.stored
		}
		w.ended = []bool{false}
		w.inWM, w.inHas = []int64{0}, []bool{false}
		w.Buffers = []*sortBuffer{nil}
	}
	return nil
}

// workerOf picks the worker of a row by a hash of its partition key.
func (p *ParState) WorkerOf(r types.Row, cols []int) int {
	h := fnv.New32a()
	h.Write(keycodec.Encode(keycodec.Pick(r, cols)))
	return int(h.Sum32() % uint32(len(p.Workers)))
}

// stepParallel hands out the outputs of the next batch in input order,
// with the batch after it already running (see the pipeline above).
func (o *PtfOp) stepParallel() error {
	p := o.par
	if p.inErr != nil {
		return p.inErr
	}
	if p.inflight == nil {
		if p.end != nil {
			ev := *p.end
			p.end = nil
			if err := o.process(0, ev); err != nil {
				return err
			}
			o.dropWorkerTimers()
			o.done = true
			return nil
		}
		b := p.batch()
		o.readBatch(b)
		o.startBatch(b)
		p.inflight = b
	}
	cur := p.inflight
	var next *parWork
	if cur.end == nil && cur.inErr == nil && !o.Ex.CheckpointDue(parBatch) {
		next = p.batch()
		o.readBatch(next) // while the workers run cur
	}
	stopAt := <-cur.stop
	for w, wk := range p.Workers {
		cur.outs[w], wk.Out = wk.Out, nil
	}
	p.inflight = nil
	if stopAt < 0 && next != nil {
		o.startBatch(next) // it runs while cur is handed out
		p.inflight = next
	}
	if cur.end != nil {
		p.end = cur.end
	}
	// Hand out in input order, up to the earliest failure.
	for i := range cur.items {
		it := &cur.items[i]
		if it.ev.Kind == EvRow && len(it.con) > 0 {
			if cb, ok := p.Workers[it.w].inst.(consoleBuffer); ok {
				p.cons = append(p.cons, parConsole{at: len(o.Out), b: it.con, cb: cb})
			}
		}
		if i == stopAt {
			break // what the failing call printed goes out, not what it collected
		}
		switch it.ev.Kind {
		case EvRow:
			if it.hi == it.lo {
				o.quietRow()
			}
			o.Out = append(o.Out, cur.outs[it.w][it.lo:it.hi]...)
		default:
			if err := o.process(0, it.ev); err != nil {
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

// readBatch reads up to parWork events of the input into b.
func (o *PtfOp) readBatch(b *parWork) {
	p := o.par
	cols := o.Node.Tables[0].Partition
	for len(b.items) < parBatch {
		ev, err := o.Ins[0].Next()
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
			it.w = p.WorkerOf(ev.Row, cols)
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
func (o *PtfOp) startBatch(b *parWork) {
	p := o.par
	var stop atomic.Int64
	stop.Store(int64(len(b.items)))
	var wg sync.WaitGroup
	for w, wk := range p.Workers {
		wk.Out = b.outs[w][:0]
		if len(b.idx[w]) == 0 {
			continue
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if err := o.runWorker(w, b, &stop); err != nil {
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
func (o *PtfOp) runWorker(wi int, b *parWork, stop *atomic.Int64) (err error) {
	current := len(b.items)
	defer func() {
		// A panic on a worker goroutine would end the process: it becomes
		// the worker's error instead (a bug of ptfsh, reported as one).
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error on parallel worker %d: %v; this is a bug in ptfsh: please report it with the statement and this message", wi, r)
			b.errs[wi] = parErr{seq: current, err: err}
		}
	}()
	w := o.par.Workers[wi]
	cb, _ := w.inst.(consoleBuffer)
	fail := func(seq int, err error) error {
		b.errs[wi] = parErr{seq: seq, err: err}
		return err
	}
	for _, i := range b.idx[wi] {
		if int64(i) > stop.Load() {
			return nil
		}
		if err := o.Ex.Ctx.Err(); err != nil {
			return fail(i, types.At(o.Node.Pos, ptf.ErrInterrupted))
		}
		current = i
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

// dropWorkerTimers applies the coordinator's watermark (the end of input)
// to the workers.
func (o *PtfOp) dropWorkerTimers() {
	if o.hasWM {
		for _, w := range o.par.Workers {
			w.workerWatermark(o.wm)
		}
	}
}

// saveTimers replaces the stored timers of the call with those the
// workers hold (registered without onTimer, they wait for a watermark).
func (p *ParState) saveTimers(tx state.Tx, uid string) error {
	if err := tx.DeleteNamespace(TimerNamespace(uid)); err != nil {
		return err
	}
	for _, w := range p.Workers {
		if err := w.timers.put(tx, uid); err != nil {
			return err
		}
	}
	return nil
}

// flush writes the workers' state to tx.
func (p *ParState) Flush(tx state.Tx) error {
	for _, w := range p.Workers {
		if err := w.flushState(tx); err != nil {
			return err
		}
	}
	return nil
}

// close closes the workers' instances.
func (p *ParState) Close() error {
	if p.inflight != nil {
		<-p.inflight.stop // a statement that stopped: let the running batch end
		p.inflight = nil
	}
	var first error
	for _, w := range p.Workers {
		if c, ok := w.inst.(interface{ Close() error }); ok {
			if err := c.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
