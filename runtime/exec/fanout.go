package exec

import "github.com/ptfsh/ptfsh/runtime/types"

// Fan-out: two identical calls with the same uid are one stateful instance
// whose output feeds both places, as Flink merges them into one operator
// (testUidPipelineMergeIntoOneFunction). The instance runs once; each
// consumer gets every event, queued until it pulls.

// TeeNode is one consumer of a shared call.
type TeeNode struct {
	In   Node   // the call, planned once
	Text string // the call as written, to match identical calls
}

var _ Node = (*TeeNode)(nil)

var (
	_ Node        = (*TeeNode)(nil)
	_ UpsertKeyed = (*TeeNode)(nil)
)

func (n *TeeNode) Schema() types.Schema           { return n.In.Schema() }
func (n *TeeNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *TeeNode) Children() []Node               { return n.In.Children() }
func (n *TeeNode) Explain() string                { return n.In.Explain() }
func (n *TeeNode) UpsertKey() []int               { return UpsertKeyOf(n.In) }

// teeShared is the running instance behind a teeNode's consumers.
type teeShared struct {
	in     Stream
	queues []Queue // per consumer, what it has not pulled yet
	open   int     // consumers not yet closed
}

func (n *TeeNode) Open(ex *Execution) (Stream, error) {
	if ex.tees == nil {
		ex.tees = map[Node]*teeShared{}
	}
	sh, ok := ex.tees[n.In]
	if !ok {
		in, err := n.In.Open(ex)
		if err != nil {
			return nil, err
		}
		sh = &teeShared{in: in}
		ex.tees[n.In] = sh
	}
	sh.queues = append(sh.queues, Queue{})
	sh.open++
	return &teeStream{sh: sh, id: len(sh.queues) - 1}, nil
}

type teeStream struct {
	sh *teeShared
	id int
}

var (
	_ Stream      = (*teeStream)(nil)
	_ RowEncoding = (*teeStream)(nil)
)

func (s *teeStream) Next() (Event, error) {
	if ev, ok := s.sh.queues[s.id].Pop(); ok {
		return ev, nil
	}
	ev, err := s.sh.in.Next()
	if err != nil {
		return ev, err
	}
	for i := range s.sh.queues {
		if i != s.id {
			s.sh.queues[i].Push(ev)
		}
	}
	return ev, nil
}

func (s *teeStream) Close() error {
	s.sh.open--
	if s.sh.open == 0 {
		return s.sh.in.Close()
	}
	return nil
}

// EncodeRows asks the call to encode its rows when this is its only
// consumer (a call with a uid is shared by every identical call, so it is
// planned behind a tee even when it has one).
func (s *teeStream) EncodeRows(newEncoder func() RowEncoder) bool {
	if len(s.sh.queues) != 1 {
		return false
	}
	e, ok := s.sh.in.(RowEncoding)
	return ok && e.EncodeRows(newEncoder)
}
