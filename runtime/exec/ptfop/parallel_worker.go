package ptfop

import (
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The workers of a parallel call (parallel.go): each runs its events of
// a batch in input order on a goroutine of its own and records every call
// it makes, for the coordinator to hand out.

// parRec is a worker's record of its calls in the running batch; the
// operator's hooks (recStart, recRow, recFire) fill it.
type parRec struct {
	calls   []parCall
	xs      []parCallX
	lo, rlo int // where the outputs and registrations of the call began
	cb      consoleBuffer
	// enc encodes the rows the calls collect into buf (nil: they are
	// not encoded; Parallel.EncodeRows).
	enc exec.RowEncoder
	buf []byte
}

// work is worker wi's goroutine: it runs the batches fed to it in turn,
// until its feed is closed.
func (p *Parallel) work(wi int, feed <-chan *parWork) {
	defer p.running.Done()
	for b := range feed {
		p.runBatch(wi, b)
		if b.pending.Add(-1) == 0 {
			close(b.done)
		}
	}
}

// runInline runs batch b on the coordinator's goroutine, worker after
// worker (see parPace); no batch runs on the workers' goroutines then.
func (p *Parallel) runInline(b *parWork) {
	for wi := range p.workers {
		p.runBatch(wi, b)
	}
	close(b.done)
}

// runBatch runs worker wi's events of batch b and keeps what its calls
// made in b.
func (p *Parallel) runBatch(wi int, b *parWork) {
	w := p.workers[wi]
	w.out, w.rec.calls, w.rec.xs, w.timers.log, w.rec.buf = b.outs[wi][:0], b.calls[wi][:0], b.xs[wi][:0], b.regs[wi][:0], b.enc[wi][:0]
	if err := p.runWorker(wi, b); err != nil {
		// lower the stop mark to the failing event
		seq := b.base + int64(b.errs[wi].seq)
		for {
			cur := p.stop.Load()
			if seq >= cur || p.stop.CompareAndSwap(cur, seq) {
				break
			}
		}
	}
	b.outs[wi], b.calls[wi], b.xs[wi], b.regs[wi], b.enc[wi] = w.out, w.rec.calls, w.rec.xs, w.timers.log, w.rec.buf
	w.out, w.rec.calls, w.rec.xs, w.timers.log, w.rec.buf = nil, nil, nil, nil, nil
}

// runWorker runs worker w's items of batch b in order; it stops at its
// first error or before an item past the stop mark.
func (p *Parallel) runWorker(wi int, b *parWork) (err error) {
	current := len(b.items)
	defer func() {
		// A panic on a worker goroutine would end the process: it becomes
		// the worker's error instead (a bug of ptfsh, reported as one).
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error on parallel worker %d: %v; this is a bug in ptfsh: please report it with the statement and this message", wi, r)
			b.errs[wi] = parErr{seq: current, err: err}
		}
	}()
	if bt, ok := p.workers[wi].inst.(ptf.Batcher); ok {
		// The worker's calls run in one batch, as on one worker (Operator.steps).
		return bt.Batch(func() error { return p.runItems(wi, b, &current) })
	}
	return p.runItems(wi, b, &current)
}

// runItems runs worker wi's items of batch b (see runWorker); current is
// the item it is at.
func (p *Parallel) runItems(wi int, b *parWork, current *int) error {
	w := p.workers[wi]
	// The spans grow in a slice of the worker's own and go into b at the
	// end (a panic too goes through the deferred write): the headers of
	// b.spans lie side by side, and a write per event into them from both
	// workers would bounce their cache line between the cores.
	spans := b.spans[wi]
	defer func() { b.spans[wi] = spans }()
	for _, i := range b.idx[wi] {
		if b.base+int64(i) > p.stop.Load() {
			return nil
		}
		*current = i
		start := len(w.rec.calls)
		dropped, err := false, w.ex.Ctx.Err()
		if err != nil {
			err = types.At(w.node.Pos, ptf.ErrInterrupted)
		} else {
			dropped, err = w.runItem(b, &b.items[i])
		}
		if dropped {
			spans = append(spans, [2]int{droppedSpan, droppedSpan})
		} else {
			spans = append(spans, [2]int{start, len(w.rec.calls)})
		}
		if err != nil {
			b.errs[wi] = parErr{seq: i, err: err}
			return err
		}
	}
	return nil
}

// runItem runs one event of batch b on worker w; dropped: an ORDER BY
// buffer dropped the row as late. It writes nothing into b's items,
// which lie side by side with the other workers'.
func (w *Operator) runItem(b *parWork, it *parItem) (dropped bool, err error) {
	switch {
	case it.ev.Kind != exec.EvRow:
		return false, w.process(it.in, it.ev)
	case w.buffers[it.in] != nil:
		return !w.admit(it.in, it.ev.Row, it.seq), nil
	}
	w.recStart()
	var enc []byte
	if it.khi > 0 {
		enc = b.keys[it.klo:it.khi:it.khi]
	}
	err = w.evalRowKey(it.in, it.ev.Row, enc)
	w.record(parCallX{err: err})
	return false, err
}

// The hooks by which a worker records its calls; they do nothing in an
// operator that is no worker (rec is nil).

// recStart marks the beginning of a call.
func (o *Operator) recStart() {
	if r := o.rec; r != nil {
		r.lo, r.rlo = len(o.out), len(o.timers.log)
	}
}

// recRow records the call of a row an ORDER BY buffer released.
func (o *Operator) recRow(e sortEntry, err error) {
	if o.rec != nil {
		o.record(parCallX{released: true, ent: e, err: err})
	}
}

// recFire records the firing of timer t (or the error that stopped it).
func (o *Operator) recFire(t *timer, err error) {
	if o.rec != nil {
		o.record(parCallX{fire: t, time: t.time, wm: o.wm, err: err})
	}
}

func (o *Operator) record(x parCallX) {
	r := o.rec
	c := parCall{lo: r.lo, hi: len(o.out), rlo: r.rlo, rhi: len(o.timers.log)}
	if r.enc != nil && x.err == nil {
		x.err = r.encode(&c, o.out)
		if c.encoded {
			// its rows are bytes now: their events go, and lo, hi only
			// count them
			clear(o.out[c.lo:c.hi])
			o.out = o.out[:c.lo]
			c.lo, c.hi = 0, c.hi-c.lo
		}
	}
	if r.cb != nil {
		x.con = r.cb.TakeConsole()
	}
	if x.err != nil || x.fire != nil || x.released || len(x.con) > 0 {
		r.xs = append(r.xs, x)
		c.xi = int32(len(r.xs))
	}
	r.calls = append(r.calls, c)
}

// encode encodes the outputs of call c, outs[c.lo:c.hi], into r.buf,
// here on the worker's core while they are in its cache, so that the
// coordinator only copies bytes (Parallel.EncodeRows). A call with an
// output that is not a row keeps its events; an error of the encoder is
// the call's (returned), as at parallelism 1, where the printer's error
// stops the statement.
func (r *parRec) encode(c *parCall, outs []exec.Event) error {
	outs = outs[c.lo:c.hi]
	for i := range outs {
		if outs[i].Kind != exec.EvRow {
			return nil
		}
	}
	lo := len(r.buf)
	for i := range outs {
		var err error
		if r.buf, err = r.enc.AppendRow(r.buf, outs[i].Row); err != nil {
			r.buf = r.buf[:lo]
			return err
		}
	}
	c.encoded, c.blo, c.bhi = true, lo, len(r.buf)
	return nil
}
