package runtime

import "github.com/ptfsh/ptfsh/runtime/types"

// Fan-out: two identical calls with the same uid are one stateful instance
// whose output feeds both places, as Flink merges them into one operator
// (testUidPipelineMergeIntoOneFunction). The instance runs once; each
// consumer gets every event, queued until it pulls.

// teeNode is one consumer of a shared call.
type teeNode struct {
	in   node   // the call, planned once
	text string // the call as written, to match identical calls
}

func (n *teeNode) schema() types.Schema           { return n.in.schema() }
func (n *teeNode) changelog() types.ChangelogMode { return n.in.changelog() }
func (n *teeNode) children() []node               { return n.in.children() }
func (n *teeNode) explain() string                { return n.in.explain() }
func (n *teeNode) upsertKey() []int               { return upsertKeyOf(n.in) }

// teeShared is the running instance behind a teeNode's consumers.
type teeShared struct {
	in     stream
	queues [][]event
	open   int // consumers not yet closed
}

func (n *teeNode) open(ex *execution) (stream, error) {
	if ex.tees == nil {
		ex.tees = map[node]*teeShared{}
	}
	sh, ok := ex.tees[n.in]
	if !ok {
		in, err := n.in.open(ex)
		if err != nil {
			return nil, err
		}
		sh = &teeShared{in: in}
		ex.tees[n.in] = sh
	}
	sh.queues = append(sh.queues, nil)
	sh.open++
	return &teeStream{sh: sh, id: len(sh.queues) - 1}, nil
}

type teeStream struct {
	sh *teeShared
	id int
}

func (s *teeStream) next() (event, error) {
	q := s.sh.queues[s.id]
	if len(q) > 0 {
		ev := q[0]
		s.sh.queues[s.id] = q[1:]
		return ev, nil
	}
	ev, err := s.sh.in.next()
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

func (s *teeStream) close() error {
	s.sh.open--
	if s.sh.open == 0 {
		return s.sh.in.close()
	}
	return nil
}
