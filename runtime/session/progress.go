package session

import (
	"fmt"
	"io"
	"time"
)

// progress shows, on a terminal (Config.Timing), how far a long run is: a
// line of rows read and out, rewritten in place at most once a second,
// and cleared before anything else is printed.
type progress struct {
	w     io.Writer
	on    bool
	start time.Time
	last  time.Time // when the line was last written
	shown bool      // the line is on the screen
}

func newProgress(w io.Writer, on bool, start time.Time) *progress {
	return &progress{w: w, on: on, start: start, last: start}
}

// tick rewrites the line when a second has passed; it looks at the clock
// once every 65,536 rows out.
func (p *progress) tick(in, out int64) {
	if !p.on || out&0xffff != 0 || time.Since(p.last) <= time.Second {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r%d rows read, %d rows out, %.0f s ", in, out, time.Since(p.start).Seconds())
	p.shown = true
}

// clear takes the line off the screen.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
