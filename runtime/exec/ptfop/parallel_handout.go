package ptfop

import "github.com/ptfsh/ptfsh/runtime/exec"

// The hand-out of a parallel call (parallel.go): the coordinator queues
// the calls the workers recorded in the order of parallelism 1, with the
// console output of each call just before its outputs.

// consoleQueue is console output kept for later: each entry is printed
// just before the output at its index is handed on (replay).
type consoleQueue struct {
	cons []parConsole
	ci   int // the next to print
}

func (q *consoleQueue) add(c parConsole) { q.cons = append(q.cons, c) }

func (q *consoleQueue) empty() bool { return q.ci >= len(q.cons) }

// replay writes the console output due before output at (all of it when
// at < 0).
func (q *consoleQueue) replay(at int) error {
	for q.ci < len(q.cons) && (at < 0 || q.cons[q.ci].at <= at) {
		c := q.cons[q.ci]
		q.cons[q.ci] = parConsole{}
		q.ci++
		if err := c.cb.ReplayConsole(c.b); err != nil {
			return err
		}
	}
	if q.ci == len(q.cons) {
		q.cons, q.ci = q.cons[:0], 0
	}
	return nil
}

// handOut queues the outputs of batch b in the main operator's Out in the
// order of parallelism 1, up to the failing item stopAt (-1: none); it
// returns the error that stops the call.
func (p *Parallel) handOut(b *parWork, stopAt int) error {
	m := p.main
	clear(p.cursor)
	p.encBuf, p.encFrom, p.encRows = p.encBuf[:0], 0, 0 // the session wrote what the last hand-out gave it
	defer p.flushEncoded()
	for i := range b.items {
		it := &b.items[i]
		mark, encMark := len(m.out), p.encMark()
		err := p.handItem(b, it)
		if err == nil && i == stopAt {
			// a failure that no call recorded (an interruption, a panic)
			for _, e := range b.errs {
				if e.err != nil && e.seq == stopAt {
					err = e.err
				}
			}
		}
		if err != nil {
			m.out = m.out[:mark] // as at parallelism 1, the failing event's outputs are lost
			p.encBuf, p.encFrom, p.encRows = p.encBuf[:encMark[0]], encMark[1], encMark[2]
			return err
		}
	}
	return nil
}

// droppedSpan is the start of the span of a row that an ORDER BY buffer
// dropped as late.
const droppedSpan = -1

// span returns the calls worker w made for its next event of b.
func (p *Parallel) span(b *parWork, w int) (lo, hi int) {
	k := p.cursor[w]
	p.cursor[w]++
	if k >= len(b.spans[w]) {
		return 0, 0 // the worker stopped before it
	}
	return b.spans[w][k][0], b.spans[w][k][1]
}

// handItem queues the outputs of one event of b.
func (p *Parallel) handItem(b *parWork, it *parItem) error {
	m := p.main
	switch {
	case it.ev.Kind == exec.EvRow:
		lo, hi := p.span(b, it.w)
		switch {
		case lo == droppedSpan:
			m.buffers[it.in].Dropped++
		case lo == hi: // buffered by ORDER BY
			p.quietRow()
		default:
			c := &b.calls[it.w][lo]
			if err := p.hand(b, it.w, c); err != nil {
				return err
			}
			if c.hi == c.lo {
				p.quietRow()
			}
		}
		return nil
	case it.w == -1:
		return p.handTime(b, it)
	}
	p.flushEncoded()
	return m.process(it.in, it.ev)
}

