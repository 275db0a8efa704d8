package session

import (
	"maps"
	"strconv"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// options are the settings a run of stmt goes by: the texts SET gave, over
// the defaults the session was made with (the command's flags: Config's
// Parallelism, TraceFilter, ShuffleSeed, ProcessingTime), read by
// [exec.NewOptions], whose error names the key of a value that does not
// parse; then what the session and the statement ask: a scratch store
// takes only the final checkpoint, EXPLAIN WHY turns lineage on, a step
// of a query on streams runs without the end of input.
func (s *Session) options(stmt *statement) (exec.Options, error) {
	texts := map[string]string{}
	if s.cfg.Parallelism > 0 {
		texts[exec.SetParallelism] = strconv.Itoa(s.cfg.Parallelism)
	}
	if f := s.cfg.TraceFilter; f != (exec.TraceFilter{}) {
		texts[exec.SetTraceKey], texts[exec.SetTraceFunction] = f.Key, f.Function
		if f.Late {
			texts[exec.SetTraceLate] = "on"
		}
	}
	if s.cfg.ShuffleSeed != 0 {
		texts[exec.SetShuffleSeed] = strconv.FormatInt(s.cfg.ShuffleSeed, 10)
	}
	if s.cfg.ProcessingTime != "" {
		texts[exec.SetProcessingTime] = s.cfg.ProcessingTime
	}
	maps.Copy(texts, s.settings)
	if s.cfg.Trace {
		texts[exec.SetTrace] = "on" // --trace traces whatever SET says
	}
	opts, err := exec.NewOptions(texts)
	if err != nil {
		return opts, err
	}
	if s.cfg.Scratch {
		// A checkpoint into a scratch store serves no restart: only the
		// final one, which the next statements read, is taken.
		opts.CheckpointRows, opts.CheckpointInterval = 0, 0
		opts.Scratch = true
	}
	opts.RunID = s.runID
	opts.Lineage = opts.Lineage || stmt.why
	if stmt.stepping != nil {
		opts.EndOfInput = false // a step of a query on streams (stream.go)
	}
	return opts, nil
}

// timeNotes says what a person should know about time after a statement:
// timers that fired only because the input ended, with no watermark seen;
// rows that ORDER BY dropped.
func timeNotes(ex *exec.Execution) []string {
	var notes []string
	for _, call := range ex.Ptfs {
		notes = append(notes, call.Notes()...)
	}
	return notes
}

// processingTime is SET 'ptfsh.processing-time', else the session's
// default (Config.ProcessingTime), and whether there is one.
func (s *Session) processingTime() (string, bool) {
	if v, ok := s.settings[exec.SetProcessingTime]; ok {
		return v, true
	}
	return s.cfg.ProcessingTime, s.cfg.ProcessingTime != ""
}
