package cep

import (
	"fmt"
	"math"
)

// Event is a row as the NFA sees it: an id that grows with each row the
// partition's matcher is given (the order Flink processes them in) and
// the row's time.
type Event struct {
	ID int64
	TS int64
}

// Step is one row of a match: the row and the variable it matched.
type Step struct {
	Event Event
	Var   int
}

// path is a match's rows, newest first, sharing its tail with the partial
// matches it branched from.
type path struct {
	prev *path
	step Step
	n    int
}

func (p *path) push(s Step) *path {
	n := 1
	if p != nil {
		n = p.n + 1
	}
	return &path{prev: p, step: s, n: n}
}

// steps returns the rows oldest first.
func (p *path) steps() []Step {
	if p == nil {
		return nil
	}
	out := make([]Step, p.n)
	for q := p; q != nil; q = q.prev {
		out[q.n-1] = q.step
	}
	return out
}

// Partial is a partial match (Flink's ComputationState): the NFA state it
// is in, the rows it holds, and its first row.
type Partial struct {
	state   int
	path    *path
	start   Event // the first row; ID -1 for the start state
	prevTS  int64
	started bool
}

func (p *Partial) startKey() (int64, int64) {
	if !p.started {
		return math.MaxInt64, math.MaxInt64
	}
	return p.start.TS, p.start.ID
}

// Steps returns the rows the partial match holds, oldest first.
func (p *Partial) Steps() []Step { return p.path.steps() }

// State is one partition's partial and completed matches (Flink's
// NFAState).
type State struct {
	partial   heap
	completed heap
}

// NewState returns the state of a partition that has seen no row: the
// start state alone.
func (n *NFA) NewState() *State {
	st := &State{}
	st.partial.offer(&Partial{state: n.start, start: Event{ID: -1}})
	return st
}

// Idle reports whether the state holds nothing but the start state: no
// partial match and no completed match waiting.
func (st *State) Idle() bool {
	return st.completed.len() == 0 && st.partial.len() == 1 && !st.partial.q[0].started
}

// Conds evaluates DEFINE conditions: whether the row ev matches variable
// v given the rows the partial match holds so far (steps, oldest first).
// A variable without DEFINE matches every row.
type Conds interface {
	Cond(v int, steps []Step, ev Event) (bool, error)
}

// Match is a match's rows in order, each with its variable.
type Match []Step

// condCtx evaluates conditions for one partial match and one row,
// materializing the partial match's rows once (Flink's ConditionContext).
type condCtx struct {
	conds Conds
	p     *Partial
	steps []Step
	done  bool
	ev    Event
}

func (c *condCtx) check(k cond) (bool, error) {
	if k.take < 0 && len(k.notTake) == 0 {
		return true, nil
	}
	if !c.done {
		c.steps, c.done = c.p.path.steps(), true
	}
	if k.take >= 0 {
		ok, err := c.conds.Cond(k.take, c.steps, c.ev)
		if err != nil || !ok {
			return false, err
		}
	}
	for _, v := range k.notTake {
		ok, err := c.conds.Cond(v, c.steps, c.ev)
		if err != nil || ok {
			return false, err
		}
	}
	return true, nil
}

// Process feeds the partition's next row to the NFA (Flink's
// NFA.process) and returns the matches to emit, in order.
func (n *NFA) Process(st *State, ev Event, conds Conds) ([]Match, error) {
	var next, potential heap
	for _, p := range st.partial.q {
		states, err := n.nextStates(p, ev, conds)
		if err != nil {
			return nil, err
		}
		for _, ns := range states {
			if n.states[ns.state].kind == final {
				potential.offer(ns)
			} else {
				next.offer(ns)
			}
		}
	}
	out, err := n.emit(st, &potential, &next)
	st.partial = next
	return out, err
}

// AdvanceTime drops the partial matches that WITHIN has timed out at time
// ts (Flink's NFA.advanceTime) and returns the completed matches that
// were waiting for them.
func (n *NFA) AdvanceTime(st *State, ts int64) ([]Match, error) {
	var next, potential heap
	for _, p := range st.partial.q {
		if p.started && n.window > 0 && ts-p.start.TS >= n.window {
			continue
		}
		next.offer(p)
	}
	out, err := n.emit(st, &potential, &next)
	st.partial = next
	return out, err
}

