package session

import (
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// TestCheckpointer_Due_interval: a checkpoint becomes due by time once the
// interval's timer has fired, not before; a new arming (a checkpoint
// taken) makes it not due, and a late firing of an earlier arming counts
// for nothing. By rows it is due every CheckpointRows source rows.
func TestCheckpointer_Due_interval(t *testing.T) {
	ex := &exec.Execution{Opts: exec.Options{CheckpointRows: 100, CheckpointInterval: time.Hour}}
	c := newCheckpointer(nil, ex, nil, nil)
	defer c.stop()
	if ex.Checkpoints != c {
		t.Fatal("the checkpointer is not the execution's policy")
	}
	if c.Due(0) || c.Due(99) {
		t.Fatal("due before the rows or the interval")
	}
	if !c.Due(100) {
		t.Fatal("not due after CheckpointRows rows")
	}
	c.last = 100
	if c.Due(150) {
		t.Fatal("due 50 rows after the last checkpoint")
	}
	c.fired.Store(c.armed) // the hour has passed
	if !c.Due(150) {
		t.Fatal("not due once the interval's timer fired")
	}
	c.arm() // a checkpoint was taken
	if c.Due(150) {
		t.Fatal("due right after a checkpoint")
	}
	c.fired.Store(c.armed - 1) // the earlier arming's timer fires late
	if c.Due(150) {
		t.Fatal("a stale firing made a checkpoint due")
	}
}

// TestCheckpointer_Due_timer: the interval's timer itself makes a
// checkpoint due (a short interval; the test waits for the timer, as long
// as the machine needs).
func TestCheckpointer_Due_timer(t *testing.T) {
	ex := &exec.Execution{Opts: exec.Options{CheckpointInterval: time.Millisecond}}
	c := newCheckpointer(nil, ex, nil, nil)
	defer c.stop()
	deadline := time.Now().Add(time.Minute)
	for !c.Due(0) {
		if time.Now().After(deadline) {
			t.Fatal("the interval's timer never made a checkpoint due")
		}
		time.Sleep(time.Millisecond)
	}
	c.interval = time.Hour
	c.arm()
	if c.Due(0) {
		t.Fatal("due right after a checkpoint with an interval of an hour")
	}
}
