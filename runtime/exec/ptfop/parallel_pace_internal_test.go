package ptfop

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// paceMachine plays batches through a parPace as the coordinator does
// (take when inline asks, handed in order, a concurrent batch handed out
// parDepth-1 batches after it was taken) on a fake clock: a batch takes
// perBatch[mode] of wall time and uses cores[mode] cores of CPU.
type paceMachine struct {
	t        time.Time
	cpu      time.Duration
	perBatch [2]time.Duration
	cores    [2]float64
	queue    []*parWork // concurrent batches not handed out yet
}

func (m *paceMachine) run(p *parPace, batches int) string {
	var modes strings.Builder
	items := make([]parItem, parBatch)
	queue := m.queue
	defer func() { m.queue = queue }()
	for range batches {
		in := p.inline()
		if in && len(queue) > 0 {
			// an inline batch waits for the queue to be handed out
			for _, b := range queue {
				m.hand(p, b, false)
			}
			queue = queue[:0]
		}
		b := &parWork{items: items}
		b.mark = p.take(in)
		if in {
			modes.WriteByte('i')
			m.hand(p, b, true)
			continue
		}
		modes.WriteByte('c')
		queue = append(queue, b)
		if len(queue) == parDepth {
			m.hand(p, queue[0], false)
			queue = queue[1:]
		}
	}
	return modes.String()
}

func (m *paceMachine) hand(p *parPace, b *parWork, inTurn bool) {
	k := mode(inTurn)
	m.t = m.t.Add(m.perBatch[k])
	m.cpu += time.Duration(float64(m.perBatch[k]) * m.cores[k])
	p.handed(b.mark, len(b.items), false)
}

func newPaceMachine(setting string, m *paceMachine) *parPace {
	p := newParPace(setting, func() time.Time { return m.t }, func() (time.Duration, bool) { return m.cpu, true })
	return &p
}

// TestParPace: concurrent batches that keep two cores busy are probed in
// turn once, and run on when faster; on a busy machine (few cores used) the pace probes, runs
// the faster, and comes back to measure the other; fixed settings run one
// way only.
func TestParPace(t *testing.T) {
	ms := time.Millisecond
	t.Run("idle", func(t *testing.T) {
		m := &paceMachine{perBatch: [2]time.Duration{10 * ms, 15 * ms}, cores: [2]float64{1.9, 1.1}}
		p := newPaceMachine("auto", m)
		got := m.run(p, 500)
		// one probe in turn, the first comparison; then concurrent only
		i, n := strings.Index(got, "i"), strings.Count(got, "i")
		if i < 0 || n > 32 || strings.Contains(got[i+n:], "i") || p.Batches != 500 {
			t.Errorf("on an idle machine, not one probe in turn and then concurrent: %s", got)
		}
	})
	t.Run("idle, in turn faster", func(t *testing.T) {
		// a row filter: two busy cores hand out slower than one
		m := &paceMachine{perBatch: [2]time.Duration{12 * ms, 9 * ms}, cores: [2]float64{1.8, 1.1}}
		p := newPaceMachine("auto", m)
		got := m.run(p, 500)
		if float64(p.InTurn) < 0.8*float64(p.Batches) {
			t.Errorf("ran %d of %d batches in turn, though in turn is faster: %s", p.InTurn, p.Batches, got)
		}
	})
	t.Run("busy", func(t *testing.T) {
		// concurrent 3x slower, with 0.3 cores; in turn gets 0.4 cores:
		// concurrent is not measured again
		m := &paceMachine{perBatch: [2]time.Duration{30 * ms, 10 * ms}, cores: [2]float64{0.3, 0.4}}
		p := newPaceMachine("auto", m)
		got := m.run(p, 1000)
		if i := strings.IndexByte(got, 'i'); i < 0 || strings.Contains(got[i:], "c") {
			t.Errorf("in turn is not kept to: %s", got)
		}
	})
	t.Run("busy, a core spare", func(t *testing.T) {
		// the same, but in turn gets a core: concurrent is measured
		// again, less and less often
		m := &paceMachine{perBatch: [2]time.Duration{30 * ms, 10 * ms}, cores: [2]float64{0.3, 1.1}}
		p := newPaceMachine("auto", m)
		got := m.run(p, 1000)
		if p.InTurn < 900 {
			t.Errorf("in turn %d of %d batches, want most: %s", p.InTurn, p.Batches, got)
		}
		if runs := strings.FieldsFunc(got, func(r rune) bool { return r == 'i' }); len(runs) < 3 {
			t.Errorf("concurrent measured %d times, want again after each stretch: %s", len(runs), got)
		}
		growing(t, got, "c")
	})
	t.Run("tie", func(t *testing.T) {
		// concurrent 5 % faster: not enough
		m := &paceMachine{perBatch: [2]time.Duration{19 * ms, 20 * ms}, cores: [2]float64{1.2, 1.1}}
		p := newPaceMachine("auto", m)
		if got := m.run(p, 1000); p.InTurn < 900 {
			t.Errorf("in turn %d of %d batches, want most: %s", p.InTurn, p.Batches, got)
		}
	})
	t.Run("busy, concurrent faster", func(t *testing.T) {
		m := &paceMachine{perBatch: [2]time.Duration{10 * ms, 20 * ms}, cores: [2]float64{1.2, 0.9}}
		p := newPaceMachine("auto", m)
		got := m.run(p, 1000)
		if p.InTurn == 0 || p.InTurn > 100 {
			t.Errorf("in turn %d of %d batches, want a few probes: %s", p.InTurn, p.Batches, got)
		}
		growing(t, got, "i")
	})
	t.Run("load changes", func(t *testing.T) {
		m := &paceMachine{perBatch: [2]time.Duration{30 * ms, 10 * ms}, cores: [2]float64{0.3, 1.1}}
		p := newPaceMachine("auto", m)
		m.run(p, 200)
		m.perBatch, m.cores = [2]time.Duration{10 * ms, 15 * ms}, [2]float64{1.9, 1.1}
		got := m.run(p, 3000)
		if !strings.HasSuffix(got, strings.Repeat("c", 1000)) {
			t.Errorf("did not go back to concurrent once the machine was idle: %s", got)
		}
	})
	t.Run("load rises", func(t *testing.T) {
		m := &paceMachine{perBatch: [2]time.Duration{10 * ms, 15 * ms}, cores: [2]float64{1.9, 1.1}}
		p := newPaceMachine("auto", m)
		m.run(p, 300)
		m.perBatch, m.cores = [2]time.Duration{30 * ms, 10 * ms}, [2]float64{0.3, 0.4}
		got := m.run(p, 300)
		if i := strings.IndexByte(got, 'i'); i < 0 || i > 30 || strings.Contains(got[i:], "c") {
			t.Errorf("did not go in turn once the machine was busy: %s", got)
		}
	})
	for _, c := range []struct {
		setting string
		want    byte
	}{{"concurrent", 'c'}, {"in-turn", 'i'}} {
		t.Run(c.setting, func(t *testing.T) {
			m := &paceMachine{perBatch: [2]time.Duration{30 * ms, 10 * ms}, cores: [2]float64{0.3, 0.4}}
			if c.setting == "in-turn" {
				m.perBatch = [2]time.Duration{10 * ms, 30 * ms}
			}
			p := newPaceMachine(c.setting, m)
			if got := m.run(p, 300); got != strings.Repeat(string(c.want), 300) {
				t.Errorf("%s ran %s", c.setting, got)
			}
		})
	}
}

