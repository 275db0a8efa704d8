package connector

import (
	"fmt"
	"os"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// OptMonitorInterval is Flink's 'source.monitor-interval': a file table
// with it does not end. A folder is listed again at that interval and
// the files added to it are read, each once, as Flink's continuous file
// source reads them (so write a file elsewhere, or under a hidden name,
// and move it in when it is whole). A single file is followed, as tail -f
// follows it: what is appended to it is read as its lines are completed
// (a ptfsh extension: Flink reads a file once). Positions go into every
// checkpoint, so a statement stopped (Ctrl-C, SIGTERM) or killed goes on,
// in the next run with the same state, after the last row it read. A
// followed file that is cut shorter or replaced by another file is an
// error.
const OptMonitorInterval = "source.monitor-interval"

// followPoll is how often a followed file is read again for appended
// lines; a folder is listed at the table's interval.
const followPoll = 100 * time.Millisecond

// monitorInterval returns a table's 'source.monitor-interval', 0 when it
// has none.
func monitorInterval(t *catalog.Table) (time.Duration, error) {
	v, ok := t.Options[OptMonitorInterval]
	if !ok {
		return 0, nil
	}
	d, err := types.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("option '%s': %w", OptMonitorInterval, err)
	}
	if d <= 0 {
		return 0, fmt.Errorf("option '%s' must be greater than 0 (the interval at which the source looks for new rows), not '%s'", OptMonitorInterval, v)
	}
	if IsParquet(t) && !isFolder(TablePath(t)) {
		return 0, fmt.Errorf("option '%s': a Parquet file is written whole and cannot be followed; give a folder to read the Parquet files added to it", OptMonitorInterval)
	}
	return d, nil
}

// following is the state of a followed file or folder.
type following struct {
	every  time.Duration
	file   os.FileInfo // the followed file as opened: a replacement is refused
	idle   idleTimer
	pace   wmPace
	listed time.Time // when a folder was last listed
}

// waitMore is Next at the end of what a followed file or folder holds
// now: a stop ends the table (without the end of input), a file cut
// shorter or replaced is an error, and otherwise the source is idle until
// the next look.
func (s *fileStream) waitMore() (exec.Event, error) {
	live := s.ex.Live()
	if s.ex.Stopping() {
		s.reportSkipped()
		return exec.Event{Kind: exec.EvEnd}, nil
	}
	path := TablePath(s.n.t)
	poll := followPoll
	if s.folder != nil {
		poll = s.follow.every
		if time.Since(s.follow.listed) >= s.follow.every {
			s.follow.listed = time.Now()
			found, err := s.folder.relist()
			if err != nil {
				return exec.Event{}, types.At(s.n.pos, fileError(s.n.t, err))
			}
			if found {
				return s.Next()
			}
		}
	} else {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			return exec.Event{}, types.At(s.n.pos, fmt.Errorf("table '%s': the followed file '%s' is gone: %w", s.n.t.Name, s.n.t.Options["path"], err))
		case !os.SameFile(fi, s.follow.file):
			return exec.Event{}, types.At(s.n.pos, fmt.Errorf("table '%s': the followed file '%s' was replaced by another file (row %d was read of the first); a followed file may only grow: append to it, or follow a folder and add files to it", s.n.t.Name, s.n.t.Options["path"], s.r.Position().Row))
		case fi.Size() < s.r.Position().Offset:
			return exec.Event{}, types.At(s.n.pos, fmt.Errorf("table '%s': the followed file '%s' was cut shorter (to %d bytes) after %d were read (row %d); a followed file may only grow", s.n.t.Name, s.n.t.Options["path"], fi.Size(), s.r.Position().Offset, s.r.Position().Row))
		}
	}
	if ev, ok := s.follow.idle.check(s.ex); ok {
		return ev, nil
	}
	if s.pending {
		s.follow.pace.wake(s.ex)
	}
	live.WakeAt(time.Now().Add(poll))
	return exec.Event{Kind: exec.EvIdle}, nil
}

// relist lists the folder again and adds the files not seen before, in
// path order, to those left to read; it reports whether it found any.
func (r *folderReader) relist() (bool, error) {
	files, err := tableFiles(r.t)
	if err != nil {
		return false, err
	}
	seen := make(map[string]bool, len(r.files))
	for _, f := range r.files {
		seen[f] = true
	}
	found := false
	for _, f := range files {
		if !seen[f] {
			r.files = append(r.files, f)
			found = true
		}
	}
	return found, nil
}

var _ format.RowReader = (*folderReader)(nil)
