package ptfop

import "time"

// How the batches of a parallel call run (parallel.go): concurrent, each
// worker's events on the worker's goroutine while the coordinator reads
// the next batch and hands out and prints the one before; or in turn, the
// coordinator running the workers' events itself, worker after worker,
// between reading a batch and handing it out. In turn nothing waits for
// another goroutine, nor hands rows from one core to another: that is
// faster when the function costs less than handing its rows to a worker
// and back (a row filter), and when other processes keep the cores busy,
// so that each goroutine of a concurrent batch waits for a core and the
// others wait for it. The outputs are the same either way: the workers,
// their state and the hand-out do not change, only the goroutine that
// runs them.
//
// With 'ptfsh.parallel.workers' = 'auto', parPace measures which is
// faster and keeps to it. It times each batch from the hand-out of the
// one before to its own (reading, running, handing out and the printing
// of the batch before: the statement's speed), leaving out the first
// paceWarm batches of a phase (the pipeline fills or drains), for at
// least paceMinTimed (paceFirstTimed the first phase), and counts the
// cores the process used meanwhile. A call starts concurrent. While its
// concurrent batches keep paceBusyCores cores busy, they gain what a
// second core can give, and it goes on, once a first probe in turn (see
// below) found them faster. When they get less than
// paceSpareCores cores (the machine is busy), in turn does less work with
// what the machine gives, and it runs in turn. Otherwise (other processes
// hold some of the cores, or the workers wait for the coordinator) it
// probes: paceProbe batches in turn, timed, against the concurrent ones
// before them. The faster runs for a stretch of batches, which doubles
// each time the same wins, up to paceMaxStretch (concurrent batches are
// watched all along, window by window: when they get less than
// paceSpareCores cores they give way at once); a tie goes to in turn
// (concurrent must be paceEdge faster), which on a loaded machine is
// never much slower than one worker. After a stretch in turn, concurrent is measured again only if
// the batches in turn got paceSpareCores cores (the load of the machine
// changes); on a machine that gives the process less, a second core has
// nothing to gain. A decision waits for the timings of the batches it
// compares: a phase runs on in its mode until they are handed out.
//
// Only the wall clock decides which goroutine runs a batch, never what it
// outputs.

const (
	paceWarm = 2 // batches of a phase not timed
	// paceMinTimed is the least time a phase is timed for: on a loaded
	// machine a few batches take a few of its time slices, whose luck
	// would decide.
	paceMinTimed   = 200 * time.Millisecond
	paceFirstTimed = 50 * time.Millisecond // the first phase's
	paceProbe      = 8                     // batches of a probe
	paceStretch    = 32                    // batches of the first stretch after a probe
	paceMaxStretch = 1024                  // batches of the longest stretch
	// paceBusyCores: concurrent batches that kept this many cores busy
	// are not worth a probe in turn.
	paceBusyCores = 1.7
	// paceEdge: concurrent wins when it hands out this much faster.
	paceEdge = 1.1
	// paceSpareCores: batches in turn that got this many cores leave
	// room for concurrent ones to be measured again.
	paceSpareCores = 1.0
)

// paceTiming is what a phase's timed batches measured.
type paceTiming struct {
	events int64
	took   time.Duration // from the hand-out before to theirs
	cpu    time.Duration // the process's CPU time meanwhile (-1: unknown)
	n      int           // timed batches handed out
}

// cores is how many cores the process kept busy in the timed batches (0
// when unknown).
func (t paceTiming) cores() float64 {
	if t.took <= 0 || t.cpu < 0 {
		return 0
	}
	return t.cpu.Seconds() / t.took.Seconds()
}

// rate is events per second (0 when nothing was timed).
func (t paceTiming) rate() float64 {
	if t.took <= 0 {
		return 0
	}
	return float64(t.events) / t.took.Seconds()
}

// parPace chooses, batch by batch, how a parallel call's batches run (see
// above). It is the coordinator's.
type parPace struct {
	now   func() time.Time
	fixed int // paceAuto, paceConcurrent or paceInTurn

	inTurn  bool // the mode of the phase
	probe   bool // the phase is a probe (not a stretch)
	length  int  // batches of the phase
	taken   int  // batches of the phase taken so far
	timed   int  // of which timed
	phase   int  // counts the phases
	stretch int  // length of the next stretch
	won     int  // the mode that won the last comparison (-1: none yet)
	quiet   int  // concurrent batches to run before the next probe in turn
	// minTimed is the least time the phase is timed for: paceFirstTimed
	// for the first, which only asks how many cores concurrent batches
	// get, paceMinTimed for the others, which compare speeds
	minTimed time.Duration

	cur   paceTiming    // the phase's timed batches handed out
	other [2]paceTiming // the last complete timing of each mode (0: concurrent)
	prev  int           // the mode of the phase before (-1: none)

	last    time.Time     // the last hand-out
	lastCPU time.Duration // the process's CPU time then (-1: unknown)
	cpu     func() (time.Duration, bool)

	// Batches and InTurn count the batches taken and those run in turn.
	Batches, InTurn int64
}

