package exec

import (
	"fmt"
	"hash/fnv"
	"strconv"
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
// its input in batches of up to parBatch events, ending a batch at the end
// of the input. A row goes to the worker hash(partition key) mod N;
// watermarks go to every worker. The workers run the batch concurrently,
// each its own rows in input order, and the coordinator then hands out
// the outputs of the batch in input order: the rows the call of input row
// i emitted, then those of row i+1. The output is therefore the same as at
// parallelism 1, row for row.
//
// Between batches every worker is idle, so checkpoints (taken between
// events the coordinator hands out) see all workers drained. State is
// kept under the same keys as at parallelism 1 (the partition key).
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

// parState is the coordinator's side of a parallel call.
type ParState struct {
	Workers []*PtfOp
	items   []parItem
	idx     [][]int // per worker, indexes into items of its events
	errs    []parErr
	end     *Event // the event that ended the input (evEnd), once read
	inErr   error  // an input or call error, reported after the batch's outputs
	// cons is console output of the calls, to replay as the outputs
	// before which the calls printed it are handed out.
	cons []parConsole
	ci   int
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
	p := &ParState{idx: make([][]int, n), errs: make([]parErr, n)}
	o.par = p
	for i := 0; i < n; i++ {
		inst, err := o.Node.Def.NewIsolated(spec)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Node.Fn, err)
		}
		w := &PtfOp{Node: o.Node, inst: inst, Ex: o.Ex, cache: map[string]*keyState{}, spilled: map[string]bool{}, worker: true}
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
		w.Ttl = o.Ttl
	}
	return nil
}

// workerOf picks the worker of a row by a hash of its partition key.
func (p *ParState) WorkerOf(r types.Row, cols []int) int {
	h := fnv.New32a()
	h.Write(keycodec.Encode(keycodec.Pick(r, cols)))
	return int(h.Sum32() % uint32(len(p.Workers)))
}

// stepParallel reads a batch, runs it on the workers and hands out its
// outputs in input order.
func (o *PtfOp) stepParallel() error {
	p := o.par
	if p.inErr != nil {
		return p.inErr
	}
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
	p.items = p.items[:0]
	for w := range p.idx {
		p.idx[w] = p.idx[w][:0]
	}
	cols := o.Node.Tables[0].Partition
	for len(p.items) < parBatch {
		ev, err := o.Ins[0].Next()
		if err != nil {
			p.inErr = err
			break
		}
		if ev.Kind == EvEnd {
			p.end = &ev
			break
		}
		it := parItem{ev: ev, w: -1}
		if ev.Kind == EvRow {
			it.w = p.WorkerOf(ev.Row, cols)
			p.idx[it.w] = append(p.idx[it.w], len(p.items))
		} else if ev.Kind == EvWatermark {
			for w := range p.idx {
				p.idx[w] = append(p.idx[w], len(p.items))
			}
		}
		p.items = append(p.items, it)
	}
	stopAt := o.runBatch()
	// Hand out in input order, up to the earliest failure.
	for i := range p.items {
		it := &p.items[i]
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
			w := p.Workers[it.w]
			if it.hi == it.lo {
				o.quietRow()
			}
			o.Out = append(o.Out, w.Out[it.lo:it.hi]...)
		default:
			if err := o.process(0, it.ev); err != nil {
				return err
			}
		}
	}
	for _, w := range p.Workers {
		clear(w.Out)
		w.Out = w.Out[:0]
	}
	if stopAt >= 0 {
		// The outputs before the failing row go out first, as at
		// parallelism 1; the next step reports the error.
		for _, e := range p.errs {
			if e.err != nil && e.seq == stopAt {
				p.inErr = e.err
			}
		}
		p.end = nil
	}
	return nil
}

// runBatch runs the batch's items on the workers concurrently and returns
// the index of the earliest item that failed (-1: none).
func (o *PtfOp) runBatch() int {
	p := o.par
	var stop atomic.Int64
	stop.Store(int64(len(p.items)))
	var wg sync.WaitGroup
	for w := range p.Workers {
		p.errs[w] = parErr{}
		if len(p.idx[w]) == 0 {
			continue
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if err := o.runWorker(w, &stop); err != nil {
				// lower the stop mark to the failing item
				for {
					cur := stop.Load()
					if int64(p.errs[w].seq) >= cur || stop.CompareAndSwap(cur, int64(p.errs[w].seq)) {
						break
					}
				}
			}
		}(w)
	}
	wg.Wait()
	first := -1
	for _, e := range p.errs {
		if e.err != nil && (first < 0 || e.seq < first) {
			first = e.seq
		}
	}
	return first
}

// runWorker runs worker w's items of the batch in order; it stops at its
// first error or before an item past the stop mark.
func (o *PtfOp) runWorker(wi int, stop *atomic.Int64) (err error) {
	defer func() {
		// A panic on a worker goroutine would end the process: it becomes
		// the worker's error instead (a bug of ptfsh, reported as one).
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error on parallel worker %d: %v; this is a bug in ptfsh: please report it with the statement and this message", wi, r)
		}
	}()
	p := o.par
	w := p.Workers[wi]
	cb, _ := w.inst.(consoleBuffer)
	fail := func(seq int, err error) error {
		p.errs[wi] = parErr{seq: seq, err: err}
		return err
	}
	for _, i := range p.idx[wi] {
		if int64(i) > stop.Load() {
			return nil
		}
		if err := o.Ex.Ctx.Err(); err != nil {
			return fail(i, types.At(o.Node.Pos, ptf.ErrInterrupted))
		}
		it := &p.items[i]
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

// parallelism parses SET 'parallelism.default'.
func ParseParallelism(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("SET '%s' needs a whole number of at least 1, not '%s'", SetParallelism, v)
	}
	return n, nil
}
