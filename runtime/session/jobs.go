package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// SHOW JOBS lists what ran in the session, as the Flink SQL client lists
// its jobs: each query, INSERT (or statement set) and EXPLAIN TIMELINE,
// with its status (FINISHED, FAILED or CANCELED), when it started, how
// long it took and the rows it read and wrote.

// maxJobs is how many of the latest jobs the session remembers.
const maxJobs = 1000

// jobLog is the jobs that ran in a session, the latest maxJobs of them.
type jobLog struct {
	jobs []jobRecord
	seq  int // the id of the last job
}

type jobRecord struct {
	id        int
	statement string
	status    string
	start     time.Time
	took      time.Duration
	in, out   int64
}

// run runs a statement that is a job and records it, with the rows its
// runs counted in stmt. A job whose context ended (Ctrl-C) is CANCELED,
// whatever error its statement returned on the way out.
func (l *jobLog) run(ctx context.Context, stmt *statement, run func() error) error {
	st := stmt.Statement
	l.seq++
	text, ok := sqlmini.OneLine(st.Text)
	if !ok { // a $$ body of several lines: its first line
		text, _, _ = strings.Cut(st.Text, "\n")
	}
	rec := jobRecord{id: l.seq, statement: text, start: time.Now()}
	err := run()
	rec.took, rec.in, rec.out = time.Since(rec.start), stmt.in, stmt.out
	switch {
	case err == nil:
		rec.status = "FINISHED"
	case ctx.Err() != nil || errors.Is(err, exec.ErrCancelled):
		rec.status = "CANCELED"
	default:
		rec.status = "FAILED"
	}
	l.jobs = append(l.jobs, rec)
	if len(l.jobs) > maxJobs {
		l.jobs = append(l.jobs[:0], l.jobs[len(l.jobs)-maxJobs:]...)
	}
	return err
}

// show prints SHOW JOBS on w.
func (l *jobLog) show(w io.Writer, sh *sqlmini.Show) error {
	if sh.User || sh.Like != "" {
		return sqlmini.Errorf(sh.Pos, "SHOW JOBS takes neither USER nor LIKE")
	}
	var rows [][]string
	for _, j := range l.jobs {
		stmt := j.statement
		if len(stmt) > 60 {
			stmt = stmt[:57] + "..."
		}
		rows = append(rows, []string{fmt.Sprint(j.id), stmt, j.status, j.start.UTC().Format("2006-01-02 15:04:05"),
			fmt.Sprintf("%.3f s", j.took.Seconds()), fmt.Sprint(j.in), fmt.Sprint(j.out)})
	}
	return printMeta(w, []string{"job id", "statement", "status", "start time", "duration", "rows read", "rows out"}, rows)
}
