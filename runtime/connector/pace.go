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

// ready reports whether the next row is due, and counts it when it is;
// when it is not, it asks the driver to pull again at its time: a paced
// source never blocks (exec.Live).
func (p *pacer) ready(ex *exec.Execution) bool {
	if p.rate <= 0 {
		return true
	}
	if p.made == 0 {
		p.start = time.Now()
	}
	due := p.start.Add(time.Duration(float64(p.made) / float64(p.rate) * float64(time.Second)))
	if time.Until(due) > 0 {
		ex.Live().WakeAt(due)
		return false
	}
	p.made++
	return true
}
