package sqlmini_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// TestWalk: every node is visited once, parents first in the order of the
// fields, and visit returning false skips a node's children only.
func TestWalk(t *testing.T) {
	st, err := sqlmini.Parse("q.sql", "SELECT a, f(b + 1) FROM t WHERE g(c) > 2 GROUP BY a")
	if err != nil {
		t.Fatal(err)
	}
	var calls, cols []string
	sqlmini.Walk(st, func(n any) bool {
		switch x := n.(type) {
		case *sqlmini.FuncCall:
			calls = append(calls, string(x.Name.Value))
		case *sqlmini.ColumnRef:
			cols = append(cols, string(x.Parts[len(x.Parts)-1].Value))
		}
		return true
	})
	if got := fmt.Sprint(calls, cols); got != "[f g] [a b c a]" {
		t.Errorf("calls and columns in order = %s, want [f g] [a b c a]", got)
	}
	// Pruned at the calls: the columns inside them are not visited.
	cols = nil
	sqlmini.Walk(st, func(n any) bool {
		if c, ok := n.(*sqlmini.ColumnRef); ok {
			cols = append(cols, string(c.Parts[0].Value))
		}
		_, isCall := n.(*sqlmini.FuncCall)
		return !isCall
	})
	if got := strings.Join(cols, " "); got != "a a" {
		t.Errorf("columns outside calls = %s, want a a", got)
	}
	// Parents first: the statement, then its query.
	var first []string
	sqlmini.Walk(st, func(n any) bool {
		if len(first) < 2 {
			first = append(first, fmt.Sprintf("%T", n))
		}
		return true
	})
	if got := strings.Join(first, " "); got != "*sqlmini.Statement *sqlmini.Query" {
		t.Errorf("first nodes = %s", got)
	}
	// Nothing to walk: no call.
	sqlmini.Walk(nil, func(any) bool { t.Error("visit called for nil"); return true })
	var nilExpr *sqlmini.Expr
	sqlmini.Walk(nilExpr, func(any) bool { t.Error("visit called for a nil node"); return true })
}