// growing checks that the stretches between the probes of got (runs
// split by sep) grow.
func growing(t *testing.T, got, sep string) {
	t.Helper()
	runs := strings.FieldsFunc(got, func(r rune) bool { return string(r) == sep })
	if len(runs) < 3 {
		t.Fatalf("%d stretches: %s", len(runs), got)
	}
	for i := 2; i < len(runs)-1; i++ { // the first includes the probe, the last is cut short
		if len(runs[i]) <= len(runs[i-1]) {
			t.Errorf("stretch %d has %d batches, the one before %d: %s", i, len(runs[i]), len(runs[i-1]), got)
		}
	}
}

// TestParallel_notesInTurn: a call whose pace ran batches in turn says so
// (docs/parallelism.md shows the note); fixed settings and calls that
// ran every batch concurrently say nothing.
func TestParallel_notesInTurn(t *testing.T) {
	p := &Parallel{main: &Operator{node: &Node{Fn: "KeyedCount"}}, workers: make([]*Operator, 2)}
	p.pace = newParPace("auto", time.Now, processCPU)
	p.pace.Batches = 245
	if got := p.Notes(); len(got) != 0 {
		t.Errorf("notes of a call that ran concurrently: %q", got)
	}
	p.pace.InTurn = 197
	want := "note: KeyedCount: its 2 workers took turns on one thread for 197 of 245 batches of rows, as that ran faster than a thread each (a busy machine, or a function cheaper than handing rows over; ptfsh.parallel.workers)"
	if got := p.Notes(); len(got) != 1 || got[0] != want {
		t.Errorf("notes: %q, want %q", got, want)
	}
	p.pace = newParPace("in-turn", time.Now, processCPU)
	p.pace.Batches, p.pace.InTurn = 245, 245
	if got := p.Notes(); len(got) != 0 {
		t.Errorf("notes with 'in-turn' set: %q", got)
	}
}

// TestParallel_catchUp: after the main operator ran events itself, the
// workers take its event time, each with slices of its own.
func TestParallel_catchUp(t *testing.T) {
	m := &Operator{ended: []bool{true, false}}
	m.eventClock = eventClock{wm: 42, hasWM: true, inWM: []int64{42, 50}, inHas: []bool{true, true}, inIdle: []bool{false, true}, SawWM: true, EndFire: 3}
	w := &Operator{ended: make([]bool, 2)}
	w.eventClock = eventClock{wm: 7, inWM: []int64{7, 0}, inHas: []bool{true, false}}
	p := &Parallel{main: m, workers: []*Operator{w}, behind: true}
	p.catchUp()
	want := m.eventClock
	want.EndFire = 0
	if !reflect.DeepEqual(w.eventClock, want) || !reflect.DeepEqual(w.ended, m.ended) || p.behind {
		t.Errorf("worker's clock %+v, ended %v; want %+v, %v", w.eventClock, w.ended, want, m.ended)
	}
	w.inWM[0] = 99
	if m.inWM[0] != 42 {
		t.Error("the worker's watermarks are the main operator's slice")
	}
}
