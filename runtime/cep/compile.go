package cep

import (
	"errors"
	"fmt"
)

// Var is one variable of a pattern with its quantifier: it matches at
// least Min and at most Max rows in a row (Max < 0: no limit). Reluctant
// is the ? after a quantifier: as few rows as will do.
type Var struct {
	Name      string
	Min, Max  int
	Reluctant bool
}

// SkipKind is an AFTER MATCH SKIP strategy.
type SkipKind uint8

const (
	// SkipToNextRow starts the next match at the row after the first row of
	// the match: matches may overlap.
	SkipToNextRow SkipKind = iota
	// SkipPastLastRow starts the next match after the last row of the match.
	SkipPastLastRow
	// SkipToFirst starts the next match at the first row of a variable.
	SkipToFirst
	// SkipToLast starts the next match at the last row of a variable.
	SkipToLast
)

// Spec is a PATTERN clause: its variables in order, the skip strategy (with
// its variable for SkipToFirst and SkipToLast) and WITHIN in milliseconds
// (0: none).
type Spec struct {
	Vars    []Var
	Skip    SkipKind
	SkipVar string
	Within  int64
}

type action uint8

const (
	take action = iota
	ignore
	proceed
)

// cond is a transition's condition: the DEFINE of variable take (-1:
// TRUE), and none of the DEFINEs of notTake (the conditions Flink adds
// after a greedy quantifier).
type cond struct {
	take    int
	notTake []int
}

type transition struct {
	act      action
	from, to int
	cond     cond
}

type stateKind uint8

const (
	normal stateKind = iota
	final
)

type state struct {
	v     int // the variable whose rows the state takes; -1 for the final state
	kind  stateKind
	start bool
	trans []transition
}

// NFA is a compiled pattern.
type NFA struct {
	vars   []Var
	states []*state
	start  int
	skip   SkipKind
	skipV  int // the variable of SkipToFirst and SkipToLast
	window int64
}

// Vars returns the pattern's variables in order.
func (n *NFA) Vars() []Var { return n.vars }

// Window returns WITHIN in milliseconds, 0 when there is none.
func (n *NFA) Window() int64 { return n.window }

// Errors of Compile whose text is Flink's.
var (
	ErrReluctantOptional = errors.New("Reluctant optional variables are not supported yet.")
	ErrEmptyMatches      = errors.New("Patterns that can produce empty matches are not supported. There must be at least one non-optional state.")
	ErrGreedyLast        = errors.New("Greedy quantifiers are not allowed as the last element of a Pattern yet. Finish your pattern with either a simple variable or reluctant quantifier.")
	ErrNotUnique         = errors.New("Pattern variables must be unique. That might change in the future.")
	ErrSkipVar           = errors.New("The pattern name specified in AfterMatchSkipStrategy can not be found in the given Pattern")
)

// quantifier is a variable's Flink quantifier: looping (+, *, {n,}), times
// ({n,m}) or single, optional, greedy, and times {from, to}.
type quantifier struct {
	looping, times, optional, greedy bool
	from, to                         int
}

// quantify maps a variable's quantifier to Flink's as its planner does
// (CommonExecMatch's applyQuantifier and Pattern's times and
// timesOrMore).
func quantify(v Var) (quantifier, error) {
	var q quantifier
	greedy := !v.Reluctant
	optional := v.Min == 0 && v.Max == 1
	switch {
	case v.Min == 0 && v.Max < 0: // *
		q = quantifier{looping: true, optional: true, from: 1, to: 1}
	case v.Min == 1 && v.Max < 0: // +
		q = quantifier{looping: true, from: 1, to: 1}
	case optional: // ?
		q = quantifier{optional: true, from: 1, to: 1}
	case v.Max >= 0: // {n,m}
		q = quantifier{times: true, from: v.Min, to: v.Max}
		if q.from == 0 {
			q.optional, q.from = true, 1
		}
		if q.from <= 0 || q.to < q.from {
			return q, fmt.Errorf("the quantifier {%d,%d} of %s matches no row: give it a maximum of at least 1 and at least its minimum", v.Min, v.Max, v.Name)
		}
	default: // {n,}
		q = quantifier{looping: true, from: v.Min, to: v.Min}
	}
	switch {
	case greedy && (optional || v.Min == v.Max):
	case greedy:
		q.greedy = true
	case optional:
		return q, ErrReluctantOptional
	}
	return q, nil
}

