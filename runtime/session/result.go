package session

import (
	"context"

	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Result is the result of a query as data: its columns and its rows, in
// the order the query produced them, each with its kind (+I, -U, +U, -D).
// It is the changelog the tableau prints, whatever the session's format.
type Result struct {
	Schema types.Schema
	Rows   []types.Row
}

// Strings returns each row as Flink's Row.toString prints it (+I[Bob, 12]),
// the lines of --format rows.
func (r *Result) Strings() []string {
	out := make([]string, len(r.Rows))
	for i, row := range r.Rows {
		out[i] = types.FormatRow(row, r.Schema)
	}
	return out
}

// Collector is a Sink that keeps a query's rows instead of printing them.
// Each row is copied: the runtime may reuse a row's field slice once the
// sink has returned (the values themselves are immutable, types/value.go).
type Collector struct {
	Result
}

// Begin starts a result: it keeps the schema and forgets earlier rows.
func (c *Collector) Begin(s types.Schema) error {
	c.Schema = s
	c.Rows = nil
	return nil
}

// Row keeps a copy of r.
func (c *Collector) Row(r types.Row) error {
	c.Rows = append(c.Rows, r.Copy())
	return nil
}

// End does nothing: the rows are in c.Result.
func (c *Collector) End() error { return nil }

// Query runs a query statement (SELECT, VALUES, WITH ... SELECT) as
// ExecStatement does, but returns its rows instead of printing them; notes
// and timings still go to Config.Err. Any other statement is an error: run
// it with ExecStatement.
func (s *Session) Query(ctx context.Context, st *sqlmini.Statement) (*Result, error) {
	if st.Query == nil {
		return nil, sqlmini.Errorf(st.Pos, "not a query: Session.Query runs SELECT, VALUES and WITH statements")
	}
	n, err := plan.New(s.cat, s.sourceEnv()).Printed(st.Query)
	if err != nil {
		return nil, err
	}
	var c Collector
	if err := s.run(ctx, &statement{Statement: st}, st.Pos, n, &c, nil); err != nil {
		return nil, err
	}
	return &c.Result, nil
}
