package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/timeline"
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

// run drives a planned query of stmt into a sink: it pulls events from
// the plan and hands rows to the sink; its checkpointer takes a checkpoint
// when one is due and a final one at the end, its progress line shows how
// far it is. out, if not nil, is flushed before notes go to stderr; pos is
// where errors of the run point.
func (s *Session) run(ctx context.Context, stmt *statement, pos sqlmini.Pos, n exec.Node, sink Sink, out *bufio.Writer) (err error) {
	start := time.Now()
	opts, err := s.options(stmt)
	if err != nil {
		return sqlmini.Errorf(pos, "%w", err)
	}
	ex := exec.NewExecution(ctx, s.cfg.Store, opts)
	ex.StatementKey = statementHash(stmt.Statement)[:16] // names its operators' state (exec.OperatorNamespace)
	if st := stmt.stepping; st != nil {
		ex.StatementKey = st.key // the running query's, whatever step runs it
	}
	// SET 'ptfsh.memory-limit': the statement stops when the live heap passes it.
	defer ex.WatchMemory()()
	if s.resultMode() == "table" && stmt.Statement != nil && stmt.Query != nil {
		ex.KeepsInMemory("the table result mode keeps the result's rows")
	}
	if opts.Trace {
		ex.Trace = s.cfg.Err
	}
	if st := stmt.stepping; st != nil {
		st.ex = ex // a step counts its own rows (stream.go)
		if ex.Trace != nil {
			st.gate.w, ex.Trace = ex.Trace, st.gate
		}
	}
	rec := s.startTimeline(ex, stmt) // timeline.go
	var rows int64
	defer func() { stmt.in, stmt.out = stmt.in+ex.RowsIn, stmt.out+rows }() // SHOW JOBS (jobs.go)
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
	encSink := encodeRows(str, sink)
	ck := newCheckpointer(s.cfg.Store, ex, sink, stmt.final)
	defer ck.stop()
	prog := newProgress(s.cfg.Err, s.cfg.Timing, start)
	flusher := newOutFlusher(out, sink)
	live := ex.Live()
	flusher.wake = live.WakeAt
	s.setRunning(ex, flusher)
	defer s.setRunning(nil, nil)
	ended := false
	defer func() {
		if err == nil {
			return
		}
		// Every error of the statement says where it is (a checkpoint
		// whose commit failed, a sink that cannot write): its position
		// unless it has one of its own.
		err = positioned(pos, err)
		ck.abort()
		prog.clear()
		if a, ok := sink.(format.Aborter); ok && !ended {
			a.Abort()
		}
		if out != nil {
			out.Flush() // the rows before the error go out before it
		}
	}()
	stopNoted := false
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return sqlmini.Errorf(pos, "statement cancelled")
		}
		if ex.Stopping() && !stopNoted && live.HasSources() {
			stopNoted = true
			s.noteStop(prog, ex)
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
		switch ev.Kind {
		case exec.EvRow:
			rows++
			if err := sink.Row(ev.Row); err != nil {
				return err
			}
			flusher.wrote()
		case exec.EvEncoded:
			b, k := ev.Encoded()
			if encSink == nil {
				return fmt.Errorf("internal error: encoded rows for a sink that did not ask for them; this is a bug in ptfsh: please report it with the statement")
			}
			rows += int64(k)
			if err := format.WriteEncoded(encSink, b); err != nil {
				return err
			}
			flusher.wrote()
			if err := flusher.tick(); err != nil { // one event holds many rows: as often as 64 would
				return err
			}
		case exec.EvIdle:
			// Nothing to read now: what was written goes out, a checkpoint
			// due is taken, and the driver waits for a source to wake it.
			if err := flusher.flush(); err != nil {
				return err
			}
			prog.clear()
			if err := ck.maybe(); err != nil {
				return err
			}
			limit := time.Second
			if d := ck.next(); d > 0 {
				limit = min(limit, d)
			}
			live.Wait(limit, ctx.Done())
			continue
		}
		if err := ex.MemoryError(); err != nil {
			return positioned(pos, err)
		}
		if err := ck.maybe(); err != nil {
			return err
		}
		if n&63 == 0 {
			if err := flusher.tick(); err != nil {
				return err
			}
		}
		prog.tick(ex.RowsIn, rows)
	}
	if live.Stopping() && !stopNoted {
		s.noteStop(prog, ex) // a source began it
	}
	prog.clear()
	if err := ck.settle(); err != nil {
		return err
	}
	ended = true
	if err := sink.End(); err != nil {
		return err
	}
	ckStart := time.Now()
	if !live.Stopping() || ex.StateInMemory() == "" {
		if err := ck.finish(); err != nil {
			return err
		}
	}
	// Else the statement stopped, and an operator's state cannot be in a
	// checkpoint: everything stays at the last one, the statement's start,
	// as after a cancel (noteStop said so).
	drawn = rec != nil
	return s.report(stmt, pos, ex, rec, rows, start, time.Since(ckStart), out)
}

