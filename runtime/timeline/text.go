package timeline

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Width is the number of terminal columns the time axis takes.
const Width = 64

// glyphs of the terminal drawing, and the order in which one wins a
// column that several events share (the first in this list).
const (
	gDropped = 'X'
	gLate    = 'x'
	gFired   = 'T'
	gIn      = 'o'
	gCleared = 'c'
	gSet     = 't'
	gOut     = '>'
	gWM      = '^'
)

var priority = map[Kind]int{DroppedRow: 7, LateRow: 6, TimerFired: 5, RowIn: 4, TimerCleared: 3, TimerSet: 2, RowOut: 1}

var glyph = map[Kind]byte{DroppedRow: gDropped, LateRow: gLate, TimerFired: gFired, RowIn: gIn, TimerCleared: gCleared, TimerSet: gSet, RowOut: gOut}

// density shows how many events share a column of an aggregated lane,
// from one (.) to the most of the drawing (@).
const density = ".:-=+*#%@"

// Text draws the record for a terminal: a header with the time range, an
// axis, and per call a watermark lane and a lane per key (two lines: what
// came in and the timers, then what went out), a summary and a legend.
func Text(w io.Writer, r *Record) error {
	var b strings.Builder
	c := layout(r)
	if len(r.Events) == 0 {
		b.WriteString("timeline: nothing happened (no rows reached a PTF call, a window, an OVER or MATCH_RECOGNIZE)\n")
		writeNotes(&b, c)
		_, err := io.WriteString(w, b.String())
		return err
	}
	label := 12
	for _, cc := range c.calls {
		for _, l := range cc.lanes {
			label = max(label, min(len([]rune(l.label))+4, 26))
		}
	}
	pad := strings.Repeat(" ", label)
	// One column is a round stretch of time, and the axis starts at a
	// multiple of it, so that the ticks fall on round times.
	from, unit := c.t0, int64(1)
	if c.hasTime {
		unit = columnUnit(c.t0, c.t1)
		from = floorDiv(c.t0, unit) * unit
	} else {
		unit = max((c.t1+int64(Width)-1)/int64(Width), 1)
	}
	col := func(x int64) int { return max(min(int((x-from)/unit), Width-1), 0) } // clamped: times far apart overflow
	// header and axis
	if c.hasTime {
		fmt.Fprintf(&b, "event time %s to %s (UTC), one column = %s\n", FormatTime(c.t0), FormatTime(c.t1), FormatDuration(unit))
	} else {
		fmt.Fprintf(&b, "no event times (call the function with on_time => DESCRIPTOR(col), or declare a WATERMARK): across is the order of the %d events\n", c.n)
	}
	ticks, labels := axis(c, from, unit)
	b.WriteString(pad + labels + "\n")
	b.WriteString(pad + ticks + "\n")
	for _, cc := range c.calls {
		fmt.Fprintf(&b, "%s\n", cc.name)
		// the watermark lane
		line := []byte(strings.Repeat(" ", Width+1))
		if len(cc.wm) > 0 {
			a, z := col(cc.wm[0].x), col(cc.wm[len(cc.wm)-1].x)
			for i := a; i <= z; i++ {
				line[i] = '-'
			}
			for _, p := range cc.wm {
				line[col(p.x)] = gWM
			}
		}
		if cc.endOfInput {
			line[Width] = '>'
			for i := Width - 1; i >= 0 && line[i] == ' '; i-- {
				line[i] = '-'
			}
		}
		b.WriteString(fit("  "+cc.timeLane(), label) + strings.TrimRight(string(line), " ") + "\n")
		if cc.aggregated {
			aggregatedLanes(&b, cc, label, col)
		} else {
			for _, l := range cc.lanes {
				b.WriteString(fit("  "+l.label, label) + strings.TrimRight(string(cells(l.in, col)), " ") + "\n")
				if len(l.out) > 0 {
					b.WriteString(fit("    out", label) + strings.TrimRight(string(cells(l.out, col)), " ") + "\n")
				}
			}
		}
		fmt.Fprintf(&b, "  %s\n  %s\n", cc.summary(), cc.watermarkLine(c.hasTime))
		if cc.untimed > 0 {
			fmt.Fprintf(&b, "  %s without an event time not drawn\n", plural(cc.untimed, "event"))
		}
	}
	b.WriteString("legend: o row in   x late row (at or before the watermark; eval still sees it)   X late row dropped by ORDER BY\n")
	b.WriteString("        t timer set (at its time)   T timer fired   c timer cleared or replaced   > row out\n")
	b.WriteString("        watermark: ^ where it advanced to, - the stretch it crossed, > end of input\n")
	b.WriteString("        a column shows the first of X x T o c t that falls in it\n")
	if windowsAny(c) {
		b.WriteString("        windows: t a window opens (its timer, at its end - 1 ms)   T it fires   > its row   X a row too late for its windows\n")
	}
	if clockAny(c) {
		b.WriteString("        proc time: the processing-time clock, which an operator on it follows: ^ where it moved to\n")
	}
	if aggregatedAny(c) {
		b.WriteString("        lanes of many keys: " + density + " from one event to the most in a column of the lane\n")
	}
	writeNotes(&b, c)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNotes(b *strings.Builder, c *chart) {
	if c.missed > 0 {
		fmt.Fprintf(b, "note: the timeline kept the first %d events; %d more are not drawn\n", MaxEvents, c.missed)
	}
	for _, n := range c.notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
}

// windowsAny reports whether a window operator has a section (its marks
// need a word of their own in the legend); clockAny whether a section
// follows the processing-time clock.
func windowsAny(c *chart) bool {
	for _, cc := range c.calls {
		if cc.windows {
			return true
		}
	}
	return false
}

func clockAny(c *chart) bool {
	for _, cc := range c.calls {
		if cc.clock {
			return true
		}
	}
	return false
}

func aggregatedAny(c *chart) bool {
	for _, cc := range c.calls {
		if cc.aggregated {
			return true
		}
	}
	return false
}

// cells draws one lane line: in each column the event that wins it.
func cells(ev []placed, col func(int64) int) []byte {
	line := []byte(strings.Repeat(" ", Width))
	best := make([]int, Width)
	for _, p := range ev {
		i := col(p.x)
		if pr := priority[p.Kind]; pr > best[i] {
			best[i], line[i] = pr, glyph[p.Kind]
		}
	}
	return line
}

// aggregatedLanes draws the buckets of keys as densities of rows in (late
// rows marked), then all keys' timers fired and rows out.
func aggregatedLanes(b *strings.Builder, cc *callChart, label int, col func(int64) int) {
	fmt.Fprintf(b, "  (%d keys share %d lanes, in the order they first appeared)\n", cc.keys, len(cc.lanes))
	type counts struct{ n, late, dropped []int }
	count := func(ev []placed, keep func(Kind) bool) counts {
		c := counts{make([]int, Width), make([]int, Width), make([]int, Width)}
		for _, p := range ev {
			if !keep(p.Kind) {
				continue
			}
			i := col(p.x)
			c.n[i]++
			switch p.Kind {
			case LateRow:
				c.late[i]++
			case DroppedRow:
				c.dropped[i]++
			}
		}
		return c
	}
	rowsIn := func(k Kind) bool { return k == RowIn || k == LateRow || k == DroppedRow }
	var all []counts
	most := 1
	for _, l := range cc.lanes {
		c := count(l.in, rowsIn)
		all = append(all, c)
		for _, n := range c.n {
			most = max(most, n)
		}
	}
	draw := func(c counts, most int) string {
		line := []byte(strings.Repeat(" ", Width))
		for i, n := range c.n {
			switch {
			case c.dropped[i] > 0:
				line[i] = gDropped
			case c.late[i] > 0:
				line[i] = gLate
			case n > 0:
				line[i] = density[min((n-1)*len(density)/most, len(density)-1)]
			}
		}
		return strings.TrimRight(string(line), " ")
	}
	for i, l := range cc.lanes {
		all[i].late, all[i].dropped = make([]int, Width), make([]int, Width) // the late lanes below show them
		b.WriteString(fit("  "+l.label, label) + draw(all[i], most) + "\n")
	}
	var fired, out []placed
	for _, l := range cc.lanes {
		fired = append(fired, l.in...)
		out = append(out, l.out...)
	}
	for _, s := range []struct {
		name string
		ev   []placed
		kind Kind
	}{{"  late rows", fired, LateRow}, {"  dropped rows", fired, DroppedRow}, {"  timers fired", fired, TimerFired}, {"  rows out", out, RowOut}} {
		if cc.counts[s.kind] == 0 && (s.kind == LateRow || s.kind == DroppedRow) {
			continue
		}
		c := count(s.ev, func(k Kind) bool { return k == s.kind })
		c.late, c.dropped = make([]int, Width), make([]int, Width)
		m := 1
		for _, n := range c.n {
			m = max(m, n)
		}
		b.WriteString(fit(s.name, label) + draw(c, m) + "\n")
	}
	fmt.Fprintf(b, "  lanes: %s\n", bucketsLine(cc))
}

// bucketsLine names the first and last key of each bucket lane, briefly.
func bucketsLine(cc *callChart) string {
	var s []string
	for _, l := range cc.lanes[:min(len(cc.lanes), 3)] {
		s = append(s, fmt.Sprintf("%s = %s … %s", l.label, l.first, l.last))
	}
	if len(cc.lanes) > 3 {
		s = append(s, "…")
	}
	return strings.Join(s, "; ")
}

// axis draws the tick line and the labels above it, at round times far
// enough apart for their labels.
func axis(c *chart, from, unit int64) (ticks, labels string) {
	t := []byte(strings.Repeat("-", Width))
	l := []byte(strings.Repeat(" ", Width+16))
	step := int64(16)
	if c.hasTime {
		step = tickStep(unit, int64(len(tickLabel(c, from))+2)) / unit
	}
	first := true
	for i := int64(0); i < Width; i++ {
		x := from + i*unit
		if c.hasTime && floorDiv(x, step*unit)*step*unit != x || !c.hasTime && i%step != 0 {
			continue
		}
		t[i] = '+'
		if first || i+int64(len(tickLabel(c, x))) <= Width+4 {
			copy(l[i:], tickLabel(c, x))
		}
		first = false
	}
	return string(t), strings.TrimRight(string(l), " ")
}

// tickStep is the smallest round stretch of time, a multiple of unit,
// that spans at least cols columns.
func tickStep(unit, cols int64) int64 {
	for _, u := range units {
		if u%unit == 0 && u/unit >= cols {
			return u
		}
	}
	u := int64(86_400_000)
	for u%unit != 0 || u/unit < cols {
		u *= 2
		if u > 1<<60 {
			return unit * cols
		}
	}
	return u
}

// units are the round stretches of time a column may stand for.
var units = []int64{1, 2, 5, 10, 20, 50, 100, 200, 250, 500,
	1000, 2000, 3000, 5000, 10_000, 15_000, 20_000, 30_000,
	60_000, 120_000, 180_000, 300_000, 360_000, 600_000, 900_000, 1_200_000, 1_800_000,
	3_600_000, 7_200_000, 10_800_000, 14_400_000, 21_600_000, 43_200_000, 86_400_000}

// columnUnit is the smallest round stretch of time that fits t0 to t1 in
// Width columns starting at a multiple of it.
func columnUnit(t0, t1 int64) int64 {
	for _, u := range units {
		if (t1-floorDiv(t0, u)*u)/u < Width {
			return u
		}
	}
	u := int64(86_400_000)
	for (t1-floorDiv(t0, u)*u)/u >= Width {
		u *= 2
	}
	return u
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// tickLabel shows a time on the axis, as short as the range allows.
func tickLabel(c *chart, x int64) string {
	if !c.hasTime {
		return fmt.Sprintf("#%d", x+1)
	}
	t := time.UnixMilli(x).UTC()
	span := c.t1 - c.t0
	switch {
	case time.UnixMilli(c.t0).UTC().YearDay() != time.UnixMilli(c.t1).UTC().YearDay() || span > 86_400_000:
		return t.Format("01-02 15:04")
	case span < 10_000:
		return t.Format("15:04:05.000")
	}
	return t.Format("15:04:05")
}

// fit pads or cuts s to n columns.
func fit(s string, n int) string {
	r := []rune(s)
	if len(r) >= n {
		return string(r[:n-2]) + "… "
	}
	return s + strings.Repeat(" ", n-len(r))
}
