package timeline

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Height is the number of terminal lines the event-time axis of the
// arrival view takes.
const Height = 16

// arrivalText draws the arrival view for a terminal: per call a grid of
// Width+1 columns of arrival time by Height lines of event time, with the
// event-time axis labelled on the left, the arrival axis below, the call's
// summary under it, and a legend.
func arrivalText(w io.Writer, r *Record) error {
	var b strings.Builder
	c := arrivalLayout(r)
	if len(r.Events) == 0 || !c.has {
		if len(r.Events) == 0 {
			b.WriteString("timeline: nothing happened (no rows reached a PTF call, a window, an OVER or MATCH_RECOGNIZE)\n")
		} else {
			b.WriteString("timeline: no event times to draw up the arrival view (call the function with on_time => DESCRIPTOR(col), or declare a WATERMARK)\n")
		}
		writeArrivalNotes(&b, c)
		_, err := io.WriteString(w, b.String())
		return err
	}
	unit := lineUnit(c.t0, c.t1)
	from := math.Floor(float64(c.t0)/float64(unit)) * float64(unit) // in floats: times at the ends of int64 do not overflow
	lines := int(min(max((float64(c.t1)-from)/float64(unit), 0), Height-1)) + 1
	fmt.Fprintf(&b, "arrival view: event time (up, %s to %s UTC, one line = %s) against arrival time (across)\n",
		FormatTime(c.t0), FormatTime(c.t1), FormatDuration(unit))
	for _, ac := range c.calls {
		drawArrivalCall(&b, c, ac, from, unit, lines)
	}
	b.WriteString("legend: o row in, at its event time and when it came   x late row: at or below the watermark when it came\n")
	b.WriteString("        X late row dropped by ORDER BY   T timer fired, on the rise of the watermark that passed it\n")
	b.WriteString("        2-9: that many rows in one place, # ten or more (x, X: most of them late)\n")
	b.WriteString("        watermark: - where it stood, | where it rose (after the row to its left), ^ the end of input\n")
	if c.windows {
		b.WriteString("        windows: T a window fires, at its end - 1 ms; X a row too late for its windows\n")
	}
	if c.clock {
		b.WriteString("        proc time: a window on processing time follows the clock, drawn as the watermark is; its rows stand at their processing time\n")
	}
	writeArrivalNotes(&b, c)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeArrivalNotes(b *strings.Builder, c *aChart) {
	if c.missed > 0 {
		fmt.Fprintf(b, "note: the timeline kept the first %d events; %d more are not drawn\n", MaxEvents, c.missed)
	}
	for _, n := range c.notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
}

// lineUnit is the smallest round stretch of time that fits t0 to t1 in
// Height lines starting at a multiple of it.
func lineUnit(t0, t1 int64) int64 {
	fits := func(u int64) bool {
		from := math.Floor(float64(t0)/float64(u)) * float64(u)
		return (float64(t1)-from)/float64(u) < Height
	}
	for _, u := range units {
		if fits(u) {
			return u
		}
	}
	u := int64(86_400_000)
	for !fits(u) && u < math.MaxInt64/4 {
		u *= 2
	}
	return u
}

// arrivalCols maps a call's x (half steps of arrival, or processing
// time) to columns 0..Width: one column per half step when they fit.
func arrivalCols(c *aChart, ac *aCall) func(int64) int {
	if c.proc {
		x0 := ac.xMax
		for _, p := range ac.points {
			x0 = min(x0, p.x)
		}
		for _, p := range ac.wm {
			x0 = min(x0, p.x)
		}
		span := max(ac.xMax-x0, 1)
		return func(x int64) int { return int(max(min((x-x0)*int64(Width)/span, int64(Width)), 0)) }
	}
	if ac.xMax <= int64(Width)+1 {
		return func(x int64) int { return int(max(x-1, 0)) }
	}
	span := ac.xMax
	return func(x int64) int { return int(max(min((x-1)*int64(Width+1)/span, int64(Width)), 0)) }
}

// drawArrivalCall draws one call's grid, axes and summary.
func drawArrivalCall(b *strings.Builder, c *aChart, ac *aCall, from float64, unit int64, lines int) {
	col := arrivalCols(c, ac)
	top := lines                // the line above the times: the end of input
	line := func(t int64) int { // 0 at the bottom
		if t == End {
			return top
		}
		return int(max(min((float64(t)-from)/float64(unit), float64(lines-1)), 0))
	}
	height := lines + 1
	grid := make([][]byte, height)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", Width+1))
	}
	set := func(l, x int, ch byte) { grid[height-1-l][x] = ch }
	// The watermark: where it stood, and its rises.
	if len(ac.wm) > 0 {
		prev := -1
		for i, s := range ac.wm {
			x, l := col(s.x), line(s.Time)
			next := Width + 1
			if i+1 < len(ac.wm) {
				next = col(ac.wm[i+1].x)
			} else if ac.ended {
				next = col(ac.endX)
			}
			for k := prev + 1; prev >= 0 && k < l; k++ {
				set(k, x, '|')
			}
			for k := x; k < next && k <= Width; k++ {
				set(l, k, '-')
			}
			prev = l
		}
	}
	if ac.ended {
		x := col(ac.endX)
		start := 0
		if n := len(ac.wm); n > 0 {
			start = line(ac.wm[n-1].Time) + 1
		}
		for k := start; k < top; k++ {
			set(k, x, '|')
		}
		set(top, x, '^')
	}
	// The points over it: per place, what came there.
	type cell struct{ in, late, dropped, fired int }
	cells := map[[2]int]*cell{}
	at := func(l, x int) *cell {
		k := [2]int{l, x}
		if cells[k] == nil {
			cells[k] = &cell{}
		}
		return cells[k]
	}
	for _, p := range ac.points {
		ce := at(line(p.Time), col(p.x))
		switch p.Kind {
		case LateRow:
			ce.late++
		case DroppedRow:
			ce.dropped++
		default:
			ce.in++
		}
	}
	for _, p := range ac.fired {
		at(line(p.Time), col(p.x)).fired++
	}
	for k, ce := range cells {
		ch := byte('o')
		switch n := ce.in + ce.late + ce.dropped; {
		case n == 0:
			ch = 'T'
		case ce.dropped > 0 && 2*ce.dropped >= n:
			ch = 'X'
		case ce.late+ce.dropped > 0 && 2*(ce.late+ce.dropped) >= n:
			ch = 'x'
		case n >= 10:
			ch = '#'
		case n > 1:
			ch = byte('0' + n)
		}
		set(k[0], k[1], ch)
	}
	// Axes: event time up the left, arrival across the bottom.
	const margin = 12
	fmt.Fprintf(b, "%s\n", ac.name)
	fmt.Fprintf(b, "%*s\n", margin-1, "event time")
	for i, row := range grid {
		l := height - 1 - i
		if l == top && !ac.ended {
			continue // the line of the end of input, for a call that did not reach it
		}
		label := ""
		switch {
		case l == top:
			label = "end"
		case l == lines-1 || l == 0 || l%4 == 0:
			label = yLabel(int64(from)+int64(l)*unit, unit, c)
		}
		fmt.Fprintf(b, "%*s |%s\n", margin-2, label, strings.TrimRight(string(row), " "))
	}
	fmt.Fprintf(b, "%*s +%s> arrival time\n", margin-2, "", strings.Repeat("-", Width+1))
	fmt.Fprintf(b, "%*s  %s\n", margin-2, "", strings.TrimRight(arrivalTicks(c, ac, col), " "))
	fmt.Fprintf(b, "  across: %s\n", c.arrivalWhat(ac))
	for _, s := range ac.summary {
		fmt.Fprintf(b, "  %s\n", s)
	}
	if ac.untimed > 0 {
		fmt.Fprintf(b, "  %s without an event time not drawn\n", plural(ac.untimed, "row"))
	}
}

