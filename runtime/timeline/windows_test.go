package timeline

import (
	"bytes"
	"strings"
	"testing"
)

// windows is what a query draws that has two window aggregations and no
// PTF, on a stream whose clock was stepped: a TUMBLE on processing time
// (its clock moves in steps, its windows fire as the clock passes their
// end) and a TUMBLE on event time (a row comes too late for its window).
func windows() *Record {
	r := &Record{}
	s := func(sec int64) int64 { return base + sec*1000 }
	pt := func(e Event, proc int64) {
		e.Call, e.Window, e.OnClock, e.Proc, e.HasProc = "TUMBLE(time_col=[pt], size=[1 min]) on processing time", true, true, s(proc), true
		r.Add(e)
	}
	et := func(e Event, proc int64) {
		e.Call, e.Window, e.Proc, e.HasProc = "TUMBLE(time_col=[ts], size=[1 min])", true, s(proc), true
		r.Add(e)
	}
	pt(Event{Kind: Clock, Time: s(0), HasTime: true}, 0)
	pt(Event{Kind: RowIn, Time: s(0), HasTime: true, WM: s(0), HasWM: true, Row: "+I[ann, 2025-03-27T12:00:10]"}, 0)
	pt(Event{Kind: TimerSet, Time: s(60) - 1, HasTime: true, WM: s(0), HasWM: true}, 0)
	pt(Event{Kind: Clock, Time: s(30), HasTime: true, WM: s(0), HasWM: true}, 30)
	pt(Event{Kind: RowIn, Time: s(30), HasTime: true, WM: s(30), HasWM: true, Row: "+I[bob, 2025-03-27T12:00:50]"}, 30)
	pt(Event{Kind: Clock, Time: s(60), HasTime: true, WM: s(30), HasWM: true}, 60)
	pt(Event{Kind: TimerFired, Time: s(60) - 1, HasTime: true, WM: s(60), HasWM: true}, 60)
	pt(Event{Kind: RowOut, Time: s(60) - 1, HasTime: true, WM: s(60), HasWM: true, Row: "+I[2025-03-27T12:00, 2]"}, 60)
	et(Event{Kind: RowIn, Time: s(10), HasTime: true, Row: "+I[ann, 2025-03-27T12:00:10]"}, 0)
	et(Event{Kind: TimerSet, Time: s(60) - 1, HasTime: true}, 0)
	et(Event{Kind: Watermark, Time: s(70), HasTime: true}, 30)
	et(Event{Kind: TimerFired, Time: s(60) - 1, HasTime: true, WM: s(70), HasWM: true}, 30)
	et(Event{Kind: RowOut, Time: s(60) - 1, HasTime: true, WM: s(70), HasWM: true, Row: "+I[2025-03-27T12:00, 1]"}, 30)
	et(Event{Kind: DroppedRow, Time: s(50), HasTime: true, WM: s(70), HasWM: true, Row: "+I[bob, 2025-03-27T12:00:50]"}, 30)
	return r
}

// TestWindows_text: a window operator's section names its time lane
// (proc time, or the watermark), counts its dropped rows without blaming
// ORDER BY, says where the clock went, and the legend explains windows.
func TestWindows_text(t *testing.T) {
	for _, v := range Views {
		var b bytes.Buffer
		if err := TextView(&b, windows(), v); err != nil {
			t.Fatal(err)
		}
		golden(t, "windows-"+string(v)+".txt", b.Bytes())
	}
	var b bytes.Buffer
	TextView(&b, windows(), EventView)
	got := b.String()
	for _, want := range []string{
		"TUMBLE(time_col=[pt], size=[1 min]) on processing time\n  proc time ^--------------^--------------^\n",
		"processing time 2025-03-27 12:00:00 → 2025-03-27 12:01:00 in 2 steps\n",
		"TUMBLE(time_col=[ts], size=[1 min])\n  watermark ",
		"1 key; 2 rows in (1 late, 1 dropped); timers: 1 set, 1 fired, 0 cleared; 1 row out\n",
		"windows: t a window opens",
		"proc time: the processing-time clock",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the drawing lacks %q:\n%s", want, got)
		}
	}
}

// TestWindows_svg: the sections of window operators are marked (data-op),
// the clock's steps have a class of their own, and the tooltips speak of
// windows, not of a PTF's timers; the arrival view draws the clock as a
// curve of its own.
func TestWindows_svg(t *testing.T) {
	var b bytes.Buffer
	if err := SVGView(&b, windows(), EventView); err != nil {
		t.Fatal(err)
	}
	golden(t, "windows.svg", b.Bytes())
	n := arrivalShape(t, "windows.svg", b.Bytes())
	if n["wm-step clock-step"] != 3 || n["wm-step"] != 1+1 || n["dropped"] != 1+1 {
		t.Errorf("windows.svg: structure %v", n)
	}
	for _, want := range []string{
		`data-op="window clock"`, `data-op="window"`, `>proc time</text>`,
		"the window ending at 2025-03-27 12:00:59.999 fires (processing time 2025-03-27 12:01:00 passed it)",
		"dropped +I[bob, 2025-03-27T12:00:50] at 2025-03-27 12:00:50: late, the watermark 2025-03-27 12:01:10 had passed all its windows",
		"windows: timer set = a window opens",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("windows.svg lacks %q", want)
		}
	}
	b.Reset()
	if err := SVGView(&b, windows(), ArrivalView); err != nil {
		t.Fatal(err)
	}
	n = arrivalShape(t, "windows-arrival.svg", b.Bytes())
	if n["wm-curve clock-curve"] != 1 || n["wm-curve"] != 1+1 || n["pt-dropped"] != 1+1 || n["wm-step clock-step"] != 3 {
		t.Errorf("windows-arrival.svg: structure %v", n)
	}
	if !strings.Contains(b.String(), `<g class="arrival" data-call="TUMBLE(time_col=[pt], size=[1 min]) on processing time" data-op="window clock">`) {
		t.Error("windows-arrival.svg: the section on processing time is not marked")
	}
}
