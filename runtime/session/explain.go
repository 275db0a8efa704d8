package session

import (
	"io"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// execExplain prints the plan of a query, or of each INSERT of an INSERT or
// a statement set under its Sink, as Flink's EXPLAIN does in its
// "Optimized Execution Plan" section. Flink's explain details
// (CHANGELOG_MODE, ...) change nothing: each node always shows its
// changelog mode.
func (s *Session) execExplain(e *sqlmini.Explain) error {
	p := plan.New(s.cat, s.sourceEnv())
	var roots []exec.Node
	switch {
	case e.Query != nil:
		n, err := p.Printed(e.Query)
		if err != nil {
			return err
		}
		roots = append(roots, n)
	default:
		inserts := []*sqlmini.Insert{e.Insert}
		if e.StatementSet != nil {
			inserts = e.StatementSet.Inserts
		}
		for _, ins := range inserts {
			n, err := s.explainInsert(p, ins)
			if err != nil {
				return err
			}
			roots = append(roots, n)
		}
	}
	var b strings.Builder
	b.WriteString("== Optimized Execution Plan ==\n")
	var walk func(n exec.Node, depth int)
	walk = func(n exec.Node, depth int) {
		if depth > 0 {
			b.WriteString(strings.Repeat("   ", depth-1) + "+- ")
		}
		// Each node with its changelog mode, in Flink's plan notation.
		line := n.Explain()
		line = strings.TrimSuffix(line, ")") + ", changelogMode=[" + n.Changelog().ShortString() + "])"
		b.WriteString(line + "\n")
		for _, c := range n.Children() {
			walk(c, depth+1)
		}
	}
	for i, n := range roots {
		if i > 0 {
			b.WriteString("\n")
		}
		walk(n, 0)
	}
	_, err := io.WriteString(s.cfg.Out, b.String())
	return err
}

// explainInsert plans an INSERT for EXPLAIN: the query as the INSERT runs
// it, under a node that names the table. Nothing is opened or written.
func (s *Session) explainInsert(p *plan.Planner, ins *sqlmini.Insert) (exec.Node, error) {
	var n exec.Node
	if isKafka(s.cat, ins) {
		// The Kafka sink connects to its broker when made: EXPLAIN plans
		// the query alone.
		q, err := p.Statement(ins.Query)
		if err != nil {
			return nil, err
		}
		n = q
	} else {
		q, sk, err := s.planInsert(p, ins)
		if err != nil {
			return nil, err
		}
		sk.Close()
		n = q
	}
	return &explainSink{in: n, table: string(ins.Table.Value)}, nil
}

// explainSink is the Sink node of an INSERT's plan, for EXPLAIN only.
type explainSink struct {
	exec.Node
	in    exec.Node
	table string
}

func (n *explainSink) Children() []exec.Node          { return []exec.Node{n.in} }
func (n *explainSink) Changelog() types.ChangelogMode { return n.in.Changelog() }
func (n *explainSink) Explain() string {
	return "Sink(table=[" + n.table + "], fields=[" + strings.Join(n.in.Schema().Names(), ", ") + "])"
}
