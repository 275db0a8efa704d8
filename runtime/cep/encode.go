package cep

import (
	"encoding/binary"
	"errors"
)

// A partition's State goes into the state store between rows: its partial
// and completed matches in their queues' array order (which decides the
// order Flink's iteration gives), and the rows each holds, as one table
// of path nodes so that the tails partial matches share stay shared.

// errBadState is the error of a State that ReadState cannot decode.
var errBadState = errors.New("cep: damaged matcher state")

// AppendState appends the encoding of st to b.
func (st *State) AppendState(b []byte) []byte {
	index := map[*path]int{}
	var nodes []*path
	// add indexes p and the nodes of its tail not indexed yet, the tail
	// first, so that a node's prev has a smaller index.
	add := func(p *path) {
		var chain []*path
		for q := p; q != nil; q = q.prev {
			if _, ok := index[q]; ok {
				break
			}
			chain = append(chain, q)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			index[chain[i]] = len(nodes)
			nodes = append(nodes, chain[i])
		}
	}
	for _, h := range []*heap{&st.partial, &st.completed} {
		for _, p := range h.q {
			add(p.path)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(nodes)))
	for _, n := range nodes {
		prev := 0
		if n.prev != nil {
			prev = index[n.prev] + 1
		}
		b = binary.AppendUvarint(b, uint64(prev))
		b = binary.AppendVarint(b, n.step.Event.ID)
		b = binary.AppendVarint(b, n.step.Event.TS)
		b = binary.AppendVarint(b, int64(n.step.Var))
	}
	for _, h := range []*heap{&st.partial, &st.completed} {
		b = binary.AppendUvarint(b, uint64(len(h.q)))
		for _, p := range h.q {
			ref := 0
			if p.path != nil {
				ref = index[p.path] + 1
			}
			b = binary.AppendUvarint(b, uint64(p.state))
			b = binary.AppendUvarint(b, uint64(ref))
			b = binary.AppendVarint(b, p.start.ID)
			b = binary.AppendVarint(b, p.start.TS)
			b = binary.AppendVarint(b, p.prevTS)
			if p.started {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		}
	}
	return b
}

// ReadState decodes a State of n that AppendState encoded at the start of
// b, and returns it with the rest of b.
func (n *NFA) ReadState(b []byte) (*State, []byte, error) {
	r := reader{b: b}
	count := r.uvarint()
	if r.err != nil || count > uint64(len(b)) {
		return nil, nil, errBadState
	}
	nodes := make([]*path, count)
	for i := range nodes {
		prev := r.uvarint()
		p := &path{n: 1}
		p.step.Event.ID = r.varint()
		p.step.Event.TS = r.varint()
		p.step.Var = int(r.varint())
		if r.err != nil || prev > uint64(i) || p.step.Var < 0 || p.step.Var >= len(n.vars) {
			return nil, nil, errBadState
		}
		if prev > 0 {
			p.prev = nodes[prev-1]
			p.n = p.prev.n + 1
		}
		nodes[i] = p
	}
	st := &State{}
	for _, h := range []*heap{&st.partial, &st.completed} {
		k := r.uvarint()
		if r.err != nil || k > uint64(len(b)) {
			return nil, nil, errBadState
		}
		h.q = make([]*Partial, 0, k)
		for range k {
			p := &Partial{}
			s, ref := r.uvarint(), r.uvarint()
			p.start.ID, p.start.TS, p.prevTS = r.varint(), r.varint(), r.varint()
			started := r.byte()
			if r.err != nil || s >= uint64(len(n.states)) || ref > uint64(len(nodes)) || started > 1 {
				return nil, nil, errBadState
			}
			p.state, p.started = int(s), started == 1
			if ref > 0 {
				p.path = nodes[ref-1]
			}
			// A completed match is in a final state with its rows; a
			// partial match holds rows once it started, and only then.
			final := n.states[p.state].kind == final
			if h == &st.completed && (!final || p.path == nil || !p.started) ||
				h == &st.partial && (final || p.started != (p.path != nil)) {
				return nil, nil, errBadState
			}
			h.q = append(h.q, p) // in array order, as it was
		}
	}
	return st, r.b, nil
}

// reader reads varints from b; err is set at the first that fails.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	v, w := binary.Uvarint(r.b)
	if w <= 0 {
		r.err = errBadState
		return 0
	}
	r.b = r.b[w:]
	return v
}

func (r *reader) varint() int64 {
	v, w := binary.Varint(r.b)
	if w <= 0 {
		r.err = errBadState
		return 0
	}
	r.b = r.b[w:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = errBadState
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}
