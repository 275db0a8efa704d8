package sqlop

import (
	"sort"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
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
func (w WindowSpec) Assign(t int64) [][2]int64 {
	switch w.Kind {
	case Tumble:
		s := windowStart(t, w.Offset, w.Size)
		return [][2]int64{{s, s + w.Size}}
	case Hop:
		var out [][2]int64
		for s := windowStart(t, w.Offset, w.Slide); s > t-w.Size; s -= w.Slide {
			out = append(out, [2]int64{s, s + w.Size})
		}
		return out
	case Cumulate:
		s := windowStart(t, w.Offset, w.Size)
		var out [][2]int64
		for e := windowStart(t, w.Offset, w.Slide) + w.Slide; e <= s+w.Size; e += w.Slide {
			out = append(out, [2]int64{s, e})
		}
		return out
	}
	return nil
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
}

var _ exec.Node = (*WindowTVFNode)(nil)

func (n *WindowTVFNode) Schema() types.Schema           { return n.Sch }
func (n *WindowTVFNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *WindowTVFNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *WindowTVFNode) Explain() string                { return n.Text }

func (n *WindowTVFNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if n.Spec.Kind == Session {
		if err := ex.InMemory("SESSION keeps its open sessions"); err != nil {
			return nil, err
		}
	}
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &windowTVFStream{n: n, in: in, ex: ex, wm: minWatermark, keys: map[string]*sessionKey{}, minEnd: exec.MaxWatermark}, nil
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
	seq      int
	sessions []*session
}

type windowTVFStream struct {
	n    *WindowTVFNode
	in   exec.Stream
	ex   *exec.Execution
	wm   int64
	out  exec.Queue
	late int64
	keys map[string]*sessionKey
	seq  int
	rows int64 // rows seen, the arrival order of session rows
	// minEnd is at most the smallest end of the open sessions, so that a
	// watermark before it fires nothing without a look at every key.
	minEnd int64
}

var (
	_ exec.Stream       = (*windowTVFStream)(nil)
	_ exec.TimeOperator = (*windowTVFStream)(nil)
)

func (s *windowTVFStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

// Time closes the windows (and sessions) the watermark (or the end)
// passed.
func (s *windowTVFStream) Time(ev *exec.Event) error {
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = ev.Wm
		s.fire(ev.Wm)
	case exec.EvEnd:
		if s.ex.Opts.EndOfInput {
			s.fire(exec.MaxWatermark)
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
	if !ok {
		return nil
	}
	if s.n.Spec.Kind == Session {
		s.addToSession(r, t)
		return nil
	}
	sent := false
	ws := s.n.Spec.Assign(t)
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

// emit sends row r with the window [start, end).
func (s *windowTVFStream) emit(r types.Row, start, end int64) {
	f := make([]any, 0, len(r.Fields)+3)
	f = append(f, r.Fields...)
	f = append(f, types.LocalDateTime{Millis: start}, types.LocalDateTime{Millis: end})
	if s.n.Sch.Columns[len(s.n.Sch.Columns)-1].Type.Kind == types.KindTimestampLTZ {
		f = append(f, types.Instant{Millis: end - 1})
	} else {
		f = append(f, types.LocalDateTime{Millis: end - 1})
	}
	s.out.PushRow(types.Insert, f)
}

// addToSession puts a row into the sessions of its key: its own window
// [t, t + gap) merges with every open session it touches (Flink's
// TimeWindow.intersects: bounds that meet count). A row that merges with
// none and whose window the watermark has passed is late.
func (s *windowTVFStream) addToSession(r types.Row, t int64) {
	k := string(keycodec.Encode(keycodec.Pick(r, s.n.Partition)))
	sk := s.keys[k]
	if sk == nil {
		s.seq++
		sk = &sessionKey{seq: s.seq}
		s.keys[k] = sk
	}
	merged := &session{start: t, end: t + s.n.Spec.Gap}
	var kept []*session
	var parts []*session
	for _, ss := range sk.sessions {
		if ss.start <= merged.end && ss.end >= merged.start {
			merged.start, merged.end = min(merged.start, ss.start), max(merged.end, ss.end)
			parts = append(parts, ss)
			continue
		}
		kept = append(kept, ss)
	}
	if len(parts) == 0 && merged.end-1 <= s.wm {
		s.late++
		if len(sk.sessions) == 0 {
			delete(s.keys, k)
		}
		return
	}
	// The rows keep their arrival order, as Flink's merged window state does.
	for _, p := range parts {
		merged.rows = append(merged.rows, p.rows...)
	}
	sort.Slice(merged.rows, func(i, j int) bool { return merged.rows[i].n < merged.rows[j].n })
	s.rows++
	merged.rows = append(merged.rows, arrived{s.rows, r.Copy()})
	sk.sessions = append(kept, merged)
	s.minEnd = min(s.minEnd, merged.end)
}

// fire emits the sessions whose end - 1 the watermark wm has reached,
// ordered by end, then by when their key first appeared.
func (s *windowTVFStream) fire(wm int64) {
	if s.n.Spec.Kind != Session || s.minEnd-1 > wm {
		return
	}
	s.minEnd = exec.MaxWatermark
	type closing struct {
		seq int
		ss  *session
	}
	var done []closing
	for k, sk := range s.keys {
		var open []*session
		for _, ss := range sk.sessions {
			if ss.end-1 <= wm {
				done = append(done, closing{sk.seq, ss})
			} else {
				open = append(open, ss)
				s.minEnd = min(s.minEnd, ss.end)
			}
		}
		sk.sessions = open
		if len(open) == 0 {
			delete(s.keys, k)
		}
	}
	sort.Slice(done, func(i, j int) bool {
		if done[i].ss.end != done[j].ss.end {
			return done[i].ss.end < done[j].ss.end
		}
		if done[i].seq != done[j].seq {
			return done[i].seq < done[j].seq
		}
		return done[i].ss.start < done[j].ss.start
	})
	for _, c := range done {
		for _, r := range c.ss.rows {
			s.emit(r.row, c.ss.start, c.ss.end)
		}
	}
}

func (s *windowTVFStream) Close() error { return s.in.Close() }
