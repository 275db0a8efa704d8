package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// Sink receives the rows of a running query: a Printer, or the file sink
// of an INSERT INTO.
type Sink interface {
	Begin(s types.Schema) error
	Row(r types.Row) error
	End() error
}

// CheckpointSink is a sink whose progress is part of a checkpoint: a file
// sink records the length it has written, so that a restart can cut the
// file back to it (exactly-once output).
type CheckpointSink interface {
	Sink
	// Checkpoint makes the rows written so far durable and records the
	// sink's position in tx.
	Checkpoint(tx state.Tx) error
	// Committed says that the transaction of the last Checkpoint
	// committed: the position it recorded is now the one to go back to.
	Committed()
}

// noCheckpointer is a sink that cannot take a checkpoint before the end of
// its statement (a parquet file sink: its file is written whole at the
// end). NoCheckpoints says why, or "" when it can.
type noCheckpointer interface {
	NoCheckpoints() string
}

// SetCheckpointRows is the number of source rows between checkpoints.
const SetCheckpointRows = "execution.checkpointing.interval-rows"

// defaultCheckpointRows was chosen by measurement: a checkpoint every 100k
// rows costs a keyed count over 100k keys about 4 % of the run over 1M rows
// and 8 % over 5M, against only the final checkpoint (docs/performance.md).
const defaultCheckpointRows = 100_000

// run drives a planned query into a sink: it pulls events from the plan,
// takes a checkpoint every N source rows when no operator holds rows it
// has not handed on, and a final one at the end. out, if not nil, is
// flushed before notes go to stderr.
func (s *Session) run(ctx context.Context, pos sqlmini.Pos, n exec.Node, sink Sink, out *bufio.Writer) (err error) {
	start := time.Now()
	ex, err := s.newExecution(ctx)
	if err != nil {
		return sqlmini.Errorf(pos, "%w", err)
	}
	if s.stepping != nil {
		s.stepping.ex = ex // a step counts its own rows (stream.go)
	}
	rec := s.startTimeline(ex) // timeline.go
	var rows int64
	defer func() { s.counted(ex.RowsIn, rows) }() // SHOW JOBS (jobs.go)
	drawn := false
	defer func() {
		if err != nil && !drawn { // a failed statement draws what happened before it
			if werr := s.writeTimeline(rec, err); werr != nil {
				fmt.Fprintf(s.cfg.Err, "note: %v\n", werr)
			}
		}
	}()
	if nc, ok := sink.(noCheckpointer); ok {
		if why := nc.NoCheckpoints(); why != "" {
			ex.NoCheckpoints(why)
		}
	}
	str, err := n.Open(ex)
	if err != nil {
		return positioned(pos, err)
	}
	defer str.Close()
	if err := sink.Begin(n.Schema()); err != nil {
		return err
	}
	lastProgress, progressShown := start, false
	ended := false
	// inflight is the periodic checkpoint whose commit may still be
	// running (state.UpdateAsync): rows go on meanwhile, and the next
	// checkpoint, the end or a failure settles it first.
	var inflight *state.Commit
	defer func() {
		if err == nil {
			return
		}
		if inflight != nil {
			// A checkpoint that committed moves the length the sink is
			// cut back to (Abort) before the rows after it are taken out.
			_ = settleCheckpoint(ex, inflight, sink)
			inflight = nil
		}
		if progressShown {
			fmt.Fprint(s.cfg.Err, "\r\033[K")
		}
		if a, ok := sink.(format.Aborter); ok && !ended {
			a.Abort()
		}
		if out != nil {
			out.Flush() // the rows before the error go out before it
		}
	}()
	every := int64(defaultCheckpointRows)
	if v, ok := s.settings[SetCheckpointRows]; ok {
		every, _ = strconv.ParseInt(v, 10, 64)
	}
	if s.cfg.Scratch {
		// A checkpoint into a scratch store serves no restart: only the
		// final one, which the next statements read, is taken.
		every = 0
	}
	ex.CheckpointEvery = every
	for {
		if err := ctx.Err(); err != nil {
			return sqlmini.Errorf(pos, "statement cancelled")
		}
		ev, err := str.Next()
		if err != nil {
			if errors.Is(err, exec.ErrCancelled) {
				return sqlmini.Errorf(pos, "statement cancelled")
			}
			return positioned(pos, err)
		}
		if ev.Kind == exec.EvEnd {
			break
		}
		if ev.Kind == exec.EvRow {
			rows++
			if err := sink.Row(ev.Row); err != nil {
				return err
			}
		}
		if every > 0 && ex.Uncheckpointable == "" && ex.RowsIn-ex.LastCheckpoint >= every && ex.Quiescent() {
			if inflight != nil {
				c := inflight
				inflight = nil
				if err := settleCheckpoint(ex, c, sink); err != nil {
					return err
				}
			}
			if inflight, err = s.startCheckpoint(ex, sink, false, true); err != nil {
				return err
			}
			ex.LastCheckpoint = ex.RowsIn
		}
		if s.cfg.Timing && rows&0xffff == 0 && time.Since(lastProgress) > time.Second {
			lastProgress = time.Now()
			fmt.Fprintf(s.cfg.Err, "\r%d rows read, %d rows out, %.0f s ", ex.RowsIn, rows, time.Since(start).Seconds())
			progressShown = true
		}
	}
	if progressShown {
		fmt.Fprint(s.cfg.Err, "\r\033[K")
		progressShown = false
	}
	if inflight != nil {
		c := inflight
		inflight = nil
		if err := settleCheckpoint(ex, c, sink); err != nil {
			return err
		}
	}
	ended = true
	if err := sink.End(); err != nil {
		return err
	}
	ckStart := time.Now()
	if err := s.checkpoint(ex, sink, true); err != nil {
		return err
	}
	ckTime := time.Since(ckStart)
	flush := func() error {
		if out != nil {
			return out.Flush()
		}
		return nil
	}
	if notes := append(append(timeNotes(ex), ex.Notes...), whyNotNotes(ex)...); len(notes) > 0 {
		if err := flush(); err != nil {
			return err
		}
		for _, n := range notes {
			fmt.Fprintln(s.cfg.Err, n)
		}
	}
	if rec != nil {
		if err := flush(); err != nil {
			return err
		}
		drawn = true
		if err := s.writeTimeline(rec, nil); err != nil {
			return sqlmini.Errorf(pos, "%w", err)
		}
	}
	if s.cfg.Timing {
		if err := flush(); err != nil {
			return err
		}
		if st := s.stepping; st != nil {
			st.took = time.Since(start) // the step prints it after its notes (stream.go)
			return nil
		}
		fmt.Fprintf(s.cfg.Err, "(%s read, %s out, %.3f s; final checkpoint %.3f s)\n", plural(ex.RowsIn, "row"), plural(rows, "row"), time.Since(start).Seconds(), ckTime.Seconds())
	}
	return nil
}

