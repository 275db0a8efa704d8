package plan

import (
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

func TestRankPattern(t *testing.T) {
	const inner = "(SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t)"
	tests := []struct {
		name, query     string
		found           bool
		start, end      int64
		number, errored bool
		where           string // the WHERE left for the result
	}{
		{"le", "SELECT * FROM " + inner + " WHERE rn <= 3", true, 1, 3, true, false, ""},
		{"lt", "SELECT k FROM " + inner + " WHERE rn < 3", true, 1, 2, false, false, ""},
		{"eq reversed", "SELECT k, rn FROM " + inner + " WHERE 1 = rn", true, 1, 1, true, false, ""},
		{"ge reversed", "SELECT k FROM " + inner + " WHERE 2 >= rn", true, 1, 2, false, false, ""},
		{"between", "SELECT v FROM " + inner + " WHERE rn BETWEEN 2 AND 3", true, 2, 3, false, false, ""},
		{"and other", "SELECT v FROM " + inner + " WHERE v > 1 AND rn <= 2 AND k = 'a'", true, 1, 2, false, false, "v > 1 AND k = 'a'"},
		{"rank in where only", "SELECT k FROM " + inner + " WHERE rn <= 2 AND rn > 0", true, 1, 2, true, false, "rn > 0"},
		{"no end", "SELECT k FROM " + inner + " WHERE rn > 2", true, 3, 0, false, true, ""},
		{"or", "SELECT k FROM " + inner + " WHERE rn <= 2 OR v > 1", false, 0, 0, false, false, ""},
		{"not a number", "SELECT k FROM " + inner + " WHERE rn <= v", false, 0, 0, false, false, ""},
		{"zero", "SELECT k FROM " + inner + " WHERE rn < 1", false, 0, 0, false, false, ""},
		{"no row number", "SELECT k FROM (SELECT k, v AS rn FROM t) WHERE rn <= 2", false, 0, 0, false, false, ""},
		{"no where", "SELECT k FROM " + inner, false, 0, 0, false, false, ""},
		{"rank, refused later", "SELECT k FROM (SELECT k, RANK() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) WHERE rn <= 2", true, 1, 2, false, false, ""},
		{"other function", "SELECT k FROM (SELECT k, COUNT(*) OVER (PARTITION BY k ORDER BY v) AS rn FROM t) WHERE rn <= 2", false, 0, 0, false, false, ""},
		{"unnamed", "SELECT * FROM (SELECT k, ROW_NUMBER() OVER (ORDER BY k) FROM t) WHERE EXPR$1 = 1", true, 1, 1, true, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := sqlmini.Parse("q.sql", tt.query)
			if err != nil {
				t.Fatal(err)
			}
			sel := st[0].Query.Body.Select
			r, rest, ok := rankPattern(sel)
			if ok != tt.found {
				t.Fatalf("rankPattern found = %v, want %v", ok, tt.found)
			}
			if !ok {
				return
			}
			if r.start != tt.start || r.end != tt.end || r.number != tt.number || (r.err != nil) != tt.errored {
				t.Errorf("rank = [%d, %d] number %v err %v, want [%d, %d] number %v err %v", r.start, r.end, r.number, r.err, tt.start, tt.end, tt.number, tt.errored)
			}
			where := ""
			if rest.Where != nil {
				where = rest.Where.String()
			}
			if where != tt.where {
				t.Errorf("WHERE left = %q, want %q", where, tt.where)
			}
			if sel.Where == nil {
				t.Errorf("rankPattern changed the parsed query")
			}
		})
	}
}
