package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/runtime/timeline"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// SetTimeline names the file (.svg or .html) that each query draws its
// timeline into.
const SetTimeline = "ptfsh.timeline"

// SetTimelineView chooses what a timeline puts across: event time (a
// lane per key) or arrival time (event time up, the watermark a curve).
const SetTimelineView = "ptfsh.timeline.view"

// timelineView is SET 'ptfsh.timeline.view'.
func (s *Session) timelineView() timeline.View {
	v, _ := settings.Get[string](s.settings, SetTimelineView)
	if v == "" {
		return timeline.EventView
	}
	return timeline.View(v)
}

// explainTimeline runs EXPLAIN TIMELINE query: the query runs to its end
// (its rows are counted, not printed) and the timeline of its PTF calls
// is drawn on Out; with SET 'ptfsh.timeline' it also goes to that file.
func (s *Session) explainTimeline(ctx context.Context, stmt *statement) error {
	e := stmt.Explain
	n, err := plan.New(s.cat, s.sourceEnv()).Printed(e.Query)
	if err != nil {
		return err
	}
	rec := &timeline.Record{}
	stmt.timeline = rec
	var sink countSink
	runErr := s.run(ctx, stmt, e.Pos, n, &sink, nil) // it notes a failure in rec
	var b bytes.Buffer
	if len(rec.Events) == 0 && runErr == nil && !drawsTime(n) {
		rec.Notes = append(rec.Notes, "the query has no PTF call, window, OVER or MATCH_RECOGNIZE: a timeline shows the rows, watermarks and timers of those")
	}
	if err := timeline.TextView(&b, rec, s.timelineView()); err != nil {
		return err
	}
	fmt.Fprintf(&b, "%s out of the query\n", plural(sink.rows, "row"))
	if _, err := s.cfg.Out.Write(b.Bytes()); err != nil {
		return err
	}
	return runErr
}

// drawsTime reports whether a plan has an operator that draws in a
// timeline: a PTF call, a window operator, an OVER or MATCH_RECOGNIZE.
func drawsTime(n exec.Node) bool {
	switch x := n.(type) {
	case *ptfop.Node, *sqlop.WindowAggregateNode, *sqlop.OverNode, *sqlop.MatchNode:
		return true
	case *sqlop.WindowRankNode:
		if x.Draw != nil {
			return true
		}
	case *exec.TeeNode: // a shared call: its children are the call's inputs
		return drawsTime(x.In)
	}
	for _, c := range n.Children() {
		if drawsTime(c) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// countSink counts the rows of EXPLAIN TIMELINE's query.
type countSink struct{ rows int64 }

func (c *countSink) Begin(types.Schema) error { return nil }
func (c *countSink) Row(types.Row) error      { c.rows++; return nil }
func (c *countSink) End() error               { return nil }

// startTimeline gives a statement's execution the record of its time
// events when EXPLAIN TIMELINE or SET 'ptfsh.timeline' asks for one, and
// returns it (nil: none). A timeline runs each call on one worker, so
// that its events come in the order they happen (exec.parallelReason).
func (s *Session) startTimeline(ex *exec.Execution, stmt *statement) *timeline.Record {
	rec := stmt.timeline
	if rec == nil && (s.timelineFile() != "" || s.timelineSink != nil) {
		rec = &timeline.Record{}
	}
	if rec == nil {
		return nil
	}
	ex.Timeline = rec
	return rec
}

// timelineFile is SET 'ptfsh.timeline', resolved against the script's folder.
func (s *Session) timelineFile() string {
	f, _ := settings.Get[string](s.settings, SetTimeline)
	if f == "" {
		return ""
	}
	return s.path(f)
}

// writeTimeline draws rec into the file of SET 'ptfsh.timeline', if set,
// with a note that says where; runErr is the statement's error, if any.
func (s *Session) writeTimeline(rec *timeline.Record, runErr error) error {
	if rec == nil {
		return nil
	}
	if runErr != nil {
		rec.Notes = append(rec.Notes, "the statement failed; what happened before it is drawn: "+firstLine(runErr.Error()))
	}
	if s.timelineSink != nil {
		s.timelineSink(rec, s.timelineView())
	}
	file := s.timelineFile()
	if file == "" {
		return nil
	}
	var b bytes.Buffer
	draw := timeline.SVGView
	if l := strings.ToLower(file); strings.HasSuffix(l, ".html") || strings.HasSuffix(l, ".htm") {
		draw = timeline.HTMLView
	}
	if err := draw(&b, rec, s.timelineView()); err != nil {
		return err
	}
	as, _ := settings.Get[string](s.settings, SetTimeline) // as written: a relative path stays relative
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("SET '%s': cannot write the timeline to %s: %w (SET it to a file in a folder you can write, or RESET it)", SetTimeline, as, err)
	}
	fmt.Fprintf(s.cfg.Err, "note: timeline of %s written to %s\n", plural(int64(len(rec.Events)), "event"), as)
	return nil
}

// SetTimelineSink makes every query that calls a PTF record its timeline
// and hand it to f after it ran (failed or not), with the view that SET
// 'ptfsh.timeline.view' chooses: the playground draws each statement's,
// EXPLAIN TIMELINE's and each stream step's. nil stops it. A timeline
// runs each call on one worker.
func (s *Session) SetTimelineSink(f func(rec *timeline.Record, view timeline.View)) {
	s.timelineSink = f
}