// checkpoint writes, in one transaction, the state and timers of every PTF
// call, the position of every file source and the sink's progress. A
// final checkpoint at the end of input also marks the statement finished,
// and, in a script, records that it did (Session.finalHook). It returns
// when the transaction has committed.
func (s *Session) checkpoint(ex *exec.Execution, sink Sink, final bool) error {
	c, err := s.startCheckpoint(ex, sink, final, false)
	if err != nil {
		return err
	}
	return settleCheckpoint(ex, c, sink)
}

// startCheckpoint is checkpoint without the wait: with async, the store
// may commit the transaction in the background (state.UpdateAsync), and
// the checkpoint counts only once settleCheckpoint says it committed.
// Until then every other use of the store waits for that commit.
func (s *Session) startCheckpoint(ex *exec.Execution, sink Sink, final, async bool) (*state.Commit, error) {
	if !final || !ex.EndOfInput {
		// The final checkpoint of a finished statement forgets the
		// sources' positions: hashing what they read would be wasted.
		for _, src := range ex.Sources {
			if p, ok := src.(exec.CheckpointPreparer); ok {
				p.PrepareCheckpoint()
			}
		}
	}
	write := func(tx state.Tx) error {
		for _, op := range ex.Ptfs {
			if err := op.Flush(tx, final); err != nil {
				return err
			}
		}
		for _, nz := range ex.Normalizers {
			if err := nz.Checkpoint(tx, final && ex.EndOfInput); err != nil {
				return err
			}
		}
		for _, src := range ex.Sources {
			if err := src.Checkpoint(tx, final && ex.EndOfInput, final); err != nil {
				return err
			}
		}
		if cs, ok := sink.(CheckpointSink); ok {
			if err := cs.Checkpoint(tx); err != nil {
				return err
			}
		}
		if final && s.finalHook != nil {
			return s.finalHook(tx)
		}
		return nil
	}
	if !async {
		if err := s.cfg.Store.Update(write); err != nil {
			return nil, fmt.Errorf("writing a checkpoint: %w", err)
		}
		return nil, nil
	}
	c, err := state.UpdateAsync(s.cfg.Store, write)
	if err != nil {
		return nil, fmt.Errorf("writing a checkpoint: %w", err)
	}
	return c, nil
}

// settleCheckpoint waits for the commit of a checkpoint (nil: one that
// committed already) and tells the sink and the sources that it committed.
func settleCheckpoint(ex *exec.Execution, c *state.Commit, sink Sink) error {
	if c != nil {
		if err := c.Wait(); err != nil {
			return fmt.Errorf("writing a checkpoint: %w", err)
		}
	}
	if cs, ok := sink.(CheckpointSink); ok {
		cs.Committed()
	}
	for _, src := range ex.Sources {
		if cs, ok := src.(committedSource); ok {
			cs.Committed()
		}
	}
	return nil
}

// committedSource is a source told when a checkpoint has committed (a
// Kafka source commits its group's offsets then, never ahead of it).
type committedSource interface {
	Committed()
}