// Compile builds the NFA of spec as Flink's NFACompiler does for a
// pattern of strict contiguity, with Flink's checks.
func Compile(spec Spec) (*NFA, error) {
	if len(spec.Vars) == 0 {
		return nil, errors.New("a pattern needs at least one variable")
	}
	n := &NFA{vars: spec.Vars, skip: spec.Skip, skipV: -1, window: spec.Within}
	seen := map[string]bool{}
	qs := make([]quantifier, len(spec.Vars))
	for i, v := range spec.Vars {
		if seen[v.Name] {
			return nil, ErrNotUnique
		}
		seen[v.Name] = true
		q, err := quantify(v)
		if err != nil {
			return nil, err
		}
		qs[i] = q
		if spec.Skip >= SkipToFirst && v.Name == spec.SkipVar {
			n.skipV = i
		}
	}
	if spec.Skip >= SkipToFirst && n.skipV < 0 {
		return nil, ErrSkipVar
	}
	sink := n.newState(-1, final)
	for i := len(spec.Vars) - 1; i >= 0; i-- {
		sink = n.convert(i, qs[i], sink)
	}
	n.states[sink].start = true
	n.start = sink
	if n.emptyMatches() {
		return nil, ErrEmptyMatches
	}
	if qs[len(qs)-1].greedy {
		return nil, ErrGreedyLast
	}
	return n, nil
}

func (n *NFA) newState(v int, k stateKind) int {
	n.states = append(n.states, &state{v: v, kind: k})
	return len(n.states) - 1
}

func (n *NFA) add(from int, act action, to int, c cond) {
	s := n.states[from]
	s.trans = append(s.trans, transition{act: act, from: from, to: to, cond: c})
}

// convert is NFACompiler's convertPattern for variable v: the states that
// take its rows, ending in sink; it returns the first.
func (n *NFA) convert(v int, q quantifier, sink int) int {
	takeCond := cond{take: v}
	if q.looping {
		looping := n.newState(v, normal)
		n.add(looping, proceed, sink, cond{take: -1})
		if q.greedy {
			n.greedyCondition(sink, v)
		}
		n.add(looping, take, looping, takeCond)
		return n.timesStates(v, q, looping, sink)
	}
	if q.times {
		return n.timesStates(v, q, sink, sink)
	}
	return n.singleton(v, q, sink, sink, q.optional)
}

// timesStates is NFACompiler's createTimesState.
func (n *NFA) timesStates(v int, q quantifier, sink, proceedTo int) int {
	if q.greedy && q.from != q.to {
		n.greedyCondition(sink, v)
	}
	last := sink
	for i := q.from; i < q.to; i++ {
		last = n.singleton(v, q, last, proceedTo, true)
	}
	for i := 0; i < q.from-1; i++ {
		last = n.singleton(v, q, last, -1, false)
	}
	return n.singleton(v, q, last, proceedTo, q.optional)
}

// singleton is NFACompiler's createSingletonState without an ignore
// condition (strict contiguity has none).
func (n *NFA) singleton(v int, q quantifier, sink, proceedTo int, optional bool) int {
	s := n.newState(v, normal)
	n.add(s, take, sink, cond{take: v})
	if optional {
		n.add(s, proceed, proceedTo, cond{take: -1})
	}
	return s
}

// greedyCondition is NFACompiler's updateWithGreedyCondition: every
// transition of state s needs the row not to be one more of variable v.
func (n *NFA) greedyCondition(s, v int) {
	for i := range n.states[s].trans {
		t := &n.states[s].trans[i]
		t.cond.notTake = append(t.cond.notTake, v)
	}
}

// emptyMatches is NFACompiler's canProduceEmptyMatches: a final state
// reachable from the start by proceed transitions alone.
func (n *NFA) emptyMatches() bool {
	seen := map[int]bool{}
	stack := []int{n.start}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[s] {
			continue
		}
		seen[s] = true
		for _, t := range n.states[s].trans {
			if t.act != proceed {
				continue
			}
			if n.states[t.to].kind == final {
				return true
			}
			stack = append(stack, t.to)
		}
	}
	return false
}