const (
	paceAuto = iota
	paceConcurrent
	paceInTurn
)

func newParPace(setting string, now func() time.Time, cpu func() (time.Duration, bool)) parPace {
	p := parPace{now: now, cpu: cpu, length: paceProbe, probe: true, stretch: paceStretch, won: -1, prev: -1, minTimed: paceFirstTimed}
	switch setting {
	case "concurrent":
		p.fixed = paceConcurrent
	case "in-turn":
		p.fixed, p.inTurn = paceInTurn, true
	}
	return p
}

func mode(inTurn bool) int {
	if inTurn {
		return 1
	}
	return 0
}

// inline says whether the next batch runs in turn. At the end of a phase
// it decides the next one, once the timings it needs have come.
func (p *parPace) inline() bool {
	if p.fixed != paceAuto || p.taken < p.length || p.cur.n < p.timed || p.cur.took < p.minTimed {
		return p.inTurn
	}
	done := p.cur
	m := mode(p.inTurn)
	p.other[m] = done
	next, probe, length := p.inTurn, false, 0
	switch {
	case p.prev == 1-m && p.probe:
		// a probe after the other mode's phase: the faster runs on
		next = p.other[0].rate() < p.other[1].rate()*paceEdge
		if w := mode(next); w == p.won {
			p.stretch = min(2*p.stretch, paceMaxStretch)
		} else {
			p.won, p.stretch = w, paceStretch
		}
		length = p.stretch
		if !next {
			// concurrent, watched window by window; no probe in turn
			// for a stretch
			length, p.quiet = paceProbe, p.stretch
		}
	case p.inTurn && done.n > 0 && done.cores() < paceSpareCores:
		// in turn on a machine that gives less than a core: go on, for
		// longer
		p.stretch = min(2*p.stretch, paceMaxStretch)
		length = p.stretch
	case p.inTurn:
		// a stretch in turn ended: measure concurrent again
		next, probe, length = false, true, paceProbe
	case done.n > 0 && done.cores() < paceSpareCores:
		// concurrent, and the process got less than a core: in turn
		// does less work with what the machine gives
		next, length = true, p.stretch
	case done.n > 0 && (done.cores() < paceBusyCores || p.won < 0) && p.quiet <= 0:
		// concurrent, without the cores it needs, or never compared yet
		// (two busy cores may do less than one: a function cheaper than
		// the hand-out, such as a row filter): probe in turn
		next, probe, length = true, true, paceProbe
	default:
		// concurrent: watch the next window (that costs nothing: only a
		// probe in turn does)
		p.quiet -= p.taken
		length = paceProbe
	}
	p.prev, p.inTurn, p.probe, p.length = m, next, probe, length
	p.minTimed = paceMinTimed
	p.taken, p.timed, p.cur = 0, 0, paceTiming{}
	p.phase++
	return p.inTurn
}

// paceMark is what the pace noted of a batch it let run: the phase it ran
// in, and whether it is timed.
type paceMark struct {
	phase int
	timed bool
}

// take notes that the next batch runs, in turn or not (inline's answer).
func (p *parPace) take(inTurn bool) paceMark {
	p.Batches++
	if inTurn {
		p.InTurn++
	}
	k := paceMark{phase: p.phase}
	if p.fixed == paceAuto && p.taken >= paceWarm && (p.taken < p.length || p.cur.took < p.minTimed) {
		k.timed = true
		p.timed++
	}
	p.taken++
	return k
}

// handed notes that the batch of mark k, of events events, has been
// handed out; idle: it ended where a live input had nothing to read (its
// time says nothing of the speed).
func (p *parPace) handed(k paceMark, events int, idle bool) {
	if p.fixed != paceAuto {
		return
	}
	t := p.now()
	took := t.Sub(p.last)
	c, ok := p.cpu()
	used := c - p.lastCPU
	if !ok || p.lastCPU < 0 {
		used = -1
	}
	p.last, p.lastCPU = t, c
	if !ok {
		p.lastCPU = -1
	}
	if !k.timed || k.phase != p.phase {
		return
	}
	if idle {
		p.timed-- // it will not count
		return
	}
	p.cur.events += int64(events)
	p.cur.took += took
	if used < 0 || p.cur.cpu < 0 {
		p.cur.cpu = -1
	} else {
		p.cur.cpu += used
	}
	p.cur.n++
}
