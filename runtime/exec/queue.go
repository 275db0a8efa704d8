package exec

import "github.com/ptfsh/ptfsh/runtime/types"

// Queue holds the events an operator has made and not handed on yet, in
// the order it made them: a row may give several (an update is -U and
// +U), a watermark may release many. The zero value is an empty queue.
//
// A Queue reuses its array: once everything queued is handed on, the next
// Push starts at its beginning again.
type Queue struct {
	evs []Event
	at  int // the next to hand on
	// tev is the event Next gives to TimeOperator.Time: a field, so that
	// taking its address does not move every event Next reads to the heap.
	tev Event
}

// Push queues ev.
func (q *Queue) Push(ev Event) { q.evs = append(q.evs, ev) }

// PushRow queues a row of kind with fields.
func (q *Queue) PushRow(kind types.RowKind, fields []any) {
	q.evs = append(q.evs, Event{Kind: EvRow, Row: types.Row{Kind: kind, Fields: fields}})
}

// Pop takes the next event; ok is false when the queue is empty.
func (q *Queue) Pop() (ev Event, ok bool) {
	if q.at < len(q.evs) {
		ev = q.evs[q.at]
		q.evs[q.at] = Event{} // the queue keeps no row it handed on
		q.at++
		return ev, true
	}
	q.evs, q.at = q.evs[:0], 0
	return Event{}, false
}

// Len is the number of events queued.
func (q *Queue) Len() int { return len(q.evs) - q.at }

// RowOperator is the part of an operator over one input that Queue.Next
// drives: Row takes each input row and queues its output.
type RowOperator interface {
	Row(r types.Row) error
}

// TimeOperator is a RowOperator that also acts on event time: Time takes
// a watermark or the end of the input before it goes on, queues what it
// releases (windows that close, rows whose time came), and may change the
// event it is given (a join holds its watermark back).
type TimeOperator interface {
	RowOperator
	Time(ev *Event) error
}

// IdleOperator is a RowOperator that acts when its input is idle (an
// EvIdle): it releases what processing time made due.
type IdleOperator interface {
	RowOperator
	Idle() error
}

// Next is the loop of an operator op over one input: it hands on the
// events queued first; else it reads the input, gives a row to op.Row and
// reads on until something is queued. A watermark or the end goes to
// op.Time, when op is a TimeOperator, then follows what Time queued;
// otherwise (and a tick always) it goes on at once.
func (q *Queue) Next(in Stream, op RowOperator) (Event, error) {
	for {
		if ev, ok := q.Pop(); ok {
			return ev, nil
		}
		ev, err := in.Next()
		if err != nil {
			return ev, err
		}
		if ev.Kind == EvRow {
			if err := op.Row(ev.Row); err != nil {
				return Event{}, err
			}
			continue
		}
		if ev.Kind == EvIdle {
			// The input has nothing now: what the operator releases on
			// processing time goes first.
			if p, ok := op.(IdleOperator); ok {
				if err := p.Idle(); err != nil {
					return Event{}, err
				}
				if q.Len() > 0 {
					q.Push(ev)
					continue
				}
			}
			return ev, nil
		}
		t, ok := op.(TimeOperator)
		if !ok || ev.Kind == EvTick || ev.Kind == EvStatus {
			return ev, nil
		}
		q.tev = ev
		err = t.Time(&q.tev)
		ev, q.tev = q.tev, Event{}
		if err != nil {
			return Event{}, err
		}
		q.Push(ev)
	}
}