// nextStates is Flink's computeNextStates for strict contiguity: the
// partial matches that row ev leads p to.
func (n *NFA) nextStates(p *Partial, ev Event, conds Conds) ([]*Partial, error) {
	ctx := &condCtx{conds: conds, p: p, ev: ev}
	edges, err := n.decisionGraph(ctx, p.state)
	if err != nil {
		return nil, err
	}
	var out []*Partial
	isStart := n.states[p.state].start
	for _, e := range edges {
		if e.act != take {
			continue
		}
		np := p.path.push(Step{Event: ev, Var: n.states[e.from].v})
		start, started := p.start, p.started
		if isStart {
			start, started = ev, true
		}
		out = append(out, &Partial{state: e.to, path: np, start: start, started: started, prevTS: ev.TS})
		f, err := n.finalAfterProceed(ctx, e.to)
		if err != nil {
			return nil, err
		}
		if f >= 0 {
			out = append(out, &Partial{state: f, path: np, start: start, started: started, prevTS: ev.TS})
		}
	}
	if isStart {
		out = append(out, &Partial{state: p.state, start: Event{ID: -1}})
	}
	return out, nil
}

// decisionGraph is Flink's createDecisionGraph: the take and ignore
// transitions whose conditions hold, reached through proceed transitions
// whose conditions hold, in Flink's order (a stack).
func (n *NFA) decisionGraph(ctx *condCtx, s int) ([]transition, error) {
	var edges []transition
	stack := []int{s}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range n.states[cur].trans {
			ok, err := ctx.check(t.cond)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			if t.act == proceed {
				stack = append(stack, t.to)
			} else {
				edges = append(edges, t)
			}
		}
	}
	return edges, nil
}

// finalAfterProceed is Flink's findFinalStateAfterProceed: a final state
// reached from s through proceed transitions whose conditions hold, or -1.
func (n *NFA) finalAfterProceed(ctx *condCtx, s int) (int, error) {
	stack := []int{s}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range n.states[cur].trans {
			if t.act != proceed {
				continue
			}
			ok, err := ctx.check(t.cond)
			if err != nil {
				return -1, err
			}
			if !ok {
				continue
			}
			if n.states[t.to].kind == final {
				return t.to, nil
			}
			stack = append(stack, t.to)
		}
	}
	return -1, nil
}

// emit is Flink's processMatchesAccordingToSkipStrategy: completed
// matches go out earliest first, each once no partial match started
// before it, and each prunes what its skip strategy skips.
func (n *NFA) emit(st *State, potential, partial *heap) ([]Match, error) {
	for _, p := range potential.q {
		st.completed.offer(p)
	}
	var out []Match
	for {
		m := st.completed.peek()
		if m == nil {
			break
		}
		if e := partial.peek(); e != nil && cmpPartial(m, e) > 0 {
			break
		}
		st.completed.poll()
		steps := m.path.steps()
		id, err := n.pruningID(steps)
		if err != nil {
			return out, err
		}
		if id != nil {
			drop := func(p *Partial) bool { return p.started && n.shouldPrune(p.start, *id) }
			partial.removeIf(drop)
			st.completed.removeIf(drop)
		}
		out = append(out, Match(steps))
	}
	return out, nil
}

// less orders rows as Flink's EventId: by time, then id.
func less(a, b Event) bool {
	if a.TS != b.TS {
		return a.TS < b.TS
	}
	return a.ID < b.ID
}

func (n *NFA) shouldPrune(start, id Event) bool {
	if n.skip >= SkipToFirst {
		return less(start, id)
	}
	return !less(id, start) // start <= id
}

// pruningID is the row before which (SkipToFirst, SkipToLast) or up to
// which (the others) partial matches are pruned, or nil for none. A match
// without a row of the skip variable, or whose skip row is its first, is
// Flink's runtime error.
func (n *NFA) pruningID(steps []Step) (*Event, error) {
	switch n.skip {
	case SkipToNextRow:
		e := steps[0].Event
		return &e, nil
	case SkipPastLastRow:
		e := steps[len(steps)-1].Event
		return &e, nil
	}
	var id *Event
	for _, s := range steps {
		if s.Var != n.skipV {
			continue
		}
		e := s.Event
		if id == nil || n.skip == SkipToLast {
			id = &e
		}
		if n.skip == SkipToFirst {
			break
		}
	}
	name := n.vars[n.skipV].Name
	if id == nil {
		return nil, fmt.Errorf("Could not skip to %s. No such element in the found match", name)
	}
	if *id == steps[0].Event {
		return nil, fmt.Errorf("Could not skip to first element of a match.")
	}
	return id, nil
}

// Held calls f for every row a partial or completed match holds.
func (st *State) Held(f func(Event)) {
	for _, h := range []*heap{&st.partial, &st.completed} {
		for _, p := range h.q {
			for q := p.path; q != nil; q = q.prev {
				f(q.step.Event)
			}
		}
	}
}
