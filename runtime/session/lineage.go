package session

import (
	"context"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// lineage reports whether the running query shows why its rows came
// (SET 'ptfsh.lineage' = 'on', or EXPLAIN WHY).
func (s *Session) lineage(stmt *statement) bool {
	if stmt.why {
		return true
	}
	on, _ := settings.Get[bool](s.settings, exec.SetLineage)
	return on
}

// explainWhy runs EXPLAIN WHY query: the query with lineage on.
func (s *Session) explainWhy(ctx context.Context, stmt *statement) error {
	st := stmt.Statement
	q := *stmt
	q.Statement, q.why = &sqlmini.Statement{Pos: st.Pos, Query: st.Explain.Query, Text: st.Text}, true
	defer func() { stmt.in, stmt.out = q.in, q.out }()
	return s.execQuery(ctx, &q)
}

// whyNotNotes are the why-not summaries of the statement's calls.
func whyNotNotes(ex *exec.Execution) []string {
	var notes []string
	for _, call := range ex.Ptfs {
		if w := call.WhyNot(); w != "" {
			notes = append(notes, w)
		}
	}
	return notes
}
