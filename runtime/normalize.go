package runtime

import (
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// normalizeNode brings an updating input into the form a table argument
// asks for, as Flink's planner does (ChangelogNormalize and friends):
//
//   - retract form: every update is -U(old) then +U(new). An upsert input
//     (no -U) gets its -U from the last row seen for the key.
//   - upsert form: -U rows are dropped (the consumer is keyed by the
//     upsert key, so +U alone replaces the row).
//   - full deletes: a delete that carries only the key gets the last row
//     seen for the key.
//
// It keeps the last row per upsert key in memory.
type normalizeNode struct {
	in          node
	key         []int
	retract     bool // deliver -U before +U
	fullDeletes bool // fill key-only deletes
	mode        types.ChangelogMode
	// id names the state of this input: the consuming call's uid and
	// table argument (empty: the state lives for one statement only).
	id string
}

func (n *normalizeNode) schema() types.Schema           { return n.in.schema() }
func (n *normalizeNode) changelog() types.ChangelogMode { return n.mode }
func (n *normalizeNode) children() []node               { return []node{n.in} }
func (n *normalizeNode) upsertKey() []int               { return n.key }
func (n *normalizeNode) explain() string {
	if !n.retract && !n.fullDeletes {
		return "DropUpdateBefore(key=[" + joinStrings(columnNames(n.in.schema(), n.key)) + "])"
	}
	return "ChangelogNormalize(key=[" + joinStrings(columnNames(n.in.schema(), n.key)) + "])"
}

func columnNames(s types.Schema, cols []int) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = s.Columns[c].Name
	}
	return names
}

func (n *normalizeNode) open(ex *execution) (stream, error) {
	in, err := n.in.open(ex)
	if err != nil {
		return nil, err
	}
	ns := &normalizeStream{n: n, in: in, last: map[string]types.Row{}, before: map[string]bool{}, dirty: map[string]bool{}}
	if err := ns.load(ex.store); err != nil {
		in.close()
		return nil, err
	}
	ex.normalizers = append(ex.normalizers, ns)
	return ns, nil
}

type normalizeStream struct {
	n       *normalizeNode
	in      stream
	last    map[string]types.Row
	before  map[string]bool // keys whose -U came from the input itself
	dirty   map[string]bool // keys changed since the last checkpoint
	pending []event
}

func (s *normalizeStream) next() (event, error) {
	for {
		if len(s.pending) > 0 {
			ev := s.pending[0]
			s.pending = s.pending[1:]
			return ev, nil
		}
		ev, err := s.in.next()
		if err != nil || ev.kind != evRow {
			return ev, err
		}
		if err := s.row(ev.row); err != nil {
			return event{}, err
		}
	}
}

func (s *normalizeStream) row(r types.Row) error {
	n := s.n
	if !n.retract && !n.fullDeletes {
		// The upsert form needs no memory: -U rows are simply dropped.
		if r.Kind != types.UpdateBefore {
			s.emit(r)
		}
		return nil
	}
	if len(n.key) == 0 {
		// Without a key nothing can be looked up: pass the row on, dropping
		// -U only for an upsert consumer.
		if r.Kind == types.UpdateBefore && !n.retract {
			return nil
		}
		s.emit(r)
		return nil
	}
	k := string(keycodec.Encode(keycodec.Pick(r, n.key)))
	prev, had := s.last[k]
	if r.Kind != types.UpdateBefore {
		s.dirty[k] = true
	}
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		s.last[k] = r
		if n.retract && r.Kind == types.UpdateAfter && had && !s.sawBefore(k) {
			s.emit(types.Row{Kind: types.UpdateBefore, Fields: prev.Fields})
		}
		if r.Kind == types.UpdateAfter && !had && n.retract {
			r = types.Row{Kind: types.Insert, Fields: r.Fields} // an update of an unknown key inserts it
		}
		s.emit(r)
	case types.UpdateBefore:
		if !n.retract {
			return nil
		}
		s.markBefore(k)
		s.emit(r)
	case types.Delete:
		delete(s.last, k)
		if n.fullDeletes {
			if !had {
				return fmt.Errorf("a delete for key (%s) that was never inserted: cannot fill its columns", formatFields(keycodec.Pick(r, n.key)))
			}
			r = types.Row{Kind: types.Delete, Fields: prev.Fields}
		}
		s.emit(r)
	}
	return nil
}

// sawBefore/markBefore track an input that already sends -U itself, so
// that no second -U is made up for its +U.
func (s *normalizeStream) sawBefore(k string) bool {
	ok := s.before[k]
	delete(s.before, k)
	return ok
}

func (s *normalizeStream) markBefore(k string) { s.before[k] = true }

func (s *normalizeStream) emit(r types.Row) {
	s.pending = append(s.pending, event{kind: evRow, row: r})
}

func (s *normalizeStream) close() error { return s.in.close() }

// The last row per key is state: it goes into checkpoints under the
// consuming call's uid and comes back on the next statement with that uid
// (Flink keeps ChangelogNormalize's state in savepoints).

func normalizeNamespace(id string) string { return "normalize/" + id }

// load reads the rows a previous statement left.
func (s *normalizeStream) load(store state.Store) error {
	if s.n.id == "" {
		return nil
	}
	return store.View(func(tx state.Tx) error {
		return tx.Scan(normalizeNamespace(s.n.id), nil, func(k, v []byte) error {
			f, rest, err := readValue(v)
			if err != nil || len(rest) != 0 {
				return fmt.Errorf("corrupt normalisation state of %s", s.n.id)
			}
			fields, _ := f.([]any)
			s.last[string(k)] = types.Row{Kind: types.Insert, Fields: fields}
			return nil
		})
	})
}

// checkpoint writes the keys changed since the last checkpoint; a finished
// statement leaves nothing (the next one starts afresh).
func (s *normalizeStream) checkpoint(tx state.Tx, finished bool) error {
	if s.n.id == "" {
		return nil
	}
	ns := normalizeNamespace(s.n.id)
	if finished {
		s.dirty = map[string]bool{}
		return tx.DeleteNamespace(ns)
	}
	for k := range s.dirty {
		r, ok := s.last[k]
		if !ok {
			if err := tx.Delete(ns, []byte(k)); err != nil {
				return err
			}
			continue
		}
		b, err := appendValue(nil, r.Fields)
		if err != nil {
			return err
		}
		if err := tx.Put(ns, []byte(k), b); err != nil {
			return err
		}
	}
	s.dirty = map[string]bool{}
	return nil
}
