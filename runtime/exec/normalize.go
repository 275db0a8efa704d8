package exec

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// NormalizeNode brings an updating input into the form a table argument
// asks for, as Flink's planner does (ChangelogNormalize and friends):
//
//   - retract form: every update is -U(old) then +U(new). An upsert input
//     (no -U) gets its -U from the last row seen for the key.
//   - upsert form: -U rows are dropped (the consumer is keyed by the
//     upsert key, so +U alone replaces the row).
//   - full deletes: a delete that carries only the key gets the last row
//     seen for the key.
//
// It keeps the last row per upsert key in the state store behind a bounded
// cache (runtime/exec/opstate), in every checkpoint.
type NormalizeNode struct {
	In          Node
	Key         []int
	Retract     bool // deliver -U before +U
	FullDeletes bool // fill key-only deletes
	Mode        types.ChangelogMode
	// ID names the state of this input: the consuming call's uid and
	// table argument (empty: the state lives for one statement only).
	ID string
}

var _ Node = (*NormalizeNode)(nil)

var (
	_ Node        = (*NormalizeNode)(nil)
	_ UpsertKeyed = (*NormalizeNode)(nil)
)

func (n *NormalizeNode) Schema() types.Schema           { return n.In.Schema() }
func (n *NormalizeNode) Changelog() types.ChangelogMode { return n.Mode }
func (n *NormalizeNode) Children() []Node               { return []Node{n.In} }
func (n *NormalizeNode) UpsertKey() []int               { return n.Key }
func (n *NormalizeNode) Explain() string {
	if !n.Retract && !n.FullDeletes {
		return "DropUpdateBefore(key=[" + strings.Join(columnNames(n.In.Schema(), n.Key), ", ") + "])"
	}
	return "ChangelogNormalize(key=[" + strings.Join(columnNames(n.In.Schema(), n.Key), ", ") + "])"
}

func columnNames(s types.Schema, cols []int) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = s.Columns[c].Name
	}
	return names
}

func (n *NormalizeNode) Open(ex *Execution) (Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	ns := &normalizeStream{n: n, ex: ex, in: in, before: map[string]bool{}, note: -1,
		upsertIn: !n.In.Changelog().Contains(types.UpdateBefore)}
	// The rows of a call's table argument live under the call's uid, from
	// one statement to the next; the others under the statement's.
	space := ex.OperatorNamespace("normalize")
	if n.ID != "" {
		space = normalizeNamespace(n.ID)
	}
	if ns.last, err = opstate.Open(ex.Store, space, rowCodec{}, opstate.Options{CacheEntries: ex.Opts.CacheSize}); err != nil {
		in.Close()
		return nil, err
	}
	ex.Normalizers = append(ex.Normalizers, ns)
	return ns, nil
}

type normalizeStream struct {
	n  *NormalizeNode
	ex *Execution
	in Stream
	// dropped counts deletes of keys never inserted, which are dropped as
	// Flink's ChangelogNormalize drops them; note is the index of the
	// statement's note that says so (-1: none yet).
	dropped      int64
	note         int
	firstDropped string
	last         *opstate.Table[[]any] // the last row of each key
	before       map[string]bool       // keys whose -U came from the input itself
	// upsertIn: the input sends no -U (an upsert source such as
	// upsert-kafka, whose values are +I), so an insert of a key already
	// seen updates it.
	upsertIn bool
	out      Queue
}

// rowCodec encodes a row's fields as one value (AppendValue).
type rowCodec struct{}

func (rowCodec) Append(b []byte, fields []any) ([]byte, error) { return AppendValue(b, fields) }
func (rowCodec) Decode(b []byte) ([]any, error) {
	v, rest, err := ReadValue(b)
	fields, ok := v.([]any)
	if err == nil && (!ok || len(rest) != 0) {
		err = fmt.Errorf("a damaged row")
	}
	return fields, err
}

var _ Stream = (*normalizeStream)(nil)

func (s *normalizeStream) Next() (Event, error) { return s.out.Next(s.in, s) }

// Row brings one input row into the form asked for.
func (s *normalizeStream) Row(r types.Row) error {
	n := s.n
	if !n.Retract && !n.FullDeletes {
		// The upsert form needs no memory: -U rows are simply dropped.
		if r.Kind != types.UpdateBefore {
			s.emit(r)
		}
		return nil
	}
	if len(n.Key) == 0 {
		// Without a key nothing can be looked up: pass the row on, dropping
		// -U only for an upsert consumer.
		if r.Kind == types.UpdateBefore && !n.Retract {
			return nil
		}
		s.emit(r)
		return nil
	}
	k := string(keycodec.Encode(keycodec.Pick(r, n.Key)))
	prevFields, had, err := s.last.Get([]byte(k))
	if err != nil {
		return err
	}
	prev := types.Row{Fields: prevFields}
	switch r.Kind {
	case types.Insert, types.UpdateAfter:
		if had && !s.before[k] && s.ex.Opts.StateTTL == 0 && bytes.Equal(keycodec.Encode(prev.Fields), keycodec.Encode(r.Fields)) {
			// The same row again: no change to report, as Flink's
			// ChangelogNormalize swallows it while state TTL is off.
			return nil
		}
		if err := s.last.Put([]byte(k), r.Fields); err != nil {
			return err
		}
		if r.Kind == types.Insert && had && s.upsertIn {
			// Flink's ChangelogNormalize takes INSERT and UPDATE_AFTER
			// alike (processLastRowOnChangelog): a row for a key it holds
			// updates that key.
			r = types.Row{Kind: types.UpdateAfter, Fields: r.Fields}
		}
		if n.Retract && r.Kind == types.UpdateAfter && had && !s.sawBefore(k) {
			s.emit(types.Row{Kind: types.UpdateBefore, Fields: prev.Fields})
		}
		if r.Kind == types.UpdateAfter && !had && n.Retract {
			r = types.Row{Kind: types.Insert, Fields: r.Fields} // an update of an unknown key inserts it
		}
		s.emit(r)
	case types.UpdateBefore:
		if !n.Retract {
			return nil
		}
		s.markBefore(k)
		s.emit(r)
	case types.Delete:
		if err := s.last.Delete([]byte(k)); err != nil {
			return err
		}
		if n.FullDeletes {
			if !had {
				// Nothing to delete: Flink's ChangelogNormalize drops it.
				s.dropped++
				if s.note < 0 {
					s.note, s.firstDropped = len(s.ex.Notes), FormatKey(keycodec.Pick(r, n.Key))
					s.ex.Notes = append(s.ex.Notes, "")
				}
				s.ex.Notes[s.note] = fmt.Sprintf("note: %s for keys never inserted (the first: (%s)) dropped, as Flink's ChangelogNormalize drops them", Plural(s.dropped, "delete"), s.firstDropped)
				return nil
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
	s.out.PushRow(r.Kind, r.Fields)
}

func (s *normalizeStream) Close() error { return s.in.Close() }

// The last row per key is state: it goes into checkpoints, under the
// consuming call's uid (and comes back on the next statement with that
// uid: Flink keeps ChangelogNormalize's state in savepoints) or under the
// statement's.

// Checkpoint writes the keys changed since the last checkpoint; a finished
// statement leaves nothing (the next one starts afresh).
func (s *normalizeStream) Checkpoint(tx state.Tx, finished bool) error {
	if finished {
		return s.last.Drop(tx)
	}
	return s.last.Flush(tx)
}
