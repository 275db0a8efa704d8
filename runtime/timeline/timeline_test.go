package timeline

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden drawings in testdata/")

// base is 2025-03-27 12:00:00 UTC.
const base = 1743076800000

// lesson is a small record as a lesson makes: two keys, a late row, a
// row ORDER BY drops, timers set, replaced, fired, rows out, the end of
// input.
func lesson() *Record {
	r := &Record{}
	s := func(sec int64) int64 { return base + sec*1000 }
	add := func(e Event) {
		e.Call = "PingLater"
		r.Add(e)
	}
	add(Event{Kind: RowIn, Input: "Clicks", Key: "a", Time: s(0), HasTime: true, Row: "+I[a, 2025-03-27T12:00:00Z]"})
	add(Event{Kind: TimerSet, Key: "a", Time: s(60), HasTime: true, Name: "ping"})
	add(Event{Kind: Watermark, Time: s(0), HasTime: true})
	add(Event{Kind: RowIn, Input: "Clicks", Key: "b", Time: s(10), HasTime: true, WM: s(0), HasWM: true, Row: "+I[b, 2025-03-27T12:00:10Z]"})
	add(Event{Kind: TimerSet, Key: "b", Time: s(70), HasTime: true, WM: s(0), HasWM: true, Name: "ping"})
	add(Event{Kind: Watermark, Time: s(10), HasTime: true, WM: s(0), HasWM: true})
	add(Event{Kind: RowIn, Input: "Clicks", Key: "a", Time: s(30), HasTime: true, WM: s(10), HasWM: true, Row: "+I[a, 2025-03-27T12:00:30Z]"})
	add(Event{Kind: TimerCleared, Key: "a", Time: s(60), HasTime: true, WM: s(10), HasWM: true, Name: "ping"})
	add(Event{Kind: TimerSet, Key: "a", Time: s(90), HasTime: true, WM: s(10), HasWM: true, Name: "ping"})
	add(Event{Kind: Watermark, Time: s(75), HasTime: true, WM: s(10), HasWM: true})
	add(Event{Kind: TimerFired, Key: "b", Time: s(70), HasTime: true, WM: s(75), HasWM: true, Name: "ping"})
	add(Event{Kind: RowOut, Key: "b", Time: s(70), HasTime: true, WM: s(75), HasWM: true, Row: "+I[b, ping, 2025-03-27T12:01:10Z]"})
	add(Event{Kind: LateRow, Input: "Clicks", Key: "a", Time: s(40), HasTime: true, WM: s(75), HasWM: true, Row: "+I[a, 2025-03-27T12:00:40Z]"})
	add(Event{Kind: DroppedRow, Input: "Clicks", Key: "b <&>", Time: s(20), HasTime: true, WM: s(75), HasWM: true, Row: "+I[b <&>, 2025-03-27T12:00:20Z]"})
	add(Event{Kind: Watermark, Time: End, HasTime: true, WM: s(75), HasWM: true})
	add(Event{Kind: TimerFired, Key: "a", Time: s(90), HasTime: true, WM: End, HasWM: true, Name: "ping"})
	add(Event{Kind: RowOut, Key: "a", Time: s(90), HasTime: true, WM: End, HasWM: true, Row: "+I[a, ping, 2025-03-27T12:01:30Z]"})
	return r
}

// crowd is a long run: 20,000 rows over 500 keys, one in fifty late, a
// timer per row and an output per timer.
func crowd() *Record {
	r := &Record{}
	for i := int64(0); i < 20_000; i++ {
		key := fmt.Sprintf("k%03d", i%500)
		ts := base + i*1000
		kind := RowIn
		if i%50 == 49 {
			kind, ts = LateRow, ts-60_000
		}
		r.Add(Event{Kind: kind, Call: "Alerts", Input: "flights", Key: key, Time: ts, HasTime: true, Row: "+I[...]"})
		if i%4 == 0 {
			r.Add(Event{Kind: TimerFired, Call: "Alerts", Key: key, Time: ts, HasTime: true, Name: "t"})
			r.Add(Event{Kind: RowOut, Call: "Alerts", Key: key, Time: ts, HasTime: true, Row: "+I[...]"})
		}
		if i%100 == 0 {
			r.Add(Event{Kind: Watermark, Call: "Alerts", Time: ts - 5000, HasTime: true})
		}
	}
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./runtime/timeline -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./runtime/timeline -update rewrites it if the change is meant); got:\n%s", file, got)
	}
}

