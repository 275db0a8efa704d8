package session

import (
	"context"
	"errors"
	"fmt"
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

type jobRecord struct {
	id        int
	statement string
	status    string
	start     time.Time
	took      time.Duration
	in, out   int64
}

// job runs a statement that is a job and records it.
// A job whose context ended (Ctrl-C) is CANCELED, whatever error its
// statement returned on the way out.
func (s *Session) job(ctx context.Context, st *sqlmini.Statement, run func() error) error {
	s.jobSeq++
	text, ok := sqlmini.OneLine(st.Text)
	if !ok { // a $$ body of several lines: its first line
		text, _, _ = strings.Cut(st.Text, "\n")
	}
	rec := jobRecord{id: s.jobSeq, statement: text, start: time.Now()}
	s.jobIn, s.jobOut = 0, 0
	err := run()
	rec.took, rec.in, rec.out = time.Since(rec.start), s.jobIn, s.jobOut
	switch {
	case err == nil:
		rec.status = "FINISHED"
	case ctx.Err() != nil || errors.Is(err, exec.ErrCancelled):
		rec.status = "CANCELED"
	default:
		rec.status = "FAILED"
	}
	s.jobs = append(s.jobs, rec)
	if len(s.jobs) > maxJobs {
		s.jobs = append(s.jobs[:0], s.jobs[len(s.jobs)-maxJobs:]...)
	}
	return err
}

// counted adds the rows a run of a statement read and wrote to the job's.
func (s *Session) counted(in, out int64) {
	s.jobIn += in
	s.jobOut += out
}

func (s *Session) showJobs(sh *sqlmini.Show) error {
	if sh.User || sh.Like != "" {
		return sqlmini.Errorf(sh.Pos, "SHOW JOBS takes neither USER nor LIKE")
	}
	var rows [][]string
	for _, j := range s.jobs {
		stmt := j.statement
		if len(stmt) > 60 {
			stmt = stmt[:57] + "..."
		}
		rows = append(rows, []string{fmt.Sprint(j.id), stmt, j.status, j.start.UTC().Format("2006-01-02 15:04:05"),
			fmt.Sprintf("%.3f s", j.took.Seconds()), fmt.Sprint(j.in), fmt.Sprint(j.out)})
	}
	return printMeta(s.cfg.Out, []string{"job id", "statement", "status", "start time", "duration", "rows read", "rows out"}, rows)
}
