package connector

import (
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// pacer makes generated rows come at a pace (rows-per-second): row k is
// due k/rate seconds after the first, so a slow consumer does not make the
// rows come faster later. The pace is wall-clock time: a source whose
// processing-time clock is fixed (SET 'ptfsh.processing-time') has no
// pacer.
type pacer struct {
	rate  int64
	made  int64     // rows made so far
	start time.Time // when the first row was made
}

// wait waits until the next row is due. Cancelling the statement stops the
// wait.
func (p *pacer) wait(ex *exec.Execution) error {
	if p.rate <= 0 {
		return nil
	}
	if p.made == 0 {
		p.start = time.Now()
	}
	due := p.start.Add(time.Duration(float64(p.made) / float64(p.rate) * float64(time.Second)))
	p.made++
	wait := time.Until(due)
	if wait <= 0 {
		return nil
	}
	var done <-chan struct{}
	if ex.Ctx != nil {
		done = ex.Ctx.Done()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-done:
		return exec.ErrCancelled
	}
}
