package ptfop

import (
	"errors"
	"fmt"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/state"
)

// timer is one registered event-time timer of one partition key.
type timer struct {
	time  int64
	ks    *keyState
	name  string
	named bool
	seq   uint64
	dead  bool // replaced or cleared
	index int  // its place in timerQueue, -1 once out of it
	// gseq is the timer's place in the registration order of the whole
	// call when it runs on several workers (parallel.go): seq counts one
	// worker's registrations, gseq what seq is at parallelism 1. The
	// coordinator sets it, and only it reads it.
	gseq uint64
}

// timerQueue orders timers by time, then by registration: a binary heap
// with its operations written out for *timer (container/heap's interface
// calls cost a tenth of an event-time workload).
type timerQueue []*timer

func (q timerQueue) Len() int { return len(q) }
func (q timerQueue) less(i, j int) bool {
	if q[i].time != q[j].time {
		return q[i].time < q[j].time
	}
	return q[i].seq < q[j].seq
}
func (q timerQueue) swap(i, j int) { q[i], q[j] = q[j], q[i]; q[i].index = i; q[j].index = j }
func (q timerQueue) peek() *timer  { return q[0] }

// push adds t.
func (q *timerQueue) push(t *timer) {
	t.index = len(*q)
	*q = append(*q, t)
	q.up(len(*q) - 1)
}

// popTimer removes and returns the first timer.
func (q *timerQueue) popTimer() *timer {
	old := *q
	n := len(old) - 1
	old.swap(0, n)
	t := old[n]
	old[n] = nil
	*q = old[:n]
	q.down(0)
	t.index = -1
	return t
}

// remove takes the timer at place i out of the queue.
func (q *timerQueue) remove(i int) {
	old := *q
	n := len(old) - 1
	if i != n {
		old.swap(i, n)
	}
	t := old[n]
	old[n] = nil
	*q = old[:n]
	if i != n {
		q.down(i)
		q.up(i)
	}
	t.index = -1
}

// init orders a queue built in any order.
func (q timerQueue) init() {
	for i := range q {
		q[i].index = i
	}
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

func (q timerQueue) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !q.less(j, i) {
			break
		}
		q.swap(i, j)
		j = i
	}
}

func (q timerQueue) down(i int) {
	n := len(q)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && q.less(r, j) {
			j = r
		}
		if !q.less(j, i) {
			return
		}
		q.swap(i, j)
		i = j
	}
}

// timerService holds the timers of one PTF call site: a queue by time and,
// per key, the named timers by name and the unnamed ones by time.
type timerService struct {
	q   timerQueue
	seq uint64
	n   int // live timers
	// logging: register adds the timers it makes to log, in order (a
	// parallel worker's, for the coordinator to number them).
	logging bool
	log     []*timer
	// free holds timers that nothing refers to any more (popped from q
	// after they were cleared, or fired), for register to reuse: an
	// event-time function that registers a timer per row would otherwise
	// allocate one per row. A logging service (a parallel worker's, whose
	// log and records keep its timers) frees none.
	free []*timer
}

// maxFreeTimers bounds the timers a service keeps for reuse.
const maxFreeTimers = 1024

// newTimer returns a timer, reused or new.
func (s *timerService) newTimer() *timer {
	if n := len(s.free); n > 0 {
		t := s.free[n-1]
		s.free[n-1] = nil
		s.free = s.free[:n-1]
		return t
	}
	return &timer{}
}

// release hands back a timer that nothing refers to any more: neither the
// queue, nor its key's maps, nor a call.
func (s *timerService) release(t *timer) {
	if s.logging || len(s.free) >= maxFreeTimers {
		return
	}
	*t = timer{}
	s.free = append(s.free, t)
}

// register adds a timer, replacing a named timer of the same name; an
// unnamed timer at a time already registered is not added twice.
func (s *timerService) register(ks *keyState, name string, named bool, ts int64) {
	if ks.named == nil {
		ks.named, ks.unnamed = map[string]*timer{}, map[int64]*timer{}
	}
	if named {
		if old, ok := ks.named[name]; ok {
			if old.time == ts {
				return
			}
			s.kill(old)
		}
	} else if _, ok := ks.unnamed[ts]; ok {
		return
	}
	s.seq++
	t := s.newTimer()
	t.time, t.ks, t.name, t.named, t.seq = ts, ks, name, named, s.seq
	if named {
		ks.named[name] = t
	} else {
		ks.unnamed[ts] = t
	}
	s.q.push(t)
	s.n++
	ks.dirty = true
	if s.logging {
		s.log = append(s.log, t)
	}
}

// kill marks t dead and drops it from its key's maps; a timer still in
// the queue leaves it at once, for reuse (release). An event-time function
// that moves a deadline on every row left a dead timer a row in the queue
// until the watermark passed it: the flights alert's queue held thousands
// for its 300 live ones, and a tenth of its time went to ordering them.
func (s *timerService) kill(t *timer) {
	if t.dead {
		return
	}
	t.dead = true
	s.n--
	if t.named {
		delete(t.ks.named, t.name)
	} else {
		delete(t.ks.unnamed, t.time)
	}
	t.ks.dirty = true
	if i := t.index; i >= 0 && i < len(s.q) && s.q[i] == t {
		s.q.remove(i)
		s.release(t)
	}
}