// handTime queues the outputs of a watermark or an end: the rows the
// ORDER BY buffer released, then the timers that fired, each merged over
// the workers, then the watermark.
func (p *Parallel) handTime(b *parWork, it *parItem) error {
	m := p.main
	for w := range p.workers {
		p.at[w], p.lim[w] = p.span(b, w)
	}
	var keys []SortKey
	if buf := m.buffers[it.in]; buf != nil {
		keys = buf.keys
	}
	for {
		best := -1
		for w := range p.workers {
			if p.at[w] == p.lim[w] || !b.callX(w, &b.calls[w][p.at[w]]).released {
				continue
			}
			if best < 0 || lessEntry(keys, &b.callX(w, &b.calls[w][p.at[w]]).ent, &b.callX(best, &b.calls[best][p.at[best]]).ent) {
				best = w
			}
		}
		if best < 0 {
			break
		}
		c := &b.calls[best][p.at[best]]
		p.at[best]++
		if err := p.hand(b, best, c); err != nil {
			return err
		}
	}
	limit := m.ex.Opts.MaxTimerFirings
	before, fired := p.gseq, 0
	for {
		best := -1
		for w := range p.workers {
			if p.at[w] == p.lim[w] {
				continue
			}
			c, bc := b.callX(w, &b.calls[w][p.at[w]]), (*parCallX)(nil)
			if best >= 0 {
				bc = b.callX(best, &b.calls[best][p.at[best]])
			}
			if bc == nil || c.time < bc.time || c.time == bc.time && c.fire.gseq < bc.fire.gseq {
				best = w
			}
		}
		if best < 0 {
			break
		}
		c := &b.calls[best][p.at[best]]
		x := b.callX(best, c)
		p.at[best]++
		// The runaway guard of Operator.fireTimers, over the whole call.
		if x.fire.gseq > before {
			fired++
		}
		if limit > 0 && fired > limit {
			p.flushEncoded()
			return m.runawayError(x.wm)
		}
		if x.wm == exec.MaxWatermark {
			m.EndFire++
		}
		if err := p.hand(b, best, c); err != nil {
			return err
		}
	}
	p.flushEncoded()
	return m.process(it.in, it.ev)
}

// hand queues the outputs of call c of worker w, after its console output,
// and numbers the timers it registered; it returns the call's error.
func (p *Parallel) hand(b *parWork, w int, c *parCall) error {
	m := p.main

	x := b.callX(w, c)
	if len(x.con) > 0 {
		if cb := p.workers[w].rec.cb; cb != nil {
			p.flushEncoded() // the rows before it, before it
			p.cons.add(parConsole{at: len(m.out), b: x.con, cb: cb})
		}
	}
	if x.err != nil {
		return x.err
	}
	for _, t := range b.regs[w][c.rlo:c.rhi] {
		p.gseq++
		t.gseq = p.gseq
	}
	if c.encoded {
		p.encBuf = append(p.encBuf, b.enc[w][c.blo:c.bhi]...)
		p.encRows += c.hi - c.lo
		return nil
	}
	p.flushEncoded()
	m.out = append(m.out, b.outs[w][c.lo:c.hi]...)
	return nil
}

// quietRow is the main operator's quietRow, in its place among the
// encoded rows.
func (p *Parallel) quietRow() {
	p.flushEncoded()
	p.main.quietRow()
}

// flushEncoded queues the encoded rows gathered since the last output
// as one EvEncoded event.
func (p *Parallel) flushEncoded() {
	if p.encRows == 0 {
		return
	}
	m := p.main
	m.out = append(m.out, exec.EncodedEvent(p.encBuf[p.encFrom:len(p.encBuf):len(p.encBuf)], p.encRows))
	p.encFrom, p.encRows = len(p.encBuf), 0
}

// encMark is where the encoded rows stand, to go back to (handOut).
func (p *Parallel) encMark() [3]int { return [3]int{len(p.encBuf), p.encFrom, p.encRows} }

// EncodeRows makes the workers encode their output rows (see
// exec.RowEncoding), one encoder each; the hand-out then queues the bytes
// of consecutive rows as one EvEncoded event. The statement's printer
// only writes them: on one core it would format every row the workers
// made on the other, reading them from the other core's cache.
func (p *Parallel) EncodeRows(newEncoder func() exec.RowEncoder) bool {
	if p.read > 0 || len(p.queue) > 0 {
		return false // too late: it asks before the first batch
	}
	encs := make([]exec.RowEncoder, len(p.workers))
	for i := range encs {
		if encs[i] = newEncoder(); encs[i] == nil {
			return false
		}
	}
	for i, w := range p.workers {
		w.rec.enc = encs[i]
	}
	p.encoding = true
	return true
}
