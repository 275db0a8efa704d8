package timeline

import (
	"fmt"
	"strings"
)

// MaxLanes is the most keys a call draws a lane each for; above it keys
// share Buckets lanes.
const MaxLanes = 40

// Buckets is how many lanes the keys of a call share above MaxLanes keys.
const Buckets = 20

// chart is a record laid out: the time range across and, per call, its
// watermark and its lanes down.
type chart struct {
	calls []*callChart
	// t0, t1 is the range of finite event times; hasTime is false when
	// no event has a time, and then events go across in the order they
	// happened (x = index in the record, 0 to n-1).
	t0, t1  int64
	hasTime bool
	n       int // events in the record
	missed  int64
	notes   []string
}

// callChart is one PTF call of the query.
type callChart struct {
	name       string
	wm         []placed // the watermark's advances
	endOfInput bool     // the watermark reached the end of input
	lanes      []*lane
	aggregated bool // keys share lanes
	keys       int
	counts     [Clock + 1]int
	// clock: the call follows the processing-time clock (Clock events),
	// which wm holds, not a watermark; windows: it is a window operator.
	clock, windows bool
	untimed        int // events without a time, not drawn (in a chart with times)
}

// lane is the events of one key, or of a bucket of keys.
type lane struct {
	label string
	first string // the first and last key of a bucket
	last  string
	keys  int
	in    []placed // rows in, late and dropped rows, timers
	out   []placed // rows out
}

// placed is an event and its place across: x is its time, or its index
// in the record when the chart has no times.
type placed struct {
	Event
	x int64
}

// layout turns a record into a chart.
func layout(r *Record) *chart {
	c := &chart{n: len(r.Events), missed: r.Missed, notes: r.Notes}
	for _, e := range r.Events {
		if e.HasTime && e.Time != End {
			if !c.hasTime || e.Time < c.t0 {
				c.t0 = e.Time
			}
			if !c.hasTime || e.Time > c.t1 {
				c.t1 = e.Time
			}
			c.hasTime = true
		}
	}
	if !c.hasTime {
		c.t0, c.t1 = 0, int64(max(len(r.Events)-1, 0))
	}
	calls := map[string]*callChart{}
	keyLanes := map[string]map[string]*lane{}
	for i, e := range r.Events {
		cc := calls[e.Call]
		if cc == nil {
			cc = &callChart{name: e.Call}
			calls[e.Call] = cc
			keyLanes[e.Call] = map[string]*lane{}
			c.calls = append(c.calls, cc)
		}
		if int(e.Kind) >= len(cc.counts) {
			continue
		}
		cc.counts[e.Kind]++
		cc.windows = cc.windows || e.Window
		p := placed{Event: e, x: int64(i)}
		if c.hasTime {
			p.x = e.Time
			if !e.HasTime {
				cc.untimed++
				continue
			}
		}
		if e.Kind == Clock {
			cc.clock = true
			cc.wm = append(cc.wm, p)
			continue
		}
		if e.Kind == Watermark {
			if e.Time == End {
				cc.endOfInput = true
				continue
			}
			cc.wm = append(cc.wm, p)
			continue
		}
		if e.Time == End && c.hasTime {
			cc.untimed++
			continue
		}
		l := keyLanes[e.Call][e.Key]
		if l == nil {
			label := printable(e.Key)
			if label == "" {
				label = "(no key)"
			}
			l = &lane{label: label, first: label, last: label, keys: 1}
			keyLanes[e.Call][e.Key] = l
			cc.lanes = append(cc.lanes, l)
		}
		if e.Kind == RowOut {
			l.out = append(l.out, p)
		} else {
			l.in = append(l.in, p)
		}
	}
	for _, cc := range c.calls {
		cc.keys = len(cc.lanes)
		if cc.keys > MaxLanes {
			cc.lanes, cc.aggregated = bucket(cc.lanes), true
		}
	}
	return c
}

// bucket puts many keys' lanes into Buckets lanes, in the order the keys
// first appeared.
func bucket(lanes []*lane) []*lane {
	per := (len(lanes) + Buckets - 1) / Buckets
	var out []*lane
	for i := 0; i < len(lanes); i += per {
		j := min(i+per, len(lanes))
		b := &lane{first: lanes[i].label, last: lanes[j-1].label, keys: j - i}
		b.label = fmt.Sprintf("keys %d-%d", i+1, j)
		for _, l := range lanes[i:j] {
			b.in = append(b.in, l.in...)
			b.out = append(b.out, l.out...)
		}
		out = append(out, b)
	}
	return out
}

// summary says in one line what a call did.
func (cc *callChart) summary() string {
	n := cc.counts
	var parts []string
	parts = append(parts, plural(cc.keys, "key"))
	in := fmt.Sprintf("%s in", plural(n[RowIn]+n[LateRow]+n[DroppedRow], "row"))
	if n[LateRow]+n[DroppedRow] > 0 {
		in += fmt.Sprintf(" (%d late", n[LateRow]+n[DroppedRow])
		switch {
		case n[DroppedRow] > 0 && cc.windows:
			in += fmt.Sprintf(", %d dropped", n[DroppedRow])
		case n[DroppedRow] > 0:
			in += fmt.Sprintf(", %d dropped by ORDER BY", n[DroppedRow])
		}
		in += ")"
	}
	parts = append(parts, in)
	if n[TimerSet]+n[TimerFired]+n[TimerCleared] > 0 {
		parts = append(parts, fmt.Sprintf("timers: %d set, %d fired, %d cleared", n[TimerSet], n[TimerFired], n[TimerCleared]))
	}
	parts = append(parts, plural(n[RowOut], "row")+" out")
	return strings.Join(parts, "; ")
}

// timeLane names the lane of the call's time: its watermark, or the
// processing-time clock.
func (cc *callChart) timeLane() string {
	if cc.clock {
		return "proc time"
	}
	return "watermark"
}

// dataOp is the attribute that marks, in SVG, the section of a window
// operator (data-op="window") and of one on processing time ("window
// clock").
func (cc *callChart) dataOp() string {
	switch {
	case cc.windows && cc.clock:
		return ` data-op="window clock"`
	case cc.windows:
		return ` data-op="window"`
	}
	return ""
}

// watermarkLine says where the watermark went (or, on processing time,
// the clock).
func (cc *callChart) watermarkLine(hasTime bool) string {
	if cc.clock {
		from, to := cc.wm[0].Time, cc.wm[len(cc.wm)-1].Time
		if len(cc.wm) == 1 {
			return "processing time " + FormatTime(from) + " (it did not move)"
		}
		return fmt.Sprintf("processing time %s → %s in %s", FormatTime(from), FormatTime(to), plural(len(cc.wm)-1, "step"))
	}
	switch {
	case len(cc.wm) == 0 && !cc.endOfInput:
		return "no watermark (declare WATERMARK FOR <column> AS <column> - INTERVAL ... on the table)"
	case len(cc.wm) == 0:
		return "the watermark jumped to the end of input only"
	}
	from, to := cc.wm[0].Time, cc.wm[len(cc.wm)-1].Time
	s := fmt.Sprintf("watermark %s → %s in %s", FormatTime(from), FormatTime(to), plural(len(cc.wm), "step"))
	if len(cc.wm) == 1 {
		s = "watermark " + FormatTime(from) + " (one step)"
	}
	if cc.endOfInput {
		s += ", then end of input"
	}
	return s
}

// printable replaces the control characters of a key (a newline would
// break a lane of the terminal drawing) with '·'.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '·'
		}
		return r
	}, s)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
