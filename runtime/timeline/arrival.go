package timeline

import (
	"fmt"
	"io"
	"strings"
)

// The arrival view draws time as books on stream processing do (Akidau
// et al., Streaming Systems, ch. 2-3): arrival time across, event time up,
// one point per row at the moment it came and at its own time, and the
// watermark as a curve that rises as the rows come. A row below the curve
// (at or before the watermark when it came) is late; a timer fires on a
// rise of the curve, where the watermark passed its time.
//
// Arrival time is the order in which rows reached the call: row k of it
// stands at 2k on a scale of half steps, and a watermark advance that row
// k caused at 2k + 1, between row k and row k + 1, which sees it. A record
// whose rows carry their processing time (Event.HasProc) puts them at that
// time instead.

// View is what a drawing puts across.
type View string

const (
	// EventView puts event time across and a lane per key down.
	EventView View = "event"
	// ArrivalView puts arrival time across and event time up.
	ArrivalView View = "arrival"
)

// Views lists the views, for the setting that chooses one.
var Views = []View{EventView, ArrivalView}

// TextView draws the record for a terminal in a view.
func TextView(w io.Writer, r *Record, v View) error {
	if v == ArrivalView {
		return arrivalText(w, r)
	}
	return Text(w, r)
}

// SVGView writes the record as a standalone SVG picture in a view.
func SVGView(w io.Writer, r *Record, v View) error {
	if v == ArrivalView {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
		arrivalSVG(&b, r, true)
		_, err := io.WriteString(w, b.String())
		return err
	}
	return SVG(w, r)
}

// HTMLView writes the record as one HTML page in a view.
func HTMLView(w io.Writer, r *Record, v View) error {
	if v == ArrivalView {
		var b strings.Builder
		htmlHead(&b)
		arrivalSVG(&b, r, false)
		htmlTail(&b)
		_, err := io.WriteString(w, b.String())
		return err
	}
	return HTML(w, r)
}

// aPoint is an event placed in the arrival view: x on the scale of half
// steps (or processing time), y its event time.
type aPoint struct {
	Event
	x int64
}

// aCall is one PTF call in the arrival view.
type aCall struct {
	name    string
	points  []aPoint // rows in, late, dropped
	wm      []aPoint // watermark advances: x, and the new watermark in Time
	fired   []aPoint // timers fired, at the advance that fired them
	ended   bool     // the watermark reached the end of input
	clock   bool     // wm is the processing-time clock (Clock events)
	op      string   // the SVG attribute of a window operator's section (callChart.dataOp)
	endX    int64    // where it did
	rows    int64    // rows arrived
	xMax    int64    // the largest x
	summary []string // what the event view says of the call
	untimed int      // rows without an event time, not drawn
}

// aChart is a record laid out for the arrival view.
type aChart struct {
	calls  []*aCall
	t0, t1 int64 // event times drawn (rows, finite watermarks, timers)
	has    bool  // some event has a time
	proc   bool  // x is processing time
	// windows, clock: a section is a window operator's, one follows the
	// processing-time clock (the legend says what their marks are).
	windows, clock bool
	n              int
	missed         int64
	notes          []string
}

// arrivalLayout places the events of a record.
func arrivalLayout(r *Record) *aChart {
	c := &aChart{n: len(r.Events), missed: r.Missed, notes: r.Notes, proc: len(r.Events) > 0}
	for _, e := range r.Events {
		if isArrival(e.Kind) && !e.HasProc {
			c.proc = false
		}
	}
	ev := layout(r) // the event view's summaries
	byName := map[string]*aCall{}
	for _, cc := range ev.calls {
		ac := &aCall{name: cc.name, op: cc.dataOp(), summary: []string{cc.summary(), cc.watermarkLine(ev.hasTime)}}
		c.windows, c.clock = c.windows || cc.windows, c.clock || cc.clock
		byName[cc.name] = ac
		c.calls = append(c.calls, ac)
	}
	see := func(t int64) {
		if t == End {
			return
		}
		if !c.has || t < c.t0 {
			c.t0 = t
		}
		if !c.has || t > c.t1 {
			c.t1 = t
		}
		c.has = true
	}
	for _, e := range r.Events {
		ac := byName[e.Call]
		if ac == nil {
			continue
		}
		now := 2*ac.rows + 1 // after the rows so far
		if c.proc && e.HasProc {
			now = e.Proc
		}
		switch {
		case isArrival(e.Kind):
			ac.rows++
			x := 2 * ac.rows
			if c.proc {
				x = e.Proc
			}
			if !e.HasTime {
				ac.untimed++
				continue
			}
			see(e.Time)
			ac.points = append(ac.points, aPoint{e, x})
			ac.xMax = max(ac.xMax, x)
		case e.Kind == Watermark || e.Kind == Clock:
			ac.clock = ac.clock || e.Kind == Clock
			if e.Time == End {
				ac.ended, ac.endX = true, now
				ac.xMax = max(ac.xMax, now)
				continue
			}
			ac.wm = append(ac.wm, aPoint{e, now}) // the range is the rows' and timers': a watermark beyond it stands at its edge
			ac.xMax = max(ac.xMax, now)
		case e.Kind == TimerFired:
			x := now
			if n := len(ac.wm); n > 0 && !c.proc {
				x = ac.wm[n-1].x // the advance that fired it
			}
			if ac.ended {
				x = ac.endX
			}
			if e.HasTime && e.Time != End {
				see(e.Time)
				ac.fired = append(ac.fired, aPoint{e, x})
			}
		}
	}
	if !c.has { // no row with a time: the watermark's range, if any
		for _, ac := range c.calls {
			for _, w := range ac.wm {
				see(w.Time)
			}
		}
	}
	return c
}

func isArrival(k Kind) bool { return k == RowIn || k == LateRow || k == DroppedRow }

// arrivalWhat says what the x axis measures.
func (c *aChart) arrivalWhat(ac *aCall) string {
	if c.proc {
		return "arrival time (processing time)"
	}
	return fmt.Sprintf("arrival time (the order the %s came in)", plural(int(ac.rows), "row"))
}