func TestText(t *testing.T) {
	for name, r := range map[string]*Record{"lesson.txt": lesson(), "crowd.txt": crowd(), "empty.txt": {}} {
		var b bytes.Buffer
		if err := Text(&b, r); err != nil {
			t.Fatal(err)
		}
		golden(t, name, b.Bytes())
	}
}

func TestTextLesson(t *testing.T) {
	var b bytes.Buffer
	Text(&b, lesson())
	got := b.String()
	for _, want := range []string{
		"event time 2025-03-27 12:00:00 to 2025-03-27 12:01:30 (UTC), one column = 2 s",
		"            12:00:00  12:00:20  12:00:40  12:01:00",
		"  watermark ^----^-------------------------------^-------------------------->",
		"  a         o              o    x         c              T\n    out                                                  >\n",
		"  b <&>               X\n", // dropped by ORDER BY
		"3 keys; 5 rows in (2 late, 1 dropped by ORDER BY); timers: 3 set, 2 fired, 1 cleared; 2 rows out",
		"watermark 2025-03-27 12:00:00 → 2025-03-27 12:01:15 in 3 steps, then end of input",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the drawing lacks %q:\n%s", want, got)
		}
	}
}

func TestTextCrowdIsAggregated(t *testing.T) {
	var b bytes.Buffer
	Text(&b, crowd())
	lines := strings.Split(b.String(), "\n")
	if len(lines) > 45 {
		t.Errorf("20,000 rows over 500 keys take %d lines, want a screen", len(lines))
	}
	if !strings.Contains(b.String(), "(500 keys share 20 lanes, in the order they first appeared)") {
		t.Errorf("no aggregated lanes:\n%s", b.String())
	}
	for _, l := range lines {
		if len([]rune(l)) > 120 {
			t.Errorf("line wider than a terminal: %q", l)
		}
	}
}

func TestSVG(t *testing.T) {
	for name, r := range map[string]*Record{"lesson.svg": lesson(), "crowd.svg": crowd()} {
		var b bytes.Buffer
		if err := SVG(&b, r); err != nil {
			t.Fatal(err)
		}
		checkXML(t, name, b.Bytes())
		golden(t, name, b.Bytes())
		if b.Len() > 2<<20 {
			t.Errorf("%s is %d bytes: too big to open", name, b.Len())
		}
	}
}

// checkXML parses the picture and checks its structure: the lanes, the
// legend, no reference to the network.
func checkXML(t *testing.T, name string, data []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	lanes, legend := 0, false
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s is not well-formed XML: %v", name, err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "class" && strings.HasPrefix(a.Value, "lane") && se.Name.Local == "g" {
					lanes++
				}
				if a.Name.Local == "id" && a.Value == "legend" {
					legend = true
				}
				if a.Name.Local == "href" {
					t.Errorf("%s refers to %s", name, a.Value)
				}
			}
		}
	}
	if lanes == 0 || !legend {
		t.Errorf("%s: %d lanes, legend %v", name, lanes, legend)
	}
	if bytes.Contains(data, []byte("http://")) && bytes.Count(data, []byte("http://")) != bytes.Count(data, []byte("http://www.w3.org/2000/svg")) {
		t.Errorf("%s names a network address", name)
	}
}

