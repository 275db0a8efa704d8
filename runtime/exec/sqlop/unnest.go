package sqlop

import (
	"fmt"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// UnnestNode is a FROM clause's JOIN UNNEST(collection): each row of In
// followed, once per element of the collection its Expr gives, by the
// element's columns, as Flink's Correlate over UNNEST. An ARRAY gives one
// column per element (a ROW element its fields), a MAP its key and value,
// a MULTISET each element as often as it counts. Left (LEFT JOIN ... ON
// TRUE) keeps a row whose collection is empty or NULL, with NULL
// elements; otherwise such a row gives nothing. Rows keep their kind: an
// update or a retraction of a row is one of each of its elements' rows.
type UnnestNode struct {
	In   exec.Node
	Expr expr.Expr
	Left bool
	// Width is the number of the element's columns; RowElems says the
	// elements are ROWs, whose fields are the columns; Map says the
	// collection is a MAP (a key and a value), Multiset a MULTISET.
	Width    int
	RowElems bool
	Map      bool
	Multiset bool
	Sch      types.Schema
	Text     string
}

var _ exec.Node = (*UnnestNode)(nil)

func (n *UnnestNode) Schema() types.Schema           { return n.Sch }
func (n *UnnestNode) Changelog() types.ChangelogMode { return n.In.Changelog() }
func (n *UnnestNode) Children() []exec.Node          { return []exec.Node{n.In} }
func (n *UnnestNode) Explain() string                { return n.Text }

func (n *UnnestNode) Open(ex *exec.Execution) (exec.Stream, error) {
	in, err := n.In.Open(ex)
	if err != nil {
		return nil, err
	}
	return &unnestStream{n: n, in: in}, nil
}

type unnestStream struct {
	n       *UnnestNode
	in      exec.Stream
	pending []exec.Event
}

func (s *unnestStream) Next() (exec.Event, error) {
	for len(s.pending) == 0 {
		ev, err := s.in.Next()
		if err != nil || ev.Kind != exec.EvRow {
			return ev, err
		}
		v, err := s.n.Expr.Eval(ev.Row.Fields)
		if err != nil {
			return ev, err
		}
		elems, err := s.n.elements(v)
		if err != nil {
			return ev, err
		}
		if len(elems) == 0 && s.n.Left {
			elems = [][]any{make([]any, s.n.Width)}
		}
		for _, e := range elems {
			out := ev
			fields := make([]any, 0, len(ev.Row.Fields)+len(e))
			out.Row = types.Row{Kind: ev.Row.Kind, Fields: append(append(fields, ev.Row.Fields...), e...)}
			s.pending = append(s.pending, out)
		}
	}
	ev := s.pending[0]
	s.pending = s.pending[1:]
	return ev, nil
}

func (s *unnestStream) Close() error { return s.in.Close() }

// elements are the rows of n.Width columns a collection value gives.
func (n *UnnestNode) elements(v any) ([][]any, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([][]any, len(c))
		for i, e := range c {
			out[i] = n.columns(e)
		}
		return out, nil
	case *types.Map:
		var out [][]any
		if n.Map {
			for i := range c.Keys {
				out = append(out, []any{c.Keys[i], c.Values[i]})
			}
			return out, nil
		}
		for i, k := range c.Keys { // a MULTISET: each as often as it counts
			m, _ := c.Values[i].(int64)
			for range m {
				out = append(out, n.columns(k))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("UNNEST takes an ARRAY, a MAP or a MULTISET, not %T", v)
}

// columns is an element as columns: a ROW's fields (NULL fields for a
// NULL row) or the element itself.
func (n *UnnestNode) columns(e any) []any {
	if !n.RowElems {
		return []any{e}
	}
	if r, ok := e.(types.Row); ok {
		return append([]any(nil), r.Fields...)
	}
	return make([]any, n.Width)
}
