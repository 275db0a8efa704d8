package timeline

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestArrivalText(t *testing.T) {
	for name, r := range map[string]*Record{"lesson-arrival.txt": lesson(), "crowd-arrival.txt": crowd(), "empty-arrival.txt": {}} {
		var b bytes.Buffer
		if err := TextView(&b, r, ArrivalView); err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
	}
}

// TestArrivalTextLesson: each row is a point at its arrival and its time,
// the watermark a curve that rises after the rows, late rows below it, the
// timers it fired on its rises, and the end of input at the top.
func TestArrivalTextLesson(t *testing.T) {
	var b bytes.Buffer
	TextView(&b, lesson(), ArrivalView)
	got := b.String()
	for _, want := range []string{
		"arrival view: event time (up, 2025-03-27 12:00:00 to 2025-03-27 12:01:30 UTC, one line = 10 s) against arrival time (across)\n",
		"       end |          ^\n",
		"  12:01:30 |          T\n", // fired by the end of input
		"           |      T---\n",  // fired by the rise to 12:01:15, after row 3
		"  12:00:40 |      |x\n",    // row 4, late: below the watermark
		"           |      |  X\n",  // row 5, dropped by ORDER BY
		"  12:00:00 | o--\n",
		"             1 2 3 4 5\n",
		"> arrival time\n",
		" event time\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the drawing lacks %q:\n%s", want, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > 140 {
			t.Errorf("line wider than a terminal: %q", l)
		}
	}
}

// arrivalShape counts the elements of an arrival picture by class.
func arrivalShape(t *testing.T, name string, data []byte) map[string]int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s is not well-formed XML: %v", name, err)
			}
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		for _, a := range se.Attr {
			switch {
			case a.Name.Local == "class":
				n[a.Value]++
			case a.Name.Local == "id":
				n["#"+a.Value]++
			case a.Name.Local == "href":
				t.Errorf("%s refers to %s", name, a.Value)
			}
		}
	}
	return n
}

func TestArrivalSVG(t *testing.T) {
	for name, r := range map[string]*Record{"lesson-arrival.svg": lesson(), "crowd-arrival.svg": crowd()} {
		var b bytes.Buffer
		if err := SVGView(&b, r, ArrivalView); err != nil {
			t.Fatal(err)
		}
		if name == "lesson-arrival.svg" {
			golden(t, name, b.Bytes())
		}
		if b.Len() > 2<<20 {
			t.Errorf("%s is %d bytes: too big to open", name, b.Len())
		}
		n := arrivalShape(t, name, b.Bytes())
		if n["#legend"] != 1 || n["arrival"] != 1 || n["axis-label"] != 2 || n["wm-curve"] < 1 {
			t.Errorf("%s: structure %v", name, n)
		}
		if !strings.Contains(b.String(), ">event time</text>") || !strings.Contains(b.String(), ">arrival time</text>") {
			t.Errorf("%s: the axes are not labelled", name)
		}
	}
	var b bytes.Buffer
	SVGView(&b, lesson(), ArrivalView)
	n := arrivalShape(t, "lesson", b.Bytes())
	for class, want := range map[string]int{"pt-in": 3 + 1, "pt-late": 1 + 1, "pt-dropped": 1 + 1, "fired": 2 + 1, "wm-step": 3, "wm-end": 1} {
		// (the legend draws one of each mark)
		if n[class] != want {
			t.Errorf("lesson: %d elements of class %s, want %d (%v)", n[class], class, want, n)
		}
	}
	b.Reset()
	SVGView(&b, crowd(), ArrivalView)
	n = arrivalShape(t, "crowd", b.Bytes())
	if n["bin-in"] == 0 || n["bin-late"] == 0 || n["pt-in"] != 1 {
		t.Errorf("crowd: 20,000 rows are not drawn as bins: %v", n)
	}
}

// TestArrivalOverlap: marks at one place stay apart: timers that fired
// together show their count, and rows in one cell of the terminal grid a
// digit.
func TestArrivalOverlap(t *testing.T) {
	r := &Record{}
	for i, k := range []string{"a", "b", "c"} {
		r.Add(Event{Kind: RowIn, Call: "f", Key: k, Time: base + int64(i), HasTime: true})
		r.Add(Event{Kind: TimerSet, Call: "f", Key: k, Time: base + 60_000, HasTime: true})
	}
	r.Add(Event{Kind: Watermark, Call: "f", Time: base + 120_000, HasTime: true})
	for _, k := range []string{"a", "b", "c"} {
		r.Add(Event{Kind: TimerFired, Call: "f", Key: k, Time: base + 60_000, HasTime: true})
	}
	var b bytes.Buffer
	SVGView(&b, r, ArrivalView)
	if !strings.Contains(b.String(), `<text class="count"`) || !strings.Contains(b.String(), "3 timers fired at 2025-03-27 12:01:00 (keys a, b, c)") {
		t.Errorf("three timers at one place are one mark without a count:\n%s", b.String())
	}
	crowded := &Record{}
	for i := 0; i < 400; i++ {
		crowded.Add(Event{Kind: RowIn, Call: "f", Key: "k", Time: base + int64(i%2)*3_600_000, HasTime: true})
	}
	b.Reset()
	TextView(&b, crowded, ArrivalView)
	if !strings.Contains(b.String(), "#") || !strings.Contains(b.String(), "2-9: that many rows in one place") {
		t.Errorf("rows in one cell do not say they are many:\n%s", b.String())
	}
}

// TestArrivalEdges: no times, times at the ends of int64, hostile keys.
func TestArrivalEdges(t *testing.T) {
	r := &Record{}
	r.Add(Event{Kind: RowIn, Call: "f", Key: "<script>"})
	var b bytes.Buffer
	TextView(&b, r, ArrivalView)
	if !strings.Contains(b.String(), "no event times") {
		t.Errorf("got:\n%s", b.String())
	}
	b.Reset()
	SVGView(&b, r, ArrivalView)
	arrivalShape(t, "no times", b.Bytes())
	r = &Record{}
	for _, ts := range []int64{-1 << 63, 0, 1<<63 - 2, 5} {
		r.Add(Event{Kind: RowIn, Call: "f", Key: "k", Time: ts, HasTime: true})
		r.Add(Event{Kind: Watermark, Call: "f", Time: ts, HasTime: true})
		r.Add(Event{Kind: TimerFired, Call: "f", Key: "k", Time: ts, HasTime: true})
	}
	for _, v := range []func() error{
		func() error { return TextView(&b, r, ArrivalView) },
		func() error { return SVGView(&b, r, ArrivalView) },
		func() error { return HTMLView(&b, r, ArrivalView) },
	} {
		if err := v(); err != nil {
			t.Fatal(err)
		}
	}
}
