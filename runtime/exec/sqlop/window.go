package sqlop

import (
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Window table functions (TUMBLE, HOP, CUMULATE, SESSION) as Flink 2.3
// runs them in streaming mode. Each input row gets the columns
// window_start, window_end (TIMESTAMP(3)) and window_time (window_end - 1
// ms, a time attribute) of each window it falls in. TUMBLE, HOP and
// CUMULATE assign a row at once, from its time alone; SESSION holds the
// rows of each PARTITION BY key until the watermark passes the end of
// their session (the last row's time plus the gap), then emits them with
// the session's bounds. The session time zone is UTC, so windows of a
// TIMESTAMP_LTZ column start on the same instants as those of a TIMESTAMP.

// WindowKind is the window table function.
type WindowKind uint8

const (
	Tumble WindowKind = iota
	Hop
	Cumulate
	Session
)

// String returns the function's name.
func (k WindowKind) String() string {
	return [...]string{"TUMBLE", "HOP", "CUMULATE", "SESSION"}[k]
}

// WindowSpec is a window table function's windows, in milliseconds: Size
// (TUMBLE, HOP; CUMULATE's max size), Slide (HOP's slide, CUMULATE's
// step), Offset (TUMBLE, HOP, CUMULATE) and Gap (SESSION).
type WindowSpec struct {
	Kind                     WindowKind
	Size, Slide, Offset, Gap int64
}

// windowStart is Flink's TimeWindow.getWindowStartWithOffset, with Java's
// remainder (the sign of the dividend), which Go's % shares.
func windowStart(t, offset, size int64) int64 {
	return t - (t-offset+size)%size
}

// Assign returns the [start, end) windows of a row at time t, in the
// order Flink's window table function emits them (not for SESSION).
func (w WindowSpec) Assign(t int64) [][2]int64 { return w.AppendWindows(nil, t) }

// AppendWindows appends Assign's windows to out.
func (w WindowSpec) AppendWindows(out [][2]int64, t int64) [][2]int64 {
	switch w.Kind {
	case Tumble:
		s := windowStart(t, w.Offset, w.Size)
		return append(out, [2]int64{s, s + w.Size})
	case Hop:
		for s := windowStart(t, w.Offset, w.Slide); s > t-w.Size; s -= w.Slide {
			out = append(out, [2]int64{s, s + w.Size})
		}
		return out
	case Cumulate:
		s := windowStart(t, w.Offset, w.Size)
		for e := windowStart(t, w.Offset, w.Slide) + w.Slide; e <= s+w.Size; e += w.Slide {
			out = append(out, [2]int64{s, e})
		}
		return out
	}
	return out
}

// Text prints the windows as Flink's plans do: TUMBLE(size=[10 min]).
func (w WindowSpec) Text() string {
	switch w.Kind {
	case Tumble:
		return "TUMBLE(size=[" + msText(w.Size) + "]" + offsetText(w.Offset) + ")"
	case Hop:
		return "HOP(size=[" + msText(w.Size) + "], slide=[" + msText(w.Slide) + "]" + offsetText(w.Offset) + ")"
	case Cumulate:
		return "CUMULATE(max_size=[" + msText(w.Size) + "], step=[" + msText(w.Slide) + "]" + offsetText(w.Offset) + ")"
	}
	return "SESSION(gap=[" + msText(w.Gap) + "])"
}

func offsetText(ms int64) string {
	if ms == 0 {
		return ""
	}
	return ", offset=[" + msText(ms) + "]"
}

// msText prints milliseconds in the largest unit that divides them.
func msText(ms int64) string {
	for _, u := range []struct {
		n    int64
		name string
	}{{86_400_000, " d"}, {3_600_000, " h"}, {60_000, " min"}, {1000, " s"}} {
		if ms != 0 && ms%u.n == 0 {
			return strconv.FormatInt(ms/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + " ms"
}

// WindowTVFNode is a window table function over an insert-only input:
// the input's columns, then window_start, window_end and window_time.
type WindowTVFNode struct {
	In   exec.Node
	Spec WindowSpec
	// Time is the time attribute column (DESCRIPTOR(col)); Partition,
	// SESSION's PARTITION BY columns.
	Time      int
	Partition []int
	// DropLate leaves out the windows of a row that the watermark has
	// passed (window_end - 1 <= watermark) and drops a row that has no
	// other, as Flink's window aggregation does (a late row still counts
	// in its windows that have not fired); a window table function read
	// on its own keeps every row (only SESSION drops late rows).
	DropLate bool
	Sch      types.Schema
	Text     string
	// ProcTime: the time column is a processing-time attribute; SESSION
	// closes a session when the processing-time clock passes its end.
	ProcTime bool
	// Draw, under a window aggregation, draws the rows and the watermark
	// (or the clock) in the statement's timeline (window_draw.go).
	Draw *WindowDraw
}

var _ exec.Node = (*WindowTVFNode)(nil)

func (n *WindowTVFNode) Schema() types.Schema           { return n.Sch }
func (n *WindowTVFNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *WindowTVFNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *WindowTVFNode) Explain() string                { return n.Text }

func (n *WindowTVFNode) Open(ex *exec.Execution) (exec.Stream, error) {
	var ns string
	if n.Spec.Kind == Session {
		ns = ex.OperatorNamespace("session")
	}
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	s := n.stream(in, ex)
	if n.Spec.Kind == Session {
		if err := s.openSessions(ns); err != nil {
			in.Close()
			return nil, err
		}
		ex.Stateful = append(ex.Stateful, s)
	}
	return s, nil
}

// stream returns the stream of n over its input in, without the open
// sessions of SESSION (openSessions).
func (n *WindowTVFNode) stream(in exec.Stream, ex *exec.Execution) *windowTVFStream {
	return &windowTVFStream{n: n, in: in, ex: ex, wm: exec.MinWatermark, minEnd: exec.MinWatermark, obs: n.Draw.observer(ex, n.ProcTime)}
}

// session is one open session of a key: its bounds and rows.
type session struct {
	start, end int64
	rows       []arrived
}

// arrived is a row with its place in the input, which orders the rows of
// merged sessions as they came.
type arrived struct {
	n   int64
	row types.Row
}

// sessionKey holds the open sessions of one PARTITION BY key; seq is the
// order in which keys first appeared, which orders sessions that close
// together.
type sessionKey struct {
	seq      int64
	sessions []*session
}

type windowTVFStream struct {
	n    *WindowTVFNode
	in   exec.Stream
	ex   *exec.Execution
	wm   int64
	out  exec.Queue
	late int64
	// obs draws the rows and the time in the timeline (nil: none).
	obs exec.OpObserver
	ws  [][2]int64 // the windows of the row at hand
	// boxed are the window columns of the window [boxedStart, boxedEnd),
	// the last one emitted.
	boxed                [3]any
	boxedStart, boxedEnd int64
	// The open sessions (SESSION) live in the state store (session_state.go):
	// keys by PARTITION BY key, ends by (end, key's seq, start), so that a
	// firing reads them in order; meta holds the counters seq (keys seen)
	// and rows (rows seen, the arrival order of session rows).
	keys *opstate.Table[*sessionKey]
	ends *opstate.Table[[]byte]
	meta *opstate.Table[int64]
	seq  int64
	rows int64
	// minEnd is at most the smallest end of the open sessions, so that a
	// watermark before it fires nothing without a scan (MinWatermark:
	// unknown, after a restore).
	minEnd int64
}

var (
	_ exec.Stream       = (*windowTVFStream)(nil)
	_ exec.TimeOperator = (*windowTVFStream)(nil)
	_ exec.IdleOperator = (*windowTVFStream)(nil)
)

func (s *windowTVFStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// Idle closes, on processing time, the sessions the clock passed while
// the input was quiet.
func (s *windowTVFStream) Idle() error {
	if s.obs != nil && s.n.ProcTime {
		s.obs.Clock(s.ex.Now())
	}
	if s.n.ProcTime && s.n.Spec.Kind == Session {
		return s.procFire()
	}
	return nil
}

// Time closes the windows (and sessions) the watermark (or the end)
// passed.
func (s *windowTVFStream) Time(ev *exec.Event) error {
	if s.n.ProcTime {
		if s.obs != nil {
			s.obs.Clock(s.ex.Now())
		}
		if s.n.Spec.Kind == Session {
			return s.procFire()
		}
		return nil
	}
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = max(s.wm, ev.Wm)
		if ev.Restored() {
			break
		}
		if s.obs != nil {
			s.obs.Watermark(ev.Wm)
		}
		if err := s.fire(ev.Wm); err != nil {
			return err
		}
	case exec.EvEnd:
		if s.ex.Opts.EndOfInput {
			if s.obs != nil {
				s.obs.Watermark(exec.MaxWatermark)
			}
			if err := s.fire(exec.MaxWatermark); err != nil {
				return err
			}
		}
		if s.late > 0 {
			s.ex.Notes = append(s.ex.Notes, "note: "+s.n.Spec.Kind.String()+" dropped "+exec.Plural(s.late, "late row")+", whose windows the watermark had passed when they arrived, as Flink does")
		}
	}
	return nil
}

// Row assigns one input row to its windows. A row without a time is
// dropped, as Flink's window operators drop a NULL rowtime.
func (s *windowTVFStream) Row(r types.Row) error {
	t, ok := types.TimeMillis(r.Fields[s.n.Time])
	if s.obs != nil && s.n.ProcTime {
		s.obs.Clock(s.ex.Now())
	}
	if !ok {
		return nil
	}
	if s.n.Spec.Kind == Session {
		if s.n.ProcTime {
			if err := s.procFire(); err != nil {
				return err
			}
		}
		return s.addToSession(r, t)
	}
	sent := false
	s.ws = s.n.Spec.AppendWindows(s.ws[:0], t)
	ws := s.ws
	if s.obs != nil {
		s.drawRow(r, t, ws)
	}
	for _, w := range ws {
		if s.n.DropLate && w[1]-1 <= s.wm {
			continue
		}
		s.emit(r, w[0], w[1])
		sent = true
	}
	if !sent && s.n.DropLate && len(ws) > 0 {
		s.late++
	}
	return nil
}

// drawRow draws a row at time t, whose windows are ws, in the timeline:
// in (late when at or before the watermark, yet in a window still open),
// or dropped when the watermark passed all its windows.
func (s *windowTVFStream) drawRow(r types.Row, t int64, ws [][2]int64) {
	open := !s.n.DropLate
	for _, w := range ws {
		open = open || w[1]-1 > s.wm
	}
	key, text := drawKey(r.Fields, s.n.Draw.TVFKeys), rowText(r.Fields, s.n.In.Schema())
	if !open && len(ws) > 0 {
		s.obs.Dropped(key, t, true, text)
		return
	}
	s.obs.RowIn(key, t, true, !s.n.ProcTime && t <= s.wm, text)
}

// emit sends row r with the window [start, end). The window's three
// values are boxed once per window, not per row: rows of one window
// share them (values are immutable).
func (s *windowTVFStream) emit(r types.Row, start, end int64) {
	f := make([]any, 0, len(r.Fields)+3)
	f = append(f, r.Fields...)
	if s.boxed[0] == nil || start != s.boxedStart || end != s.boxedEnd {
		s.boxedStart, s.boxedEnd = start, end
		s.boxed = windowColumns(s.n.Sch, start, end)
	}
	f = append(f, s.boxed[:]...)
	s.out.PushRow(types.Insert, f)
}

// windowColumns returns the values of window_start, window_end and
// window_time of the window [start, end) in a window table function's
// output of schema sch (window_time is a TIMESTAMP_LTZ over one).
func windowColumns(sch types.Schema, start, end int64) [3]any {
	v := [3]any{types.LocalDateTime{Millis: start}, types.LocalDateTime{Millis: end}, nil}
	if sch.Columns[len(sch.Columns)-1].Type.Kind == types.KindTimestampLTZ {
		v[2] = types.Instant{Millis: end - 1}
	} else {
		v[2] = types.LocalDateTime{Millis: end - 1}
	}
	return v
}

func (s *windowTVFStream) Close() error { return s.in.Close() }
