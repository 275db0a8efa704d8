package connector

import (
	"errors"
	"io"

	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Read-ahead. Decoding a CSV or JSON file (splitting, numbers, timestamps,
// interning strings) is a sixth of the time of an event-time workload
// such as the flights alert, all of it on the goroutine that then runs
// the function. A prefetchReader moves it to a goroutine of its own,
// which decodes batches of rows ahead of the statement while a core is
// free, and hands them over a batch at a time (one channel operation per
// prefetchRows rows).
//
// What the statement sees does not change: the rows, bad rows
// ([*format.ParseError]) and errors come in the file's order, and Position
// is the position after the last row handed out, not the one the
// goroutine reached, so checkpoints record what the statement consumed.
// The goroutine stops at the end of the file or at a final error; after
// that the reader reads its file directly, on the caller's goroutine, so
// rows appended later are read as before. The end the goroutine found is
// asked again when the statement gets there: rows appended in between
// (by the statement itself, say) are read, as without the read-ahead.
//
// Only regular files are read ahead: a pipe or a terminal gives its rows
// when they are typed, and a batch must not wait for rows to come.

// prefetchRows is the size of a batch, and prefetchBatches how many
// batches are in flight (decoded and not yet handed out).
const (
	prefetchRows    = 1024
	prefetchBatches = 4
)

// prefetchReader is a [format.RowReader] that decodes its file ahead on a
// goroutine. Next, Position, Skipped and Close are for one goroutine, the
// statement's.
type prefetchReader struct {
	r      format.RowReader
	full   chan *prefetchBatch // decoded, in file order
	free   chan *prefetchBatch // handed out, to be filled again
	done   chan struct{}       // closed by Close: the goroutine stops
	exited chan struct{}       // closed when the goroutine has stopped
	cur    *prefetchBatch
	i      int
	pos    format.SourcePos // after the last item handed out, or before the rows of cur
	direct bool             // the goroutine has stopped: r is read directly
	closed bool
}

// prefetchItem is what one call of the inner reader's Next returned, and
// where it stood after it.
type prefetchItem struct {
	row types.Row
	err error
	pos format.SourcePos
}

// A batch is rows, read from a [format.RowBatchReader] with the
// position before them (pos0), then items: a batch reader's rows need no
// position each, since each moves it on by one row.
type prefetchBatch struct {
	rows  []types.Row
	pos0  format.SourcePos
	items []prefetchItem
	// panicked is a panic of the inner reader, raised again on the
	// statement's goroutine, where it would have happened.
	panicked any
}

// newPrefetchReader starts reading r ahead.
func newPrefetchReader(r format.RowReader) *prefetchReader {
	p := &prefetchReader{
		r:      r,
		full:   make(chan *prefetchBatch, prefetchBatches),
		free:   make(chan *prefetchBatch, prefetchBatches),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		pos:    r.Position(),
	}
	_, batched := r.(format.RowBatchReader)
	for range prefetchBatches {
		b := &prefetchBatch{}
		if batched {
			b.rows = make([]types.Row, 0, prefetchRows)
		} else {
			b.items = make([]prefetchItem, 0, prefetchRows)
		}
		p.free <- b
	}
	go p.run()
	return p
}

// final reports whether err ends the inner reader's rows: anything but a
// bad row, after which Next may be called again.
func final(err error) bool {
	if err == nil {
		return false // before pe, which errors.As moves to the heap
	}
	var pe *format.ParseError
	return !errors.As(err, &pe)
}

// run is the goroutine: it fills free batches until the end of the file
// or a final error, or until Close.
func (p *prefetchReader) run() {
	defer close(p.exited)
	for {
		var b *prefetchBatch
		select {
		case b = <-p.free:
		case <-p.done:
			return
		}
		last := p.fill(b)
		select {
		case p.full <- b:
		case <-p.done:
			return
		}
		if last {
			return
		}
	}
}

// fill decodes up to prefetchRows items into b; it reports whether the
// last one ends the file.
func (p *prefetchReader) fill(b *prefetchBatch) (last bool) {
	b.rows, b.items = b.rows[:0], b.items[:0]
	defer func() {
		if v := recover(); v != nil {
			b.panicked, last = v, true
		}
	}()
	if br, ok := p.r.(format.RowBatchReader); ok {
		b.pos0 = p.r.Position()
		for len(b.rows) < prefetchRows {
			n, err := br.NextRows(b.rows[len(b.rows):prefetchRows])
			b.rows = b.rows[:len(b.rows)+n]
			if err != nil {
				// What follows goes as items, the error first.
				b.items = append(b.items, prefetchItem{err: err, pos: p.r.Position()})
				if final(err) {
					return true
				}
				break
			}
		}
	}
	for len(b.rows)+len(b.items) < prefetchRows {
		row, err := p.r.Next()
		b.items = append(b.items, prefetchItem{row: row, err: err, pos: p.r.Position()})
		if final(err) {
			return true
		}
	}
	return false
}

// Next implements [format.RowReader].
func (p *prefetchReader) Next() (types.Row, error) {
	if p.direct {
		return p.r.Next()
	}
	if p.cur == nil || p.i == len(p.cur.rows)+len(p.cur.items) {
		if p.cur != nil {
			if v := p.cur.panicked; v != nil {
				// The inner reader panicked in the call after the batch's
				// last row: this one.
				p.stopped()
				panic(v)
			}
			p.pos = p.Position()
			clear(p.cur.rows) // the rows belong to the statement now
			clear(p.cur.items)
			p.free <- p.cur // never blocks: free holds every batch
		}
		p.cur, p.i = <-p.full, 0
		if v := p.cur.panicked; v != nil && len(p.cur.rows)+len(p.cur.items) == 0 {
			p.stopped()
			panic(v)
		}
	}
	if p.i < len(p.cur.rows) {
		p.i++
		return p.cur.rows[p.i-1], nil
	}
	it := &p.cur.items[p.i-len(p.cur.rows)]
	p.i++
	p.pos = it.pos
	if p.i == len(p.cur.rows)+len(p.cur.items) && final(it.err) {
		p.stopped()
		if errors.Is(it.err, io.EOF) {
			// The end as the goroutine found it, earlier than the
			// statement asks: what was appended since (by the statement
			// itself, say) is read now, as a direct reader reads it.
			return p.r.Next()
		}
	}
	return it.row, it.err
}

// stopped waits for the goroutine, which has handed out its last batch,
// and reads directly from then on.
func (p *prefetchReader) stopped() {
	<-p.exited
	p.direct = true
}

// Position implements [format.RowReader]: just after the last row handed
// out.
func (p *prefetchReader) Position() format.SourcePos {
	if p.direct {
		return p.r.Position()
	}
	if p.cur != nil && p.i > 0 && p.i <= len(p.cur.rows) {
		pos := p.cur.pos0
		pos.Offset += int64(p.i)
		pos.Row += int64(p.i)
		return pos
	}
	return p.pos
}

// Skipped implements [format.SkipReporter] for a reader that skips bad rows.
// The statement asks at the end of the file, when the goroutine has
// stopped; before, it reports what the rows handed out skipped so far
// only approximately, so it reports nothing.
func (p *prefetchReader) Skipped() (int64, []format.ParseError) {
	sr, ok := p.r.(format.SkipReporter)
	if !ok || !p.direct {
		return 0, nil
	}
	return sr.Skipped()
}

// Close implements [format.RowReader]: it stops the goroutine and closes the
// inner reader. It is safe to call more than once.
func (p *prefetchReader) Close() error {
	if !p.closed && !p.direct {
		close(p.done)
		<-p.exited
	}
	p.closed = true
	return p.r.Close()
}
