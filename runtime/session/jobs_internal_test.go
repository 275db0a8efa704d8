package session

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// TestShowJobs: SHOW JOBS lists the queries and INSERTs that ran, with
// their status and counts; other statements are no jobs.
func TestShowJobs(t *testing.T) {
	var out bytes.Buffer
	s, err := NewSession(Config{Out: &out, Err: &out, Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, stmt := range []string{
		"CREATE VIEW v(x) AS VALUES (1), (2), (3)",
		"SELECT * FROM v WHERE x > 1",
		"SELECT x / 0 FROM v",
		"SET 'ptfsh.format' = 'rows'",
	} {
		s.ExecStatement(ctx, parseOne(t, stmt))
	}
	cancel()
	s.ExecStatement(ctx, parseOne(t, "SELECT * FROM v"))
	out.Reset()
	if err := s.ExecStatement(context.Background(), parseOne(t, "SHOW JOBS")); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \|\s+\d+\.\d{3} s`).ReplaceAllString(out.String(), "TIME | T")
	for _, want := range []string{
		"| job id |                   statement |   status |          start time | duration | rows read | rows out |",
		"|      1 | SELECT * FROM v WHERE x > 1 | FINISHED | TIME | T |         3 |        2 |",
		"|      2 |         SELECT x / 0 FROM v |   FAILED |",
		"|      3 |             SELECT * FROM v | CANCELED |",
		"3 rows in set",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if err := s.ExecStatement(context.Background(), parseOne(t, "SHOW USER JOBS")); err == nil || !strings.Contains(err.Error(), "SHOW JOBS takes neither USER nor LIKE") {
		t.Errorf("SHOW USER JOBS: %v", err)
	}
}

func parseOne(t *testing.T, src string) *sqlmini.Statement {
	t.Helper()
	sts, err := sqlmini.Parse("", src)
	if err != nil || len(sts) != 1 {
		t.Fatalf("%s: %v", src, err)
	}
	return sts[0]
}
