package session

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/state"
)

// checkpointer takes the checkpoints of one run of a statement: a
// periodic one every Options.CheckpointRows source rows or
// Options.CheckpointInterval of wall-clock time, whichever comes first (it
// is the execution's [exec.CheckpointPolicy]), taken when no operator holds
// output it has not handed on and committed in the background while rows
// go on, and the final one at the end, which, in a script, also records
// that the statement finished.
type checkpointer struct {
	store state.Store
	ex    *exec.Execution
	sink  Sink
	// final records, in the final checkpoint, that the statement finished
	// (statement.final; nil: nothing to record).
	final    func(tx state.Tx) error
	every    int64         // source rows between periodic checkpoints (0: none)
	interval time.Duration // wall-clock time between them (0: none)
	last     int64         // source rows read at the last one
	lastAt   time.Time     // when it was taken
	// The wall clock is not read per row (Due runs once a row, and
	// reading the clock took 2–3 % of a keyed count's CPU): a timer armed
	// at each checkpoint stores its arming's number in fired when the
	// interval has passed, and a checkpoint is due by time when fired
	// holds the number of the latest arming, armed. A timer of an earlier
	// arming that fires late stores an older number and counts for
	// nothing.
	timer *time.Timer
	armed int64
	fired atomic.Int64
	// inflight is the periodic checkpoint whose commit may still be
	// running ([state.UpdateAsync]): rows go on meanwhile, and the next
	// checkpoint, the end or a failure settles it first.
	inflight *state.Commit
}

// newCheckpointer returns the checkpointer of ex, which writes to store
// and tells sink when a checkpoint committed; it becomes ex's policy.
func newCheckpointer(store state.Store, ex *exec.Execution, sink Sink, final func(tx state.Tx) error) *checkpointer {
	c := &checkpointer{store: store, ex: ex, sink: sink, final: final, every: ex.Opts.CheckpointRows,
		interval: ex.Opts.CheckpointInterval, lastAt: time.Now()}
	if c.every > 0 || c.interval > 0 {
		ex.Checkpoints = c
	}
	c.arm()
	return c
}

// arm starts the wall-clock interval anew from now (nothing without an
// interval): the timer of the arming before is stopped, and its firing,
// if it fires all the same, is stale.
func (c *checkpointer) arm() {
	c.lastAt = time.Now()
	if c.interval <= 0 {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.armed++
	n := c.armed
	c.timer = time.AfterFunc(c.interval, func() { c.fired.Store(n) })
}

// stop stops the interval's timer when the run is over.
func (c *checkpointer) stop() {
	if c.timer != nil {
		c.timer.Stop()
	}
}

// Due reports whether a periodic checkpoint is due once the sources have
// read rowsIn rows. It reads no clock: the interval's timer says when
// the time has passed.
func (c *checkpointer) Due(rowsIn int64) bool {
	return c.every > 0 && rowsIn >= c.last+c.every || c.interval > 0 && c.fired.Load() == c.armed
}

// next returns how long until the next periodic checkpoint is due on the
// wall clock (0 without an interval), so that a driver waiting for a live
// input wakes up for it.
func (c *checkpointer) next() time.Duration {
	if c.interval <= 0 {
		return 0
	}
	return max(time.Until(c.lastAt.Add(c.interval)), time.Millisecond)
}

// maybe takes a periodic checkpoint when one is due and every operator is
// quiescent (its state describes exactly the rows the sink has seen);
// the one before it is settled first.
func (c *checkpointer) maybe() error {
	if !c.ex.CheckpointDue(0) || !c.ex.Quiescent() {
		return nil
	}
	if err := c.settle(); err != nil {
		return err
	}
	inflight, err := c.start(false, true)
	if err != nil {
		return err
	}
	c.inflight, c.last = inflight, c.ex.RowsIn
	c.arm()
	return nil
}

// settle waits for the periodic checkpoint in flight, if any, to commit.
func (c *checkpointer) settle() error {
	if c.inflight == nil {
		return nil
	}
	inflight := c.inflight
	c.inflight = nil
	return c.committed(inflight)
}

// abort settles what is in flight after a failure: a checkpoint that
// committed moves the length the sink is cut back to ([format.Aborter])
// before the rows after it are taken out. Its error is the failure's
// concern no more.
func (c *checkpointer) abort() { _ = c.settle() }

// finish takes the final checkpoint and returns when it has committed.
func (c *checkpointer) finish() error {
	if err := c.settle(); err != nil {
		return err
	}
	done, err := c.start(true, false)
	if err != nil {
		return err
	}
	return c.committed(done)
}

// start writes, in one transaction, the state and timers of every PTF
// call, the last rows of every normaliser, the position of every source
// and the sink's progress. A final checkpoint at the end of input also
// marks the statement finished. With async the store may commit the
// transaction in the background ([state.UpdateAsync]), and the checkpoint
// counts only once committed says so; until then every other use of the
// store waits for that commit.
func (c *checkpointer) start(final, async bool) (*state.Commit, error) {
	ex := c.ex
	finished := final && ex.Opts.EndOfInput
	if !finished {
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
			if err := nz.Checkpoint(tx, finished); err != nil {
				return err
			}
		}
		for _, op := range ex.Stateful {
			if err := op.Checkpoint(tx, finished, final); err != nil {
				return err
			}
		}
		for _, src := range ex.Sources {
			if err := src.Checkpoint(tx, finished, final); err != nil {
				return err
			}
		}
		if cs, ok := c.sink.(CheckpointSink); ok {
			if err := cs.Checkpoint(tx); err != nil {
				return err
			}
		}
		if final && c.final != nil {
			return c.final(tx)
		}
		return nil
	}
	if !async {
		if err := c.store.Update(write); err != nil {
			return nil, fmt.Errorf("writing a checkpoint: %w", err)
		}
		return nil, nil
	}
	commit, err := state.UpdateAsync(c.store, write)
	if err != nil {
		return nil, fmt.Errorf("writing a checkpoint: %w", err)
	}
	return commit, nil
}

// committed waits for the commit of a checkpoint (nil: one that committed
// already) and tells the sink and the sources that it committed.
func (c *checkpointer) committed(commit *state.Commit) error {
	if commit != nil {
		if err := commit.Wait(); err != nil {
			return fmt.Errorf("writing a checkpoint: %w", err)
		}
	}
	if cs, ok := c.sink.(CheckpointSink); ok {
		cs.Committed()
	}
	for _, src := range c.ex.Sources {
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
