package exec

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// countStream counts the events of its input and hands on every every-th
// row (an aggregation that reads much before it says anything), then the
// end; failAt, when > 0, is an error at that row.
type countStream struct {
	in     Stream
	every  int
	n      int
	failAt int
	peak   *int // the most events the shared read kept
	sh     *sharedScan
}

func (s *countStream) Next() (Event, error) {
	for {
		ev, err := s.in.Next()
		if err != nil || ev.Kind != EvRow {
			return ev, err
		}
		if s.sh != nil && len(s.sh.evs) > *s.peak {
			*s.peak = len(s.sh.evs)
		}
		s.n++
		if s.n == s.failAt {
			return Event{}, errors.New("boom")
		}
		if s.n%s.every == 0 {
			return ev, nil
		}
	}
}

func (s *countStream) Close() error { return s.in.Close() }

func shareRows(n int) []Event {
	evs := make([]Event, n)
	for i := range evs {
		evs[i] = Event{Kind: EvRow, Row: types.Row{Kind: types.Insert, Fields: []any{int64(i)}}}
	}
	return evs
}

// TestCoop_sharedScan: two queries read one table once; each gets every
// row in order, whatever the other makes of them, and what the read keeps
// for the query behind stays about scanShareQueue events. A query's
// second read of the table is a read of its own.
func TestCoop_sharedScan(t *testing.T) {
	for _, crossed := range []bool{false, true} {
		t.Run(fmt.Sprint("crossed=", crossed), func(t *testing.T) { testSharedScan(t, crossed) })
	}
}

// testSharedScan runs two queries over a shared read; crossed: each
// query reads through the consumer the other opened, as queries that
// share a PTF call (a TeeNode) read its input.
func testSharedScan(t *testing.T, crossed bool) {
	const n = 10_000
	sch := types.Schema{Columns: []types.Column{{Name: "i", Type: types.TypeBigInt}}}
	ex := NewExecution(context.Background(), state.NewMem(), DefaultOptions())
	coop := NewCoop()
	ex.ShareScans(coop)
	opens := 0
	open := func() (Stream, error) {
		opens++
		return (&ValuesNode{Sch: sch, Events: shareRows(n)}).Open(ex)
	}
	peak := 0
	var ins []Stream
	for q, every := range []int{1000, 1} {
		ex.ScanQuery(q)
		st, err := ex.Scan("t", "t", open)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, &countStream{in: st, every: every, peak: &peak, sh: ex.scans["t"]})
	}
	if crossed {
		a, b := ins[0].(*countStream), ins[1].(*countStream)
		a.in, b.in = b.in, a.in
	}
	own, err := ex.Scan("t", "t", open) // query 1 again
	if err != nil {
		t.Fatal(err)
	}
	if _, shared := own.(*scanConsumer); shared || opens != 2 {
		t.Errorf("a query's second read: %T, %d opens, want its own read, 2 opens", own, opens)
	}
	own.Close()
	if !ex.SharedScans() || ex.Uncheckpointable == "" {
		t.Fatalf("SharedScans() = %v, Uncheckpointable %q", ex.SharedScans(), ex.Uncheckpointable)
	}
	coop.Start(ins)
	got := [2][]string{}
	for {
		q, ev, err := coop.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == EvEnd {
			break
		}
		got[q] = append(got[q], fmt.Sprint(ev.Row.Fields[0]))
	}
	coop.Close()
	if err := CloseAll(ins); err != nil {
		t.Fatal(err)
	}
	var want [2][]string
	for i := range n {
		if (i+1)%1000 == 0 {
			want[0] = append(want[0], fmt.Sprint(i))
		}
		want[1] = append(want[1], fmt.Sprint(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if peak < scanShareQueue/2 || peak > 2*scanShareQueue {
		t.Errorf("the read kept up to %d events, want about %d", peak, scanShareQueue)
	}
}

// TestCoop_error: a query's error comes out of Next after its events, and
// Close ends the goroutine of the other query, which waits for its turn
// inside the shared read.
func TestCoop_error(t *testing.T) {
	sch := types.Schema{Columns: []types.Column{{Name: "i", Type: types.TypeBigInt}}}
	ex := NewExecution(context.Background(), state.NewMem(), DefaultOptions())
	coop := NewCoop()
	ex.ShareScans(coop)
	var ins []Stream
	for q, s := range []*countStream{{every: 1 << 30}, {every: 1, failAt: 3 * scanShareQueue}} {
		ex.ScanQuery(q)
		st, err := ex.Scan("t", "t", func() (Stream, error) {
			return (&ValuesNode{Sch: sch, Events: shareRows(10 * scanShareQueue)}).Open(ex)
		})
		if err != nil {
			t.Fatal(err)
		}
		s.in = st
		ins = append(ins, s)
	}
	coop.Start(ins)
	rows := 0
	var err error
	for {
		var ev Event
		if _, ev, err = coop.Next(); err != nil || ev.Kind == EvEnd {
			break
		}
		rows++
	}
	if err == nil || err.Error() != "boom" || rows != 3*scanShareQueue-1 {
		t.Errorf("got %v after %d rows, want boom after %d", err, rows, 3*scanShareQueue-1)
	}
	coop.Close() // returns: query 0 waits in the read
	CloseAll(ins)
}
