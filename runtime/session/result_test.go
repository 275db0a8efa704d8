package session_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// runningSum is a Go ChangelogFunction with row semantics: it emits the
// sum of the scores so far, +I for the first row and -U(old), +U(new)
// after. It reuses one field slice for every row it collects (the
// operator copies what it is given today; TestCollector checks that the
// Collector does not rely on it).
type runningSum struct {
	sum    int64
	fields []any
}

func (p *runningSum) Eval(ctx *ptf.Context, row types.Row) error {
	score := row.Fields[1].(int64)
	if p.fields == nil {
		p.fields = make([]any, 1)
		p.sum = score
		p.fields[0] = p.sum
		return ctx.Collect(types.Row{Kind: types.Insert, Fields: p.fields})
	}
	p.fields[0] = p.sum
	if err := ctx.Collect(types.Row{Kind: types.UpdateBefore, Fields: p.fields}); err != nil {
		return err
	}
	p.sum += score
	p.fields[0] = p.sum
	return ctx.Collect(types.Row{Kind: types.UpdateAfter, Fields: p.fields})
}

func (p *runningSum) OnTimer(*ptf.Context) error { return nil }

var runningSumDef = &ptf.FuncDef{
	Name:     "RunningSum",
	Language: "GO",
	Args:     []ptf.ArgDecl{{Name: "input", Traits: ptf.RowSemanticTable}},
	Output:   types.Type{Kind: types.KindRow, Fields: []types.Field{{Name: "total", Type: types.Type{Kind: types.KindBigInt}}}},
	New:      func(ptf.CallSpec) (ptf.PTF, error) { return &runningSum{}, nil },
	ChangelogMode: func([]types.ChangelogMode, types.ChangelogMode) (types.ChangelogMode, error) {
		return types.RetractAll, nil
	},
}

// TestSession_Query runs queries through Session.Query and checks the
// result as data: column names and types, and each row's kind and values.
func TestSession_Query(t *testing.T) {
	row := func(k types.RowKind, fields ...any) types.Row { return types.Row{Kind: k, Fields: fields} }
	tests := []struct {
		name, setup, query string
		columns            []string // name and type of each column
		want               []types.Row
		strings            []string // Result.Strings
	}{
		{"VALUES",
			"", "SELECT * FROM (VALUES ('Bob', 12), ('Alice', 42)) AS T(name, score)",
			[]string{"name VARCHAR(5) NOT NULL", "score INT NOT NULL"},
			[]types.Row{row(types.Insert, "Bob", int64(12)), row(types.Insert, "Alice", int64(42))},
			[]string{"+I[Bob, 12]", "+I[Alice, 42]"}},
		{"a PTF that updates its rows",
			scoresView, "SELECT * FROM RunningSum(TABLE t)",
			[]string{"total BIGINT"},
			[]types.Row{row(types.Insert, int64(12)), row(types.UpdateBefore, int64(12)), row(types.UpdateAfter, int64(54)),
				row(types.UpdateBefore, int64(54)), row(types.UpdateAfter, int64(68))},
			[]string{"+I[12]", "-U[12]", "+U[54]", "-U[54]", "+U[68]"}},
		{"GROUP BY",
			scoresView, "SELECT name, COUNT(*), SUM(score) FROM t GROUP BY name",
			[]string{"name VARCHAR(5) NOT NULL", "EXPR$1 BIGINT NOT NULL", "EXPR$2 INT NOT NULL"},
			[]types.Row{row(types.Insert, "Bob", int64(1), int64(12)), row(types.Insert, "Alice", int64(1), int64(42)),
				row(types.UpdateBefore, "Bob", int64(1), int64(12)), row(types.UpdateAfter, "Bob", int64(2), int64(26))},
			[]string{"+I[Bob, 1, 12]", "+I[Alice, 1, 42]", "-U[Bob, 1, 12]", "+U[Bob, 2, 26]"}},
		{"empty",
			scoresView, "SELECT name FROM t WHERE score > 100",
			[]string{"name VARCHAR(5) NOT NULL"}, nil, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			s, err := session.NewSession(session.Config{Out: &out, Format: "rows"})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.Catalog().RegisterBuiltIn(runningSumDef)
			ctx := context.Background()
			if err := s.Exec(ctx, "", tt.setup); err != nil {
				t.Fatal(err)
			}
			st, err := sqlmini.ParseStatement("", tt.query)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Query(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			var columns []string
			for _, c := range res.Schema.Columns {
				columns = append(columns, c.Name+" "+c.Type.String())
			}
			if d := cmp.Diff(tt.columns, columns); d != "" {
				t.Errorf("columns (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.want, res.Rows); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.strings, res.Strings()); d != "" {
				t.Errorf("Strings() (-want +got):\n%s", d)
			}
			if out.Len() > 0 {
				t.Errorf("Query printed %q; it should only return the rows", out.String())
			}
		})
	}
}

// TestSession_Query_notAQuery: statements other than queries go through
// ExecStatement.
func TestSession_Query_notAQuery(t *testing.T) {
	s, err := session.NewSession(session.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlmini.ParseStatement("", "CREATE VIEW v AS VALUES (1)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Query(context.Background(), st); err == nil {
		t.Errorf("Query ran a CREATE VIEW")
	}
	if _, ok := s.Catalog().Table("v"); ok {
		t.Errorf("Query created the view")
	}
}

// TestCollector is the sink Query uses: rows are copies, and Begin starts
// afresh.
func TestCollector(t *testing.T) {
	var c session.Collector
	sch := types.Schema{Columns: []types.Column{{Name: "n", Type: types.Type{Kind: types.KindInt}}}}
	fields := []any{int64(1)}
	c.Begin(sch)
	c.Row(types.Row{Kind: types.Insert, Fields: fields})
	fields[0] = int64(2)
	c.Row(types.Row{Kind: types.Delete, Fields: fields})
	c.End()
	if d := cmp.Diff([]string{"+I[1]", "-D[2]"}, c.Strings()); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	c.Begin(sch)
	if len(c.Rows) != 0 {
		t.Errorf("Begin kept %d rows", len(c.Rows))
	}
}