// yLabel shows an event time on the left axis, as short as the range
// allows.
func yLabel(t, unit int64, c *aChart) string {
	tm := time.UnixMilli(t).UTC()
	switch {
	case c.t1-c.t0 > 86_400_000 || time.UnixMilli(c.t0).UTC().YearDay() != time.UnixMilli(c.t1).UTC().YearDay():
		return tm.Format("01-02 15:04")
	case unit < 1000:
		return tm.Format("15:04:05.000")
	}
	return tm.Format("15:04:05")
}

// arrivalTicks labels the arrival axis: the numbers of some rows (1, 5,
// 10, ...), or processing times.
func arrivalTicks(c *aChart, ac *aCall, col func(int64) int) string {
	line := []byte(strings.Repeat(" ", Width+16))
	put := func(x int, s string) bool {
		if x+len(s) > len(line) {
			return false
		}
		for i := max(x-1, 0); i < min(x+len(s)+1, len(line)); i++ {
			if line[i] != ' ' {
				return false
			}
		}
		copy(line[x:], s)
		return true
	}
	if c.proc {
		if len(ac.points) > 0 {
			first, last := ac.points[0], ac.points[len(ac.points)-1]
			put(col(first.x), time.UnixMilli(first.x).UTC().Format("15:04:05"))
			put(col(last.x), time.UnixMilli(last.x).UTC().Format("15:04:05"))
		}
		return string(line)
	}
	steps := []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if ac.rows/s <= 8 {
			step = s
			break
		}
	}
	put(col(2), "1")
	for k := step; k <= ac.rows; k += step {
		put(col(2*k), fmt.Sprint(k))
	}
	return string(line)
}
