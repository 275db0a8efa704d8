package timeline

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// The arrival view as a picture: per call a title band (its name and
// summary, where no grid line runs), a plot of event time (up) against
// arrival time (across) with both axes labelled, and a legend. Points are
// circles (rows in), red circles (late rows) and crosses (rows ORDER BY
// dropped); the watermark is an orange step curve; a timer that fired is
// a purple triangle on the rise that fired it, with a count beside it when
// several fired at one place. Above DenseEvents rows the points become
// bins of a grid, darker for more rows, red where some were late, and the
// curve keeps the highest watermark of each column of bins.
const (
	arrivalPlotHeight = 320
	arrivalLeft       = 110 // the event-time labels
	arrivalBinsX      = 300
	arrivalBinsY      = 80
)

const arrivalStyle = `
.pt-in { fill: #2b6cb0; }
.pt-late { fill: #e53e3e; stroke: #742a2a; }
.pt-dropped { stroke: #9b2c2c; stroke-width: 2.5; fill: none; }
.fired { fill: #805ad5; }
.count { font-size: 10px; fill: #553c9a; }
.wm-curve { stroke: #dd6b20; stroke-width: 2; fill: none; }
.wm-step { fill: #dd6b20; }
.wm-end { fill: #dd6b20; }
.clock-curve { stroke: #3182ce; stroke-dasharray: 6 3; }
.clock-step { fill: #3182ce; }
.bin-in { fill: #2b6cb0; }
.bin-late { fill: #e53e3e; }
.bin-fired { fill: #805ad5; }
.plot-bg { fill: #f7fafc; stroke: #cbd5e0; }
text.axis-label { font-size: 13px; font-weight: bold; fill: #2d3748; }
`