// noteStop says that the first Ctrl-C or SIGTERM stops the statement: its
// sources end where they are, and it ends with a final checkpoint,
// without its end of input, so that the next run with this state goes on.
func (s *Session) noteStop(prog *progress, ex *exec.Execution) {
	prog.clear()
	if f := s.runOut; f != nil {
		f.flush()
		f.leave()
	}
	if s.cfg.Scratch {
		// No state file: there is no next run to go on from.
		fmt.Fprintln(s.cfg.Err, "note: stopping (Ctrl-C again cancels it)")
		return
	}
	if held := ex.StateInMemory(); held != "" {
		fmt.Fprintf(s.cfg.Err, "note: stopping without a checkpoint: %s in memory, so the next run with the same state starts the statement again from its beginning (Ctrl-C again cancels it)\n", held)
		return
	}
	fmt.Fprintln(s.cfg.Err, "note: stopping: the statement ends with a checkpoint that the next run with the same state goes on from (Ctrl-C again cancels it)")
}

// report says, after a run, what a person should know: the notes of the
// run (time, the operators', why not), its timeline when one is drawn,
// and with Config.Timing the rows and the time it took.
func (s *Session) report(stmt *statement, pos sqlmini.Pos, ex *exec.Execution, rec *timeline.Record, rows int64, start time.Time, ckTime time.Duration, out *bufio.Writer) error {
	flush := func() error {
		if out != nil {
			return out.Flush()
		}
		return nil
	}
	opNotes := ex.Notes
	if st := stmt.stepping; st != nil {
		opNotes = st.newNotes(opNotes)
	}
	if notes := append(append(timeNotes(ex), opNotes...), whyNotNotes(ex)...); len(notes) > 0 {
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
		if err := s.writeTimeline(rec, nil); err != nil {
			return sqlmini.Errorf(pos, "%w", err)
		}
	}
	if s.cfg.Timing {
		if err := flush(); err != nil {
			return err
		}
		if st := stmt.stepping; st != nil {
			st.took = time.Since(start) // the step prints it after its notes (stream.go)
			return nil
		}
		fmt.Fprintf(s.cfg.Err, "(%s read, %s out, %.3f s; final checkpoint %.3f s)\n", plural(ex.RowsIn, "row"), plural(rows, "row"), time.Since(start).Seconds(), ckTime.Seconds())
	}
	return nil
}

// encodeRows asks str, when it can, to hand its rows out encoded for
// sink, a printer that can take them so (a parallel PTF call's workers
// then format their rows on their own cores: exec.RowEncoding); it
// returns the printer, or nil when the rows come as rows.
func encodeRows(str exec.Stream, sink Sink) format.Printer {
	p, ok := sink.(format.Printer)
	if !ok {
		return nil
	}
	es, ok := str.(exec.RowEncoding)
	if !ok || format.NewRowEncoder(p) == nil {
		return nil
	}
	if !es.EncodeRows(func() exec.RowEncoder { return format.NewRowEncoder(p) }) {
		return nil
	}
	return p
}
