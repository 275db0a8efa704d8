package sqlop

import (
	"sort"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// TemporalJoinNode is Flink's event-time temporal join, a JOIN v FOR
// SYSTEM_TIME AS OF a.ts ON a.k = v.k: each row of the left side joins
// the version of the versioned table (the right side: a primary key and a
// time attribute) that was current at the left row's time, that is, the
// last row of its key whose time is at or before it, unless that row is a
// delete. Left rows wait until the watermark (the smaller of both
// inputs') reaches their time, and then go out in time order (ties in
// arrival order); versions older than the last one at or before the
// watermark are dropped. Kind is InnerJoin or LeftJoin (a left row
// without a version, or whose version fails Cond, padded with NULLs). The
// output is insert-only and keeps the left time attribute only.
type TemporalJoinNode struct {
	Left, Right         exec.Node
	Kind                JoinKind
	LeftKeys, RightKeys []expr.Expr
	Cond                expr.Expr
	LeftTime, RightTime int
	Sch                 types.Schema
	Text                string
}

var _ exec.Node = (*TemporalJoinNode)(nil)

func (n *TemporalJoinNode) Schema() types.Schema { return n.Sch }

func (n *TemporalJoinNode) Changelog() types.ChangelogMode { return types.InsertOnly }

func (n *TemporalJoinNode) Children() []exec.Node { return []exec.Node{n.Left, n.Right} }

func (n *TemporalJoinNode) Explain() string { return n.Text }

func (n *TemporalJoinNode) Open(ex *exec.Execution) (exec.Stream, error) {
	if err := ex.InMemory("a temporal join keeps its rows"); err != nil {
		return nil, err
	}
	ins, err := exec.OpenAll(ex, []exec.Node{n.Left, n.Right})
	if err != nil {
		return nil, err
	}
	two := newTwoInputs(ins, ex)
	two.byTime, two.timeCol = true, [2]int{n.LeftTime, n.RightTime}
	js := &joinStream{n: &JoinNode{LeftKeys: n.LeftKeys, RightKeys: n.RightKeys}, width: [2]int{n.Left.Schema().Len(), n.Right.Schema().Len()}}
	return &temporalStream{n: n, two: two, js: js, versions: map[string][]version{}}, nil
}

// version is one row of the versioned table: from ts on, its key's row is
// fields, or no row (deleted).
type version struct {
	ts      int64
	fields  []any
	deleted bool
}

// waiting is a left row waiting for the watermark.
type waiting struct {
	fields []any
	ts     int64
	key    string
	hasKey bool
	seq    int64
}

type temporalStream struct {
	n        *TemporalJoinNode
	two      *twoInputs
	js       *joinStream
	versions map[string][]version // by key, in time order
	left     []waiting
	seq      int64
	out      exec.Queue
}

var _ exec.Stream = (*temporalStream)(nil)

func (s *temporalStream) Next() (exec.Event, error) {
	for {
		if ev, ok := s.out.Pop(); ok {
			return ev, nil
		}
		side, ev, err := s.two.next()
		if err != nil {
			return exec.Event{}, err
		}
		switch ev.Kind {
		case exec.EvRow:
			if err := s.row(side, ev.Row); err != nil {
				return exec.Event{}, err
			}
			continue
		case exec.EvWatermark:
			if err := s.fire(ev.Wm); err != nil {
				return exec.Event{}, err
			}
			s.out.Push(ev)
			continue
		}
		return ev, nil
	}
}

func (s *temporalStream) row(side int, r types.Row) error {
	key, ok, err := s.js.key(side, r)
	if err != nil {
		return err
	}
	if side == 0 {
		ts, tok := types.TimeMillis(r.Fields[s.n.LeftTime])
		if !tok {
			return nil // no time: Flink's rowtime is never NULL
		}
		s.seq++
		s.left = append(s.left, waiting{fields: r.Fields, ts: ts, key: key, hasKey: ok, seq: s.seq})
		return nil
	}
	ts, tok := types.TimeMillis(r.Fields[s.n.RightTime])
	if !ok || !tok || r.Kind == types.UpdateBefore {
		return nil // -U: its +U is the next version
	}
	v := version{ts: ts, fields: r.Fields, deleted: r.Kind == types.Delete}
	vs := s.versions[key]
	at := sort.Search(len(vs), func(i int) bool { return vs[i].ts >= ts })
	if at < len(vs) && vs[at].ts == ts {
		vs[at] = v // one version per time: the last row wins
	} else {
		vs = append(vs, version{})
		copy(vs[at+1:], vs[at:])
		vs[at] = v
	}
	s.versions[key] = vs
	return nil
}

// fire joins the left rows the watermark w reached, in time order, then
// drops the versions no left row to come can need.
func (s *temporalStream) fire(w int64) error {
	var due, rest []waiting
	for _, l := range s.left {
		if l.ts <= w {
			due = append(due, l)
		} else {
			rest = append(rest, l)
		}
	}
	s.left = rest
	sort.Slice(due, func(i, j int) bool {
		if due[i].ts != due[j].ts {
			return due[i].ts < due[j].ts
		}
		return due[i].seq < due[j].seq
	})
	for _, l := range due {
		var match []any
		if l.hasKey {
			vs := s.versions[l.key]
			at := sort.Search(len(vs), func(i int) bool { return vs[i].ts > l.ts }) - 1
			if at >= 0 && !vs[at].deleted {
				out := s.js.joined(0, l.fields, vs[at].fields)
				ok := true
				if s.n.Cond != nil {
					v, err := s.n.Cond.Eval(out)
					if err != nil {
						return err
					}
					ok = v == true
				}
				if ok {
					match = out
				}
			}
		}
		switch {
		case match != nil:
			s.emit(match)
		case s.n.Kind == LeftJoin:
			s.emit(s.js.padded(0, l.fields))
		}
	}
	for k, vs := range s.versions {
		at := sort.Search(len(vs), func(i int) bool { return vs[i].ts > w }) - 1
		if at > 0 {
			s.versions[k] = append(vs[:0:0], vs[at:]...)
		}
	}
	return nil
}

func (s *temporalStream) emit(fields []any) {
	s.out.PushRow(types.Insert, fields)
}

func (s *temporalStream) Close() error { return exec.CloseAll(s.two.ins) }