// clear removes the named timer, or the unnamed one at ts.
func (s *timerService) clear(ks *keyState, name string, named bool, ts int64) {
	if named {
		if t, ok := ks.named[name]; ok {
			s.kill(t)
		}
		return
	}
	if t, ok := ks.unnamed[ts]; ok {
		s.kill(t)
	}
}

// clearKey removes every timer of a key.
func (s *timerService) clearKey(ks *keyState) {
	for _, t := range ks.named {
		s.kill(t)
	}
	for _, t := range ks.unnamed {
		s.kill(t)
	}
}

// Next pops the earliest live timer due at watermark wm. The caller hands
// it back with release once its call is over.
func (s *timerService) Next(wm int64) *timer {
	for s.q.Len() > 0 {
		t := s.q.peek()
		if t.dead {
			s.release(s.q.popTimer())
			continue
		}
		if t.time > wm {
			return nil
		}
		s.q.popTimer()
		s.kill(t)
		return t
	}
	return nil
}

// timerKey encodes a timer as partition key, time, kind and name, so that
// a key's timers are adjacent and in time order.
func timerKey(t *timer) []byte {
	b := append([]byte(nil), t.ks.enc...)
	b = orderedcode.AppendString(b, "\x00timer")
	b = orderedcode.AppendInt64(b, t.time)
	b = orderedcode.AppendBool(b, t.named)
	return orderedcode.AppendString(b, t.name)
}

// saveTimers replaces the stored timers of uid with the live ones.
func (s *timerService) save(tx state.Tx, uid string) error {
	ns := exec.TimerNamespace(uid)
	if err := tx.DeleteNamespace(ns); err != nil {
		return err
	}
	return s.put(tx, uid, false)
}

// put writes the live timers of uid, adding to those stored; global: their
// order of registration is gseq (a parallel worker's timers), not seq.
func (s *timerService) put(tx state.Tx, uid string, global bool) error {
	ns := exec.TimerNamespace(uid)
	for _, t := range s.q {
		if t.dead {
			continue
		}
		v := make([]byte, 0, 16+len(t.ks.enc))
		v = orderedcode.AppendUint64(v, uint64(len(t.ks.enc)))
		v = append(v, t.ks.enc...)
		seq := t.seq
		if global {
			seq = t.gseq
		}
		v = orderedcode.AppendUint64(v, seq) // the order of registration, for timers of one time
		if err := tx.Put(ns, timerKey(t), v); err != nil {
			return err
		}
	}
	return nil
}

// loadTimers reads the stored timers of uid; key resolves a partition key's
// encoding to its live key state.
func (s *timerService) load(tx state.Tx, uid string, key func(enc []byte) (*keyState, error)) error {
	var maxSeq uint64
	err := tx.Scan(exec.TimerNamespace(uid), nil, func(k, v []byte) error {
		enc, name, ts, named, err := DecodeTimerEntry(k, v)
		if err != nil {
			return fmt.Errorf("corrupt timer entry of %s: %w", uid, err)
		}
		ks, err := key(enc)
		if err != nil {
			return err
		}
		s.register(ks, name, named, ts)
		if seq := timerSeq(v, enc); seq > 0 {
			t := ks.unnamed[ts]
			if named {
				t = ks.named[name]
			}
			t.seq = seq
			maxSeq = max(maxSeq, seq)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Timers of one time fire in the order they were registered, as in a
	// run that was never stopped.
	s.q.init()
	s.seq = max(s.seq, maxSeq)
	return nil
}

// timerSeq reads the registration order stored after a timer's key (0 in
// entries written before it was kept).
func timerSeq(v, enc []byte) uint64 {
	d := orderedcode.NewDecoder(v)
	if _, err := d.Uint64(); err != nil {
		return 0
	}
	rest := d.Rest()
	if len(rest) < len(enc)+1 {
		return 0
	}
	d = orderedcode.NewDecoder(rest[len(enc):])
	seq, err := d.Uint64()
	if err != nil {
		return 0
	}
	return seq
}

// DecodeTimerEntry reads a stored timer: its key's encoding, name, time and
// whether it is named.
func DecodeTimerEntry(k, v []byte) (enc []byte, name string, ts int64, named bool, err error) {
	d := orderedcode.NewDecoder(v)
	n, err := d.Uint64()
	if err != nil || int(n) > len(d.Rest()) || int(n) > len(k) {
		return nil, "", 0, false, fmt.Errorf("bad key length")
	}
	enc = append([]byte(nil), d.Rest()[:n]...)
	d = orderedcode.NewDecoder(k[len(enc):])
	if _, err := d.String(); err != nil {
		return nil, "", 0, false, err
	}
	ts, err1 := d.Int64()
	named, err2 := d.Bool()
	name, err3 := d.String()
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, "", 0, false, err
	}
	return enc, name, ts, named, nil
}
