package exec

import "github.com/ptfsh/ptfsh/runtime/types"

// Fan-out: two identical calls with the same uid are one stateful instance
// whose output feeds both places, as Flink merges them into one operator
// (testUidPipelineMergeIntoOneFunction). The instance runs once; each
// consumer gets every event, queued until it pulls.

// teeNode is one consumer of a shared call.
type TeeNode struct {
	In   Node   // the call, planned once
	Text string // the call as written, to match identical calls
}

func (n *TeeNode) Schema() types.Schema           { return n.In.Schema() }
func (n *TeeNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *TeeNode) Children() []Node               { return n.In.Children() }
func (n *TeeNode) Explain() string                { return n.In.Explain() }
func (n *TeeNode) UpsertKey() []int               { return UpsertKeyOf(n.In) }

// teeShared is the running instance behind a teeNode's consumers.
type teeShared struct {
	in     Stream
	queues [][]Event
	open   int // consumers not yet closed
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
	sh.queues = append(sh.queues, nil)
	sh.open++
	return &teeStream{sh: sh, id: len(sh.queues) - 1}, nil
}

type teeStream struct {
	sh *teeShared
	id int
}

func (s *teeStream) Next() (Event, error) {
	q := s.sh.queues[s.id]
	if len(q) > 0 {
		ev := q[0]
		s.sh.queues[s.id] = q[1:]
		return ev, nil
	}
	ev, err := s.sh.in.Next()
	if err != nil {
		return ev, err
	}
	for i := range s.sh.queues {
		if i != s.id {
			s.sh.queues[i] = append(s.sh.queues[i], ev)
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
