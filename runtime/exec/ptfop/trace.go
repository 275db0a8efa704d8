package ptfop

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Tracing (--trace, SET 'ptfsh.trace' = 'on') shows each call of eval and
// onTimer as it happens, for learning and debugging (docs/design.md): the
// key, the input row or the timer, the watermark, the state before and
// after, the timers registered and cleared, and the rows emitted; and
// why: why a row is late, what moved the watermark, why a timer fired.

// escapingWriter writes the trace's lines with the control characters of
// the data they show (keys, rows, state) escaped; the lines' own breaks
// stay ([types.EscapeControls]). Each write is whole lines.
type escapingWriter struct{ w io.Writer }

func (e escapingWriter) Write(p []byte) (int, error) {
	if !types.HasControl(strings.ReplaceAll(string(p), "\n", "")) {
		return e.w.Write(p)
	}
	if _, err := io.WriteString(e.w, types.EscapeControlsKeep(string(p), "\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// trace is the observer that writes the trace of one PTF call to w.
type trace struct {
	w      io.Writer
	filter exec.TraceFilter
	rows   []int64 // rows that arrived from each input

	// The call being traced, when on: the filters let CallStart through.
	on     bool
	before string   // its state before
	late   string   // why its row is late, or ""
	events []string // timers registered and cleared, rows emitted
}

func (t *trace) RowIn(c exec.CallView, in int, r types.Row, dropped bool) {
	t.rows[in]++
	if !dropped {
		return
	}
	key, hasKey := c.PartitionKey(in, r)
	if !t.shows(c, keyText(key, hasKey), true) {
		return
	}
	why := "it has no time"
	if ts, ok := c.RowTime(in, r); ok {
		wm, _ := c.InputWatermark(in)
		why = lateBy(ts, wm)
	}
	fmt.Fprintf(t.w, "trace %s ORDER BY dropped row %d of %s: %s %s\n", c.Function(), t.rows[in], c.InputName(in), why, types.FormatRow(r, c.InputSchema(in)))
}

// lateBy says how late a row at ts is for watermark wm.
func lateBy(ts, wm int64) string {
	if ts == wm {
		return fmt.Sprintf("late: ts %s = watermark (a row at the watermark is late)", timeline.FormatTime(ts))
	}
	return fmt.Sprintf("late by %s (ts %s < watermark %s)", timeline.FormatDuration(wm-ts), timeline.FormatTime(ts), timeline.FormatTime(wm))
}

func (t *trace) Watermark(c exec.CallView, in int, prev int64, had bool) {
	if !t.shows(c, "", false) || t.filter.Late {
		return
	}
	from := "none"
	if had {
		from = timeline.FormatTime(prev)
	}
	wm, _ := c.Watermark()
	why := fmt.Sprintf("after row %d of %s", t.rows[in], c.InputName(in))
	if wm == exec.MaxWatermark {
		why = c.InputName(in) + " ended"
		if c.Inputs() > 1 {
			why = "every input ended"
		}
	}
	fmt.Fprintf(t.w, "trace %s watermark %s → %s (%s)\n", c.Function(), from, timeline.FormatTime(wm), why)
}

func (t *trace) CallStart(c exec.CallView) {
	t.on = false
	late := lateReason(c)
	key, hasKey := c.Key()
	if !t.shows(c, keyText(key, hasKey), late != "") || (t.filter.Key != "" && !hasKey) {
		return // filtered out: not traced
	}
	t.on, t.late, t.events = true, late, t.events[:0]
	t.before, _ = c.State()
}

func (t *trace) CallEnd(c exec.CallView, err error) {
	if !t.on {
		return
	}
	t.on = false
	var b strings.Builder
	wm := "null"
	w, hasWM := c.Watermark()
	if hasWM {
		wm = timeline.FormatTime(w)
	}
	if pt, ok := c.ProcessingTime(); ok { // a clock stepped by hand: say where it stands
		wm += ", processing time " + timeline.FormatTime(pt)
	}
	key := "()"
	if k, ok := c.Key(); ok {
		key = "(" + exec.FormatKey(k) + ")"
	}
	fn := c.Function()
	if tm, firing := c.Firing(); firing {
		why := "watermark " + wm + " passed it"
		if w == exec.MaxWatermark {
			why = "end of input: the last watermark fires every timer left"
		}
		fmt.Fprintf(&b, "trace %s onTimer key %s: %s fired at %s (%s)\n", fn, key, timerName(tm), timeline.FormatTime(tm.Time), why)
	} else if i, r, ok := c.Input(); ok {
		fmt.Fprintf(&b, "trace %s eval key %s row %s, watermark %s\n", fn, key, types.FormatRow(r, c.InputSchema(i)), wm)
	} else {
		fmt.Fprintf(&b, "trace %s eval, watermark %s\n", fn, wm)
	}
	if t.late != "" {
		fmt.Fprintf(&b, "  %s\n", t.late)
	}
	after, hasState := c.State()
	if hasState {
		fmt.Fprintf(&b, "  state before: %s\n", t.before)
	}
	for _, e := range t.events {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	if hasState {
		fmt.Fprintf(&b, "  state after:  %s\n", after)
	}
	if err != nil {
		fmt.Fprintf(&b, "  failed: %v\n", err)
	}
	io.WriteString(t.w, b.String())
}

func (t *trace) RowOut(c exec.CallView, ev *exec.Event) {
	if t.on {
		t.events = append(t.events, "emitted "+types.FormatRow(ev.Row, c.Schema()))
	}
}

func (t *trace) Dropped(c exec.CallView, reason string) {
	if t.on {
		t.events = append(t.events, "dropped its row ("+reason+")")
	}
}

func (t *trace) TimerSet(c exec.CallView, tm exec.Timer) {
	if t.on {
		t.events = append(t.events, "registered "+timerName(tm)+" at "+timeline.FormatTime(tm.Time))
	}
}

func (t *trace) TimerCleared(c exec.CallView, tm exec.Timer, all bool) {
	switch {
	case !t.on:
	case all:
		t.events = append(t.events, "cleared all timers")
	case tm.Named:
		t.events = append(t.events, "cleared timer '"+tm.Name+"'")
	default:
		t.events = append(t.events, "cleared unnamed timer at "+timeline.FormatTime(tm.Time))
	}
}

// shows applies the trace's filters to a line about key (a formatted key;
// "" for a line of no key); late: the line is about a late row.
func (t *trace) shows(c exec.CallView, key string, late bool) bool {
	f := t.filter
	if f.Function != "" && !strings.EqualFold(f.Function, c.Function()) {
		return false
	}
	if f.Late && !late {
		return false
	}
	if f.Key != "" && key != "" {
		want := strings.TrimSpace(f.Key)
		if strings.HasPrefix(want, "(") && strings.HasSuffix(want, ")") {
			want = strings.TrimSpace(want[1 : len(want)-1])
		}
		if key != want {
			return false
		}
	}
	return true
}