func TestHTML(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, lesson()); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"<!DOCTYPE html>", `<svg id="timeline"`, `<g id="legend"`, `data-key="a"`, `data-key="b &lt;&amp;&gt;"`, "addEventListener(\"wheel\""} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, bad := range []string{"https://", "<link", "src="} {
		if strings.Contains(got, bad) {
			t.Errorf("the page is not standalone: it has %q", bad)
		}
	}
	golden(t, "lesson.html", b.Bytes())
}

// TestNoTimes draws events without times across in the order they happened.
func TestNoTimes(t *testing.T) {
	r := &Record{}
	for i := 0; i < 5; i++ {
		r.Add(Event{Kind: RowIn, Call: "f", Key: "k"})
		r.Add(Event{Kind: RowOut, Call: "f", Key: "k"})
	}
	var b bytes.Buffer
	Text(&b, r)
	if !strings.Contains(b.String(), "no event times") || !strings.Contains(b.String(), "  k") {
		t.Errorf("got:\n%s", b.String())
	}
	b.Reset()
	if err := SVG(&b, r); err != nil {
		t.Fatal(err)
	}
	checkXML(t, "no times", b.Bytes())
}

// TestExtremeTimes: times at the ends of int64 draw without a panic.
func TestExtremeTimes(t *testing.T) {
	r := &Record{}
	for _, ts := range []int64{-1 << 63, 0, 1<<63 - 2, 5} {
		r.Add(Event{Kind: RowIn, Call: "f", Key: "k", Time: ts, HasTime: true})
		r.Add(Event{Kind: Watermark, Call: "f", Time: ts, HasTime: true})
	}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := SVG(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&b, r); err != nil {
		t.Fatal(err)
	}
}

// TestHostileKeys: a key with a newline or an escape keeps its lane on
// one line; markup in a key is text in the SVG.
func TestHostileKeys(t *testing.T) {
	r := &Record{}
	for _, k := range []string{"a\nb", "\x1b[31mred", "<script>alert(1)</script>", strings.Repeat("long", 40)} {
		r.Add(Event{Kind: RowIn, Call: "f", Key: k, Time: base, HasTime: true, Row: k})
	}
	var b bytes.Buffer
	Text(&b, r)
	if strings.Contains(b.String(), "\x1b") || !strings.Contains(b.String(), "  a·b ") {
		t.Errorf("control characters reach the terminal:\n%q", b.String())
	}
	b.Reset()
	SVG(&b, r)
	checkXML(t, "hostile", b.Bytes())
	if strings.Contains(b.String(), "<script>alert") {
		t.Errorf("markup of a key reaches the SVG")
	}
}

func TestFormat(t *testing.T) {
	for ms, want := range map[int64]string{base: "2025-03-27 12:00:00", base + 250: "2025-03-27 12:00:00.250", End: "end of input"} {
		if got := FormatTime(ms); got != want {
			t.Errorf("FormatTime(%d) = %q, want %q", ms, got, want)
		}
	}
	for ms, want := range map[int64]string{0: "0 ms", 250: "250 ms", 3000: "3 s", 1500: "1.5 s", 125_000: "2 min 5 s", 3_600_000: "1 h", 2*86_400_000 + 4*3_600_000: "2 d 4 h", -3000: "-3 s"} {
		if got := FormatDuration(ms); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", ms, got, want)
		}
	}
}

func TestMissed(t *testing.T) {
	defer func(n int) { MaxEvents = n }(MaxEvents)
	MaxEvents = 3
	r := &Record{}
	for i := 0; i < 5; i++ {
		r.Add(Event{Kind: RowIn, Call: "f", Key: "k", Time: int64(i), HasTime: true})
	}
	if r.Missed != 2 || len(r.Events) != 3 {
		t.Errorf("missed %d, kept %d", r.Missed, len(r.Events))
	}
	var b bytes.Buffer
	Text(&b, r)
	if !strings.Contains(b.String(), "note: the timeline kept the first 3 events; 2 more are not drawn") {
		t.Errorf("got:\n%s", b.String())
	}
}
