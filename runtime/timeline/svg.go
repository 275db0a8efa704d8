package timeline

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// The picture: a label column, then the time axis PlotWidth wide, one lane
// per key below each call's watermark lane, and a legend. A lane has three
// rows of marks, so that marks at one time stay apart: rows in at the top,
// then timers (a timer set or cleared points down onto the middle line,
// one fired points up from it), then rows out. A call's name and summary
// stand in a band of their own above its lanes, where no grid line runs. Every mark has a
// tooltip (<title>) that says what it is and when. Wheel zooms, dragging
// pans, a double click resets (a few lines of inline script; nothing is
// fetched from the network).
const (
	labelWidth = 190
	PlotWidth  = 900
	laneHeight = 40
	// sharedHeight is the height of a lane that keys share (densities of
	// rows in only) and of the all-keys lanes below them.
	sharedHeight = 24
	titleBand    = 52 // a call's name and summary
	// DenseEvents: above this many marks the lanes draw densities over
	// DenseBins stretches of time instead of one mark per event.
	DenseEvents = 4000
	DenseBins   = 300
)

// SVG writes the record as a standalone SVG picture.
func SVG(w io.Writer, r *Record) error {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	svg(&b, r, true)
	_, err := io.WriteString(w, b.String())
	return err
}

// HTML writes the record as one HTML page with the picture inline.
func HTML(w io.Writer, r *Record) error {
	var b strings.Builder
	htmlHead(&b)
	svg(&b, r, false)
	htmlTail(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// htmlHead starts the page of a picture; htmlTail ends it with the zoom
// script.
func htmlHead(b *strings.Builder) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ptfsh timeline</title>\n<style>\n")
	b.WriteString("body { font-family: sans-serif; margin: 16px; background: #fff; color: #1a202c; }\n")
	b.WriteString("#timeline { width: 100%; height: auto; border: 1px solid #e2e8f0; cursor: grab; }\n")
	b.WriteString("p.help { color: #4a5568; font-size: 13px; }\n</style>\n</head>\n<body>\n")
	b.WriteString("<h1>ptfsh timeline</h1>\n<p class=\"help\">Wheel: zoom. Drag: pan. Double click: back to the whole picture. Point at a mark to see what it is.</p>\n")
}

func htmlTail(b *strings.Builder) {
	b.WriteString("\n<script>\n" + zoomScript + "</script>\n</body>\n</html>\n")
}

// zoomScript zooms the picture with the wheel and pans it by dragging.
const zoomScript = `(function () {
  var s = document.getElementById("timeline");
  if (!s || !s.viewBox) return;
  var vb = s.viewBox.baseVal, home = [vb.x, vb.y, vb.width, vb.height], drag = null;
  function at(e) {
    var r = s.getBoundingClientRect();
    return [vb.x + (e.clientX - r.left) / r.width * vb.width, vb.y + (e.clientY - r.top) / r.height * vb.height, r];
  }
  s.addEventListener("wheel", function (e) {
    e.preventDefault();
    var p = at(e), k = e.deltaY < 0 ? 0.8 : 1.25;
    vb.x = p[0] - (p[0] - vb.x) * k; vb.y = p[1] - (p[1] - vb.y) * k;
    vb.width *= k; vb.height *= k;
  }, { passive: false });
  s.addEventListener("mousedown", function (e) { drag = [e.clientX, e.clientY]; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (e) {
    if (!drag) return;
    var r = s.getBoundingClientRect();
    vb.x -= (e.clientX - drag[0]) / r.width * vb.width; vb.y -= (e.clientY - drag[1]) / r.height * vb.height;
    drag = [e.clientX, e.clientY];
  });
  s.addEventListener("dblclick", function () { vb.x = home[0]; vb.y = home[1]; vb.width = home[2]; vb.height = home[3]; });
  if (location.hash === "#zoom-check") { // the browser test: one turn of the wheel in, as a person would
    var r = s.getBoundingClientRect();
    s.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: r.left + r.width / 2, clientY: r.top + 40, cancelable: true }));
    s.setAttribute("data-zoom-check", (home[2] / vb.width).toFixed(2));
  }
})();
`

const svgStyle = `
text { font-family: monospace, sans-serif; font-size: 12px; fill: #1a202c; }
text.title { font-size: 14px; font-weight: bold; }
text.small { font-size: 11px; fill: #4a5568; }
text.summary { paint-order: stroke; stroke: #ffffff; stroke-width: 3px; }
.grid { stroke: #edf2f7; }
.axis line, .axis path { stroke: #718096; }
.lane-bg { fill: #edf2f7; opacity: 0.5; }
.in { fill: #2b6cb0; }
.late { fill: #e53e3e; stroke: #742a2a; }
.dropped { stroke: #9b2c2c; stroke-width: 2.5; fill: none; }
.timer-set { fill: none; stroke: #805ad5; stroke-width: 1.5; }
.timer-fired { fill: #805ad5; }
.timer-cleared { fill: none; stroke: #a0aec0; stroke-width: 1.5; stroke-dasharray: 2 1; }
.out { fill: #2f855a; }
.wm-line { stroke: #dd6b20; stroke-width: 2; fill: none; }
.wm-step { fill: #dd6b20; }
.clock-step { fill: #3182ce; }
.wm-end { fill: #dd6b20; }
.dens-in { fill: #2b6cb0; }
.dens-late { fill: #e53e3e; }
.dens-fired { fill: #805ad5; }
.dens-out { fill: #2f855a; }
`

// svg writes the <svg> element; standalone adds the namespace for a file
// of its own and the zoom script inside it.
func svg(b *strings.Builder, r *Record, standalone bool) {
	c := layout(r)
	dense := 0
	for _, cc := range c.calls {
		for _, l := range cc.lanes {
			dense += len(l.in) + len(l.out)
		}
	}
	lanesHeight := 0
	for _, cc := range c.calls {
		lanesHeight += laneHeight + len(cc.lanes)*cc.laneHeight() // watermark, keys
		if cc.aggregated {
			lanesHeight += 2 * sharedHeight // timers fired, rows out
		}
	}
	top := 64
	legendTop := top + lanesHeight + titleBand*len(c.calls) + 16
	height := legendTop + 140 + 16*(len(c.notes)+legendExtra(c))
	width := labelWidth + PlotWidth + 60
	fmt.Fprintf(b, `<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="timeline of the query">`+"\n", width, height, width, height)
	b.WriteString("<style>" + svgStyle + "</style>\n")
	fmt.Fprintf(b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	x := func(t int64) float64 {
		if c.t1 == c.t0 {
			return labelWidth + PlotWidth/2
		}
		return labelWidth + float64(t-c.t0)/float64(c.t1-c.t0)*PlotWidth
	}
	// header
	head := "timeline"
	if c.hasTime {
		head = fmt.Sprintf("event time %s to %s (UTC)", FormatTime(c.t0), FormatTime(c.t1))
	} else if len(r.Events) > 0 {
		head = fmt.Sprintf("no event times: across is the order of the %d events", c.n)
	} else {
		head = "nothing happened: no rows reached a PTF call, a window, an OVER or MATCH_RECOGNIZE"
	}
	fmt.Fprintf(b, `<text class="title" x="10" y="20">%s</text>`+"\n", esc(head))
	// axis
	b.WriteString(`<g class="axis">` + "\n")
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d"/>`+"\n", labelWidth, top-12, labelWidth+PlotWidth, top-12)
	for _, t := range svgTicks(c) {
		px := x(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", px, top-16, px, top-8)
		fmt.Fprintf(b, `<text class="small" x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px, top-20, esc(tickLabel(c, t)))
	}
	b.WriteString("</g>\n")
	y := top
	useDense := dense > DenseEvents
	for _, cc := range c.calls {
		fmt.Fprintf(b, `<g class="call" data-call="%s"%s>`+"\n", esc(cc.name), cc.dataOp())
		fmt.Fprintf(b, `<text class="title" x="10" y="%d">%s</text>`+"\n", y+16, esc(cc.name))
		fmt.Fprintf(b, `<text class="small summary" x="%d" y="%d">%s</text>`+"\n", labelWidth, y+10, esc(cc.summary()))
		fmt.Fprintf(b, `<text class="small summary" x="%d" y="%d">%s</text>`+"\n", labelWidth, y+24, esc(cc.watermarkLine(c.hasTime)))
		if cc.untimed > 0 {
			fmt.Fprintf(b, `<text class="small summary" x="%d" y="%d">%s without an event time not drawn</text>`+"\n", labelWidth, y+38, plural(cc.untimed, "event"))
		}
		y += titleBand
		// the grid, from the watermark lane to the last lane of the call
		lh := cc.laneHeight()
		bottom := y + laneHeight + lh*len(cc.lanes)
		if cc.aggregated {
			bottom += 2 * sharedHeight
		}
		for _, t := range svgTicks(c) {
			fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x(t), y, x(t), bottom)
		}
		// the watermark lane
		mid := y + laneHeight/2
		b.WriteString(`<g class="watermark">` + "\n")
		fmt.Fprintf(b, `<text x="10" y="%d">%s</text>`+"\n", mid+4, cc.timeLane())
		if len(cc.wm) > 0 {
			fmt.Fprintf(b, `<line class="wm-line" x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x(cc.wm[0].x), mid, x(cc.wm[len(cc.wm)-1].x), mid)
			if !useDense || len(cc.wm) <= DenseEvents {
				for _, p := range cc.wm {
					prev := "none"
					if p.HasWM {
						prev = FormatTime(p.WM)
					}
					class, what := "wm-step", "watermark"
					if p.Kind == Clock {
						class, what = "wm-step clock-step", "processing time"
					}
					fmt.Fprintf(b, `<path class="%s" d="M%.1f %d l-4 7 h8 z"><title>%s %s → %s</title></path>`+"\n", class, x(p.x), mid-3, what, esc(prev), esc(FormatTime(p.Time)))
				}
			}
		}
		if cc.endOfInput {
			ex := float64(labelWidth + PlotWidth + 24)
			fmt.Fprintf(b, `<path class="wm-end" d="M%.1f %d l-10 -6 v12 z"><title>end of input: the watermark jumps to the end and fires every timer left</title></path>`+"\n", ex, mid)
		}
		b.WriteString("</g>\n")
		y += laneHeight
		for i, l := range cc.lanes {
			fmt.Fprintf(b, `<g class="lane" data-key="%s">`+"\n", esc(l.label))
			if i%2 == 0 {
				fmt.Fprintf(b, `<rect class="lane-bg" x="0" y="%d" width="%d" height="%d"/>`+"\n", y, labelWidth+PlotWidth+40, lh)
			}
			name := l.label
			if cc.aggregated {
				name = fmt.Sprintf("%s (%s … %s)", l.label, l.first, l.last)
			}
			fmt.Fprintf(b, `<text x="10" y="%d">%s<title>%s</title></text>`+"\n", y+lh/2+4, esc(short(name, 24)), esc(name))
			if useDense || cc.aggregated {
				h := laneHeight / 3
				if cc.aggregated {
					h = lh // rows in only
				}
				densityMarks(b, c, l.in, y+2, h-4, x, map[Kind]string{RowIn: "dens-in", LateRow: "dens-late", DroppedRow: "dens-late"}, "rows in")
				if !cc.aggregated {
					densityMarks(b, c, l.in, y+h, h-1, x, map[Kind]string{TimerFired: "dens-fired"}, "timers fired")
					densityMarks(b, c, l.out, y+2*h, h-1, x, map[Kind]string{RowOut: "dens-out"}, "rows out")
				}
			} else {
				for _, p := range l.in {
					mark(b, p, x(p.x), markY(p.Kind, y))
				}
				for _, p := range l.out {
					mark(b, p, x(p.x), markY(p.Kind, y))
				}
			}
			b.WriteString("</g>\n")
			y += lh
		}
		if cc.aggregated {
			var in, out []placed
			for _, l := range cc.lanes {
				in = append(in, l.in...)
				out = append(out, l.out...)
			}
			for _, s := range []struct {
				name, class string
				ev          []placed
				kind        Kind
			}{{"timers fired", "dens-fired", in, TimerFired}, {"rows out", "dens-out", out, RowOut}} {
				fmt.Fprintf(b, `<g class="lane total" data-key="%s">`+"\n", s.name)
				fmt.Fprintf(b, `<text x="10" y="%d">%s (all keys)</text>`+"\n", y+sharedHeight/2+4, s.name)
				densityMarks(b, c, s.ev, y+2, sharedHeight-4, x, map[Kind]string{s.kind: s.class}, s.name)
				b.WriteString("</g>\n")
				y += sharedHeight
			}
		}
		b.WriteString("</g>\n")
	}
	legend(b, legendTop, c)
	if standalone {
		b.WriteString("<script><![CDATA[\n" + zoomScript + "]]></script>\n")
	}
	b.WriteString("</svg>")
}

// markY is where in a lane whose top is y a mark of kind k stands: rows
// in at the top, timers on the middle line, rows out at the bottom.
func markY(k Kind, y int) float64 {
	switch k {
	case TimerSet, TimerCleared, TimerFired:
		return float64(y + 21)
	case RowOut:
		return float64(y + 34)
	}
	return float64(y + 8)
}

// laneHeight is the height of the call's key lanes.
func (cc *callChart) laneHeight() int {
	if cc.aggregated {
		return sharedHeight
	}
	return laneHeight
}

// mark draws one event at (px, py) with its tooltip. A timer set or
// cleared is a triangle pointing down onto py, one fired a triangle
// pointing up from it, so that a timer set and fired at one time shows
// both.
func mark(b *strings.Builder, p placed, px, py float64) {
	tip := esc(tooltip(p.Event))
	switch p.Kind {
	case RowIn:
		fmt.Fprintf(b, `<circle class="in" cx="%.1f" cy="%.1f" r="4"><title>%s</title></circle>`+"\n", px, py, tip)
	case LateRow:
		fmt.Fprintf(b, `<circle class="late" cx="%.1f" cy="%.1f" r="5"><title>%s</title></circle>`+"\n", px, py, tip)
	case DroppedRow:
		fmt.Fprintf(b, `<path class="dropped" d="M%.1f %.1f l8 8 m0 -8 l-8 8"><title>%s</title></path>`+"\n", px-4, py-4, tip)
	case TimerSet:
		fmt.Fprintf(b, `<path class="timer-set" d="M%.1f %.1f l-5 -8 h10 z"><title>%s</title></path>`+"\n", px, py-0.5, tip)
	case TimerFired:
		fmt.Fprintf(b, `<path class="timer-fired" d="M%.1f %.1f l-5 8 h10 z"><title>%s</title></path>`+"\n", px, py+0.5, tip)
	case TimerCleared:
		fmt.Fprintf(b, `<path class="timer-cleared" d="M%.1f %.1f l-5 -8 h10 z"><title>%s</title></path>`+"\n", px, py-0.5, tip)
	case RowOut:
		fmt.Fprintf(b, `<path class="out" d="M%.1f %.1f l5 5 l-5 5 l-5 -5 z"><title>%s</title></path>`+"\n", px, py-5, tip)
	}
}

// tooltip says what an event is, in words.
func tooltip(e Event) string {
	at := "no time"
	if e.HasTime {
		at = FormatTime(e.Time)
	}
	wm := "no watermark yet"
	if e.HasWM {
		wm = "watermark " + FormatTime(e.WM)
	}
	if e.OnClock && e.HasWM {
		wm = "processing time " + FormatTime(e.WM)
	}
	if e.Window {
		return windowTooltip(e, at, wm)
	}
	timer := "unnamed timer"
	if e.Name != "" {
		timer = "timer " + e.Name
	}
	switch e.Kind {
	case RowIn:
		return fmt.Sprintf("row in %s from %s at %s (%s)", e.Row, e.Input, at, wm)
	case LateRow:
		return fmt.Sprintf("late row %s from %s at %s, at or before the %s; eval still sees it", e.Row, e.Input, at, wm)
	case DroppedRow:
		return fmt.Sprintf("ORDER BY dropped %s from %s at %s: late, %s", e.Row, e.Input, at, wm)
	case TimerSet:
		return fmt.Sprintf("%s set for %s (%s)", timer, at, wm)
	case TimerFired:
		return fmt.Sprintf("%s fired at %s (%s passed it)", timer, at, wm)
	case TimerCleared:
		return fmt.Sprintf("%s at %s cleared (%s)", timer, at, wm)
	case RowOut:
		return fmt.Sprintf("row out %s at %s", e.Row, at)
	}
	return e.Kind.String()
}

// windowTooltip says what an event of a window operator is: its
// windows' timers are their ends.
func windowTooltip(e Event, at, wm string) string {
	key := ""
	if e.Key != "" {
		key = " of " + e.Key
	}
	passes := "the watermark passes"
	if e.OnClock {
		passes = "the processing-time clock passes"
	}
	switch e.Kind {
	case RowIn:
		return fmt.Sprintf("row in %s at %s (%s)", e.Row, at, wm)
	case LateRow:
		return fmt.Sprintf("late row %s at %s, at or before the %s; it still counts in its windows still open", e.Row, at, wm)
	case DroppedRow:
		return fmt.Sprintf("dropped %s at %s: late, the %s had passed all its windows", e.Row, at, wm)
	case TimerSet:
		return fmt.Sprintf("a window%s opens: it fires when %s %s (%s)", key, passes, at, wm)
	case TimerFired:
		return fmt.Sprintf("the window%s ending at %s fires (%s passed it)", key, at, wm)
	case RowOut:
		return fmt.Sprintf("row out %s at %s", e.Row, at)
	}
	return e.Kind.String()
}

// densityMarks draws events of the given kinds as bars over DenseBins
// stretches of time, darker for more events.
func densityMarks(b *strings.Builder, c *chart, ev []placed, y, h int, x func(int64) float64, classes map[Kind]string, what string) {
	type bin struct{ n, late int }
	bins := make([]bin, DenseBins)
	idx := func(t int64) int {
		if c.t1 == c.t0 {
			return 0
		}
		return max(min(int(float64(t-c.t0)/float64(c.t1-c.t0)*DenseBins), DenseBins-1), 0)
	}
	most := 0
	class := ""
	for _, p := range ev {
		cl, ok := classes[p.Kind]
		if !ok {
			continue
		}
		i := idx(p.x)
		bins[i].n++
		if p.Kind == LateRow || p.Kind == DroppedRow {
			bins[i].late++
		} else {
			class = cl
		}
		most = max(most, bins[i].n)
	}
	if class == "" {
		for _, cl := range classes {
			class = cl
		}
	}
	w := float64(PlotWidth) / DenseBins
	for i, bn := range bins {
		if bn.n == 0 {
			continue
		}
		t0 := c.t0 + (c.t1-c.t0)*int64(i)/DenseBins
		t1 := c.t0 + (c.t1-c.t0)*int64(i+1)/DenseBins
		px := x(t0)
		op := 0.25 + 0.75*math.Log1p(float64(bn.n))/math.Log1p(float64(most))
		tip := fmt.Sprintf("%d %s from %s to %s", bn.n, what, FormatTime(t0), FormatTime(t1))
		if bn.late > 0 {
			tip += fmt.Sprintf(", %d late", bn.late)
		}
		fmt.Fprintf(b, `<rect class="%s" x="%.2f" y="%d" width="%.2f" height="%d" opacity="%.2f"><title>%s</title></rect>`+"\n", class, px, y, math.Max(w, 1), h, op, esc(tip))
		if bn.late > 0 {
			fmt.Fprintf(b, `<rect class="dens-late" x="%.2f" y="%d" width="%.2f" height="%d"><title>%d late</title></rect>`+"\n", px, y+h-3, math.Max(w, 1), 3, bn.late)
		}
	}
}

// legend explains the marks.
func legend(b *strings.Builder, top int, c *chart) {
	fmt.Fprintf(b, `<g id="legend" transform="translate(10 %d)">`+"\n", top)
	b.WriteString(`<text class="title" x="0" y="12">legend</text>` + "\n")
	items := []struct {
		kind Kind
		text string
	}{
		{RowIn, "row in"},
		{LateRow, "late row (at or before the watermark; eval still sees it)"},
		{DroppedRow, "late row dropped by ORDER BY"},
		{TimerSet, "timer set (at its time)"},
		{TimerFired, "timer fired"},
		{TimerCleared, "timer cleared or replaced"},
		{RowOut, "row out"},
	}
	for i, it := range items {
		col, row := i%2, i/2
		px, py := float64(10+col*520), float64(34+row*20)
		my := py
		switch it.kind {
		case TimerSet, TimerCleared:
			my = py + 4
		case TimerFired:
			my = py - 4
		}
		mark(b, placed{Event: Event{Kind: it.kind}}, px, my)
		fmt.Fprintf(b, `<text class="legend-item" x="%.0f" y="%.0f">%s</text>`+"\n", px+14, py+4, esc(it.text))
	}
	py := 34 + 4*20
	fmt.Fprintf(b, `<path class="wm-step" d="M10 %d l-4 7 h8 z"/><text class="legend-item" x="24" y="%d">watermark advanced to (the line: the stretch it crossed; ▶ at the right: end of input)</text>`+"\n", py-4, py+4)
	fmt.Fprintf(b, `<rect class="dens-in" x="680" y="%d" width="10" height="10" opacity="0.6"/><text class="legend-item" x="696" y="%d">many events: darker is more</text>`+"\n", py-6, py+4)
	var extra []string
	if windowsAny(c) {
		extra = append(extra, "windows: timer set = a window opens (its timer at its end - 1 ms), timer fired = it fires, row out = its row; a dropped row came too late for its windows")
	}
	if clockAny(c) {
		extra = append(extra, "proc time: the processing-time clock, which an operator on processing time follows (▲ where it moved to)")
	}
	for i, n := range extra {
		fmt.Fprintf(b, `<text class="legend-item legend-windows" x="0" y="%d">%s</text>`+"\n", py+22+16*i, esc(n))
	}
	py += 16 * len(extra)
	for i, n := range c.notes {
		fmt.Fprintf(b, `<text class="small" x="0" y="%d">note: %s</text>`+"\n", py+22+16*i, esc(n))
	}
	b.WriteString("</g>\n")
}

// legendExtra is how many lines the legend adds for SQL operators.
func legendExtra(c *chart) int {
	n := 0
	if windowsAny(c) {
		n++
	}
	if clockAny(c) {
		n++
	}
	return n
}

// esc makes text safe inside XML: markup escaped, and the characters XML
// does not allow (control characters, invalid UTF-8) shown as '·'.
func esc(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == utf8.RuneError || r == 0xfffe || r == 0xffff {
			return '·'
		}
		return r
	}, s)
	return html.EscapeString(s)
}

// short cuts s to n characters.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// svgTicks are the times of the axis: round times, at most nine.
func svgTicks(c *chart) []int64 {
	if c.t1 == c.t0 {
		return []int64{c.t0}
	}
	step := int64(0)
	for _, u := range units {
		if (c.t1-c.t0)/u <= 8 {
			step = u
			break
		}
	}
	if step == 0 {
		for step = 86_400_000; (c.t1-c.t0)/step > 8 && step < math.MaxInt64/4; step *= 2 {
		}
	}
	if !c.hasTime {
		step = max((c.t1-c.t0)/8, 1)
	}
	var ts []int64
	for t := floorDiv(c.t0, step) * step; t <= c.t1 && len(ts) < 12; t += step {
		if t >= c.t0 {
			ts = append(ts, t)
		}
	}
	return ts
}