func arrivalSVG(b *strings.Builder, r *Record, standalone bool) {
	c := arrivalLayout(r)
	band := 72 // its name, then its summary lines
	axis := 48 // the arrival axis and its label
	per := band + arrivalPlotHeight + axis
	top := 40
	legendTop := top + per*max(len(c.calls), 1) + 8
	height := legendTop + 130 + 16*len(c.notes) + 16*len(c.legendExtra())
	width := arrivalLeft + PlotWidth + 60
	fmt.Fprintf(b, `<svg id="timeline" class="arrival-view" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="event time against arrival time">`+"\n", width, height, width, height)
	b.WriteString("<style>" + svgStyle + arrivalStyle + "</style>\n")
	fmt.Fprintf(b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	head := "nothing happened: no rows reached a PTF call, a window, an OVER or MATCH_RECOGNIZE"
	switch {
	case len(r.Events) > 0 && !c.has:
		head = "no event times to draw up the arrival view (call the function with on_time, or declare a WATERMARK)"
	case c.has:
		head = fmt.Sprintf("event time (up, %s to %s UTC) against arrival time (across)", FormatTime(c.t0), FormatTime(c.t1))
	}
	fmt.Fprintf(b, `<text class="title" x="10" y="22">%s</text>`+"\n", esc(head))
	y := top
	if c.has {
		for _, ac := range c.calls {
			arrivalCallSVG(b, c, ac, y, band)
			y += per
		}
	}
	arrivalLegend(b, legendTop, c)
	if standalone {
		b.WriteString("<script><![CDATA[\n" + zoomScript + "]]></script>\n")
	}
	b.WriteString("</svg>")
}

// arrivalCallSVG draws one call: its band of text, then its plot.
func arrivalCallSVG(b *strings.Builder, c *aChart, ac *aCall, top, band int) {
	fmt.Fprintf(b, `<g class="arrival" data-call="%s"%s>`+"\n", esc(ac.name), ac.op)
	fmt.Fprintf(b, `<text class="title" x="10" y="%d">%s</text>`+"\n", top+12, esc(ac.name))
	for i, s := range append(append([]string{}, ac.summary...), "across: "+c.arrivalWhat(ac)) {
		fmt.Fprintf(b, `<text class="small" x="%d" y="%d">%s</text>`+"\n", arrivalLeft, top+28+13*i, esc(s))
	}
	py0 := top + band // the plot's top
	py1 := py0 + arrivalPlotHeight
	px0, px1 := float64(arrivalLeft), float64(arrivalLeft+PlotWidth)
	fmt.Fprintf(b, `<rect class="plot-bg" x="%d" y="%d" width="%d" height="%d"/>`+"\n", arrivalLeft, py0, PlotWidth, arrivalPlotHeight)
	// x: arrival; y: event time (the end of input above the top).
	x0, x1 := int64(1), max(ac.xMax, 2)
	if c.proc {
		x0 = ac.xMax
		for _, p := range ac.points {
			x0 = min(x0, p.x)
		}
		for _, p := range ac.wm {
			x0 = min(x0, p.x)
		}
		x1 = max(ac.xMax, x0+1)
	}
	xp := func(x int64) float64 { return px0 + float64(x-x0)/float64(x1-x0)*(px1-px0) }
	yp := func(t int64) float64 {
		if t == End {
			return float64(py0) - 8
		}
		if c.t1 == c.t0 {
			return float64(py0+py1) / 2
		}
		t = max(min(t, c.t1), c.t0) // a watermark beyond the rows stands at the edge
		return float64(py1) - float64(t-c.t0)/float64(c.t1-c.t0)*float64(py1-py0-12) - 6
	}
	// Axes, ticks and their grid inside the plot only.
	b.WriteString(`<g class="axis">` + "\n")
	for _, t := range ticksBetween(c.t0, c.t1) {
		y := yp(t)
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f"/>`+"\n", px0, y, px1, y)
		fmt.Fprintf(b, `<text class="small" x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", px0-6, y+4, esc(tickLabel(&chart{t0: c.t0, t1: c.t1, hasTime: true}, t)))
	}
	for _, tk := range arrivalXTicks(c, ac) {
		x := xp(tk.x)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d"/>`+"\n", x, py1, x, py1+5)
		fmt.Fprintf(b, `<text class="small" x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, py1+17, esc(tk.label))
	}
	fmt.Fprintf(b, `<text class="axis-label" x="%.1f" y="%d" text-anchor="middle">arrival time</text>`+"\n", (px0+px1)/2, py1+38)
	fmt.Fprintf(b, `<text class="axis-label" x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">event time</text>`+"\n", (py0+py1)/2, (py0+py1)/2)
	b.WriteString("</g>\n")
	dense := len(ac.points) > DenseEvents
	// The watermark curve: under the points, or over the bins of many.
	drawCurve := func() {
		if len(ac.wm) > 0 || ac.ended {
			steps := ac.wm
			if dense {
				steps = thinSteps(ac.wm, x0, x1)
			}
			var d strings.Builder
			for i, s := range steps {
				x, y := xp(s.x), yp(s.Time)
				if i == 0 {
					fmt.Fprintf(&d, "M%.1f %.1f", x, y)
				} else {
					fmt.Fprintf(&d, " V%.1f", y)
				}
				next := px1
				if i+1 < len(steps) {
					next = xp(steps[i+1].x)
				} else if ac.ended {
					next = xp(ac.endX)
				}
				fmt.Fprintf(&d, " H%.1f", next)
			}
			if ac.ended {
				if len(steps) == 0 {
					fmt.Fprintf(&d, "M%.1f %.1f", xp(ac.endX), float64(py1))
				}
				fmt.Fprintf(&d, " V%.1f", float64(py0)-2)
			}
			if ac.clock {
				fmt.Fprintf(b, `<path class="wm-curve clock-curve" d="%s"><title>the processing-time clock, which the windows follow</title></path>`+"\n", d.String())
			} else {
				fmt.Fprintf(b, `<path class="wm-curve" d="%s"><title>the watermark, as it rose with the rows</title></path>`+"\n", d.String())
			}
			if !dense {
				for _, s := range ac.wm {
					prev := "none"
					if s.HasWM {
						prev = FormatTime(s.WM)
					}
					class, what := "wm-step", "watermark"
					if s.Kind == Clock {
						class, what = "wm-step clock-step", "processing time"
					}
					fmt.Fprintf(b, `<circle class="%s" cx="%.1f" cy="%.1f" r="2.5"><title>%s %s → %s</title></circle>`+"\n", class, xp(s.x), yp(s.Time), what, esc(prev), esc(FormatTime(s.Time)))
				}
			}
			if ac.ended {
				fmt.Fprintf(b, `<path class="wm-end" d="M%.1f %.1f l-6 10 h12 z"><title>end of input: the watermark jumps to the end and fires every timer left</title></path>`+"\n", xp(ac.endX), float64(py0)-12)
			}
		}
	}
	// The points.
	if dense {
		arrivalBins(b, c, ac, xp, yp, x0, x1)
		drawCurve()
	} else {
		drawCurve()
		b.WriteString(`<g class="points">` + "\n")
		for _, p := range ac.points {
			x, y := xp(p.x), yp(p.Time)
			tip := esc(tooltip(p.Event))
			switch p.Kind {
			case LateRow:
				fmt.Fprintf(b, `<circle class="pt-late" cx="%.1f" cy="%.1f" r="4.5"><title>%s</title></circle>`+"\n", x, y, tip)
			case DroppedRow:
				fmt.Fprintf(b, `<path class="pt-dropped" d="M%.1f %.1f l8 8 m0 -8 l-8 8"><title>%s</title></path>`+"\n", x-4, y-4, tip)
			default:
				fmt.Fprintf(b, `<circle class="pt-in" cx="%.1f" cy="%.1f" r="3.5"><title>%s</title></circle>`+"\n", x, y, tip)
			}
		}
		b.WriteString("</g>\n")
	}
	// Timers fired, on the rises; several at one place show their count;
	// many, small marks.
	if len(ac.fired) > 0 && dense {
		b.WriteString(`<g class="timers">` + "\n")
		seen := map[[2]int]int{}
		for _, f := range ac.fired {
			k := [2]int{int(xp(f.x)) / 3, int(yp(f.Time)) / 3}
			if seen[k]++; seen[k] == 1 {
				fmt.Fprintf(b, `<rect class="bin-fired" x="%.1f" y="%.1f" width="3" height="3" opacity="0.8"/>`+"\n", xp(f.x)-1.5, yp(f.Time)-1.5)
			}
		}
		fmt.Fprintf(b, `<title>%s fired</title>`+"\n", plural(len(ac.fired), "timer"))
		b.WriteString("</g>\n")
	}
	if len(ac.fired) > 0 && !dense {
		type place struct {
			x, t int64
		}
		at := map[place][]aPoint{}
		var order []place
		for _, f := range ac.fired {
			k := place{f.x, f.Time}
			if at[k] == nil {
				order = append(order, k)
			}
			at[k] = append(at[k], f)
		}
		b.WriteString(`<g class="timers">` + "\n")
		for _, k := range order {
			fs := at[k]
			x, y := xp(fs[0].x), yp(k.t)
			tip := tooltip(fs[0].Event)
			if len(fs) > 1 {
				tip = fmt.Sprintf("%d timers fired at %s (keys %s)", len(fs), FormatTime(k.t), keysOf(fs))
			}
			fmt.Fprintf(b, `<path class="fired" d="M%.1f %.1f l-5 8 h10 z"><title>%s</title></path>`+"\n", x, y-4, esc(tip))
			if len(fs) > 1 {
				fmt.Fprintf(b, `<text class="count" x="%.1f" y="%.1f">%d</text>`+"\n", x+6, y+3, len(fs))
			}
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n")
}

// keysOf lists the keys of events, briefly.
func keysOf(ev []aPoint) string {
	var ks []string
	for i, e := range ev {
		if i == 5 {
			ks = append(ks, "…")
			break
		}
		ks = append(ks, e.Key)
	}
	return strings.Join(ks, ", ")
}

// thinSteps keeps, of many watermark advances, the last of each of
// arrivalBinsX stretches of x: the curve's shape without a point per row.
func thinSteps(steps []aPoint, x0, x1 int64) []aPoint {
	var out []aPoint
	bin := func(x int64) int64 { return (x - x0) * arrivalBinsX / max(x1-x0, 1) }
	for i, s := range steps {
		if i+1 < len(steps) && bin(steps[i+1].x) == bin(s.x) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// arrivalBins draws many rows as a grid of bins, darker for more rows and
// red where some came late.
func arrivalBins(b *strings.Builder, c *aChart, ac *aCall, xp, yp func(int64) float64, x0, x1 int64) {
	type bin struct{ n, late int }
	bins := map[[2]int]*bin{}
	most := 1
	for _, p := range ac.points {
		bx := int((p.x - x0) * arrivalBinsX / max(x1-x0, 1))
		by := 0
		if c.t1 > c.t0 {
			by = int((p.Time - c.t0) * arrivalBinsY / (c.t1 - c.t0))
		}
		k := [2]int{min(bx, arrivalBinsX-1), min(by, arrivalBinsY-1)}
		if bins[k] == nil {
			bins[k] = &bin{}
		}
		bins[k].n++
		if p.Kind != RowIn {
			bins[k].late++
		}
		most = max(most, bins[k].n)
	}
	keys := make([][2]int, 0, len(bins))
	for k := range bins {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	w := float64(PlotWidth) / arrivalBinsX
	h := float64(arrivalPlotHeight-12) / arrivalBinsY
	b.WriteString(`<g class="points bins">` + "\n")
	for _, k := range keys {
		bn := bins[k]
		xa := x0 + int64(k[0])*(x1-x0)/arrivalBinsX
		ta := c.t0 + int64(k[1])*(c.t1-c.t0)/arrivalBinsY
		class := "bin-in"
		if bn.late > 0 {
			class = "bin-late"
		}
		op := 0.3 + 0.7*math.Log1p(float64(bn.n))/math.Log1p(float64(most))
		tip := fmt.Sprintf("%s from %s", plural(bn.n, "row"), FormatTime(ta))
		if bn.late > 0 {
			tip += fmt.Sprintf(", %d late", bn.late)
		}
		fmt.Fprintf(b, `<rect class="%s" x="%.2f" y="%.2f" width="%.2f" height="%.2f" opacity="%.2f"><title>%s</title></rect>`+"\n", class, xp(xa), yp(ta)-h, math.Max(w, 1), math.Max(h, 1), op, esc(tip))
	}
	b.WriteString("</g>\n")
}

type xTick struct {
	x     int64
	label string
}

// arrivalXTicks are the marks of the arrival axis: row numbers, or
// processing times.
func arrivalXTicks(c *aChart, ac *aCall) []xTick {
	var ts []xTick
	if c.proc {
		x0 := ac.xMax
		for _, p := range ac.points {
			x0 = min(x0, p.x)
		}
		for _, t := range ticksBetween(x0, ac.xMax) {
			ts = append(ts, xTick{t, time.UnixMilli(t).UTC().Format("15:04:05")})
		}
		return ts
	}
	steps := []int64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if ac.rows/s <= 10 {
			step = s
			break
		}
	}
	ts = append(ts, xTick{2, "1"})
	for k := step; k <= ac.rows; k += step {
		if k > 1 {
			ts = append(ts, xTick{2 * k, fmt.Sprint(k)})
		}
	}
	return ts
}

// ticksBetween are round times from t0 to t1, at most a dozen.
func ticksBetween(t0, t1 int64) []int64 {
	return svgTicks(&chart{t0: t0, t1: t1, hasTime: true})
}

// arrivalLegend explains the marks.
func arrivalLegend(b *strings.Builder, top int, c *aChart) {
	fmt.Fprintf(b, `<g id="legend" transform="translate(10 %d)">`+"\n", top)
	b.WriteString(`<text class="title" x="0" y="12">legend</text>` + "\n")
	items := []struct{ mark, text string }{
		{`<circle class="pt-in" cx="10" cy="%d" r="3.5"/>`, "row in: at its event time (up), when it came (across)"},
		{`<circle class="pt-late" cx="10" cy="%d" r="4.5"/>`, "late row: at or below the watermark when it came"},
		{`<path class="pt-dropped" d="M6 %d l8 8 m0 -8 l-8 8"/>`, "late row dropped by ORDER BY"},
		{`<path class="fired" d="M10 %d l-5 8 h10 z"/>`, "timer fired: on the rise of the watermark that passed it (a number: that many at one place)"},
		{`<path class="wm-curve" d="M2 %d h16"/>`, "the watermark: where it stood, and where it rose after a row"},
		{`<rect class="bin-in" x="4" y="%d" width="12" height="8" opacity="0.6"/>`, "many rows: bins, darker for more, red where some came late"},
	}
	for i, it := range items {
		y := 30 + 18*i
		dy := y
		switch i {
		case 2, 3, 5:
			dy = y - 4
		}
		fmt.Fprintf(b, it.mark+"\n", dy)
		fmt.Fprintf(b, `<text class="legend-item" x="26" y="%d">%s</text>`+"\n", y+4, esc(it.text))
	}
	extra := c.legendExtra()
	for i, n := range extra {
		fmt.Fprintf(b, `<text class="legend-item legend-windows" x="0" y="%d">%s</text>`+"\n", 30+18*len(items)+16*i, esc(n))
	}
	for i, n := range c.notes {
		fmt.Fprintf(b, `<text class="small" x="0" y="%d">note: %s</text>`+"\n", 30+18*len(items)+16*(len(extra)+i), esc(n))
	}
	b.WriteString("</g>\n")
}

// legendExtra are the legend's lines for window operators and the
// processing-time clock, when the picture has them.
func (c *aChart) legendExtra() []string {
	var out []string
	if c.windows {
		out = append(out, "windows: timer fired = a window fires, at its end - 1 ms; a dropped row came too late for its windows")
	}
	if c.clock {
		out = append(out, "a window on processing time follows the clock, drawn as the watermark is (the dashed curve); its rows stand at their processing time")
	}
	return out
}
