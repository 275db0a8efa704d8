package sqlmini_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// FuzzParse checks that Parse never panics, that its errors are *Errors
// positioned inside the input, and that every statement it returns prints
// as SQL that parses back to the same tree and prints the same again.
// ParseExpr and ParseType get the same treatment.
//
//	go test ./sqlmini -run '^$' -fuzz FuzzParse -fuzztime 3m
//
// Crashers land in testdata/fuzz/FuzzParse and are rerun by go test.
func FuzzParse(f *testing.F) {
	for _, tt := range printTests {
		f.Add(tt.in)
	}
	for _, tt := range errorTests {
		f.Add(tt.in)
	}
	f.Add(benchScript)
	f.Add("a + 1 > 2 AND NOT b IS NULL")
	f.Add("CASE WHEN a NOT BETWEEN SYMMETRIC 1 AND 2 THEN b NOT LIKE 'a!%' ESCAPE '!' WHEN c IS NOT UNKNOWN THEN TRY_CAST(d AS INT) END")
	f.Add("SELECT DISTINCT TRIM(LEADING 'x' FROM s) || SUBSTRING(s FROM 1 FOR 2), EXTRACT(DAY FROM t), FLOOR(t TO HOUR), POSITION('a' IN s) FROM t GROUP BY s HAVING COUNT(*) > 1 ORDER BY 1 DESC NULLS LAST LIMIT 3")
	f.Add("INSERT OVERWRITE t SELECT CASE x WHEN 1 THEN 'a' ELSE 'b' END FROM u")
	f.Add("SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW), LAG(v, 1, 0) OVER w FROM t WINDOW w AS (ORDER BY ts ROWS UNBOUNDED PRECEDING)")
	f.Add("ROW<a ARRAY<MAP<STRING, INT NOT NULL>>, b TIMESTAMP(3) WITH LOCAL TIME ZONE>")

	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := sqlmini.Parse("fuzz.sql", src)
		if err != nil {
			checkError(t, "Parse", src, "fuzz.sql", err)
		}
		for _, st := range stmts {
			if st.Pos.Offset < 0 || st.Pos.Offset > len(src) || st.Pos.Line < 1 {
				t.Fatalf("statement at %+v, outside the input", st.Pos)
			}
			roundTrip(t, st, func(s string) (*sqlmini.Statement, error) { return sqlmini.ParseStatement("", s) })
		}

		if e, err := sqlmini.ParseExpr(src); err != nil {
			checkError(t, "ParseExpr", src, "", err)
		} else {
			roundTrip(t, e, sqlmini.ParseExpr)
		}
		if typ, err := sqlmini.ParseType(src); err != nil {
			checkError(t, "ParseType", src, "", err)
		} else {
			roundTrip(t, typ, sqlmini.ParseType)
		}
	})
}

// tree is a parsed node that prints itself.
type tree interface{ String() string }

// roundTrip checks that n prints as SQL that parse reads back to the same
// tree, which prints the same again.
func roundTrip[T tree](t *testing.T, n T, parse func(string) (T, error)) {
	t.Helper()
	s := n.String()
	again, err := parse(s)
	if err != nil {
		t.Fatalf("printed %q, which does not parse: %v", s, err)
	}
	if s2 := again.String(); s2 != s {
		t.Fatalf("printed %q, which prints as %q", s, s2)
	}
	if d := treeDiff(n, again); d != "" {
		t.Fatalf("printed %q, which parses to another tree: %s", s, d)
	}
}

// checkError checks that err is an *Error at a position in src.
func checkError(t *testing.T, fn, src, filename string, err error) {
	t.Helper()
	var perr *sqlmini.Error
	if !errors.As(err, &perr) {
		t.Fatalf("%s: error %T %v is not a *sqlmini.Error", fn, err, err)
	}
	p := perr.Pos
	if p.Filename != filename || p.Offset < 0 || p.Offset > len(src) || p.Line < 1 || p.Column < 1 {
		t.Fatalf("%s: error %q at %+v, outside the input of %d bytes", fn, err, p, len(src))
	}
	if line := 1 + strings.Count(src[:p.Offset], "\n"); p.Line != line {
		t.Fatalf("%s: error %q on line %d, but offset %d is on line %d", fn, err, p.Line, p.Offset, line)
	}
	if strings.Contains(perr.Msg, "\n") {
		t.Fatalf("%s: error message %q has more than one line", fn, perr.Msg)
	}
}
