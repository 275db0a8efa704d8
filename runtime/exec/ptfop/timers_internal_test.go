package ptfop

import (
	"math/rand/v2"
	"testing"
)

// TestTimerQueue: timers come out by time, then in the order they were
// registered, whether pushed one by one or ordered at once (init).
func TestTimerQueue(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var q, bulk timerQueue
		n := r.IntN(200)
		for i := range n {
			tm := &timer{time: int64(r.IntN(20)), seq: uint64(i + 1)}
			q.push(tm)
			bulk = append(bulk, &timer{time: tm.time, seq: tm.seq})
		}
		bulk.init()
		for _, qq := range []*timerQueue{&q, &bulk} {
			var last *timer
			for k := 0; qq.Len() > 0; k++ {
				for i, x := range *qq {
					if x.index != i {
						t.Fatalf("round %d: timer at %d has index %d", round, i, x.index)
					}
				}
				tm := qq.popTimer()
				if last != nil && (tm.time < last.time || tm.time == last.time && tm.seq < last.seq) {
					t.Fatalf("round %d: %d/%d came after %d/%d", round, tm.time, tm.seq, last.time, last.seq)
				}
				last = tm
			}
		}
	}
}

// TestTimerService_reuse: timers popped after they were cleared, and
// timers fired and released, are reused by later registrations, and the
// queue still fires the live ones in order, each once.
func TestTimerService_reuse(t *testing.T) {
	var s timerService
	keys := make([]*keyState, 5)
	for i := range keys {
		keys[i] = &keyState{}
	}
	r := rand.New(rand.NewPCG(5, 6))
	live := map[*keyState]int64{} // the unnamed timer each key holds
	wm, fired := int64(0), 0
	for step := range 20_000 {
		ks := keys[r.IntN(len(keys))]
		ts := wm + 1 + int64(r.IntN(50))
		if old, ok := live[ks]; ok && old > wm {
			s.clear(ks, "", false, old)
			delete(live, ks)
		}
		s.register(ks, "", false, ts)
		live[ks] = ts
		if step%7 == 0 {
			wm += int64(r.IntN(20))
			last := int64(-1)
			for tm := s.Next(wm); tm != nil; tm = s.Next(wm) {
				if tm.time < last || tm.time > wm || live[tm.ks] != tm.time {
					t.Fatalf("step %d: fired %d (last %d, watermark %d, key holds %d)", step, tm.time, last, wm, live[tm.ks])
				}
				last = tm.time
				delete(live, tm.ks)
				fired++
				s.release(tm)
			}
		}
	}
	if fired == 0 || len(s.free) == 0 {
		t.Fatalf("fired %d, %d timers free", fired, len(s.free))
	}
	if s.n != len(live) {
		t.Fatalf("%d live timers counted, %d held", s.n, len(live))
	}
	// A cleared timer leaves the queue at once: it holds the live ones.
	if s.q.Len() != len(live) {
		t.Fatalf("the queue holds %d timers for %d live", s.q.Len(), len(live))
	}
	for i, x := range s.q {
		if x.index != i || x.dead {
			t.Fatalf("timer at %d: index %d, dead %v", i, x.index, x.dead)
		}
	}
}

// BenchmarkTimerService registers a timer per row as the flights alert
// does (300 keys; each row clears its key's pending timer and registers
// one two hours on), with the watermark firing what came due.
func BenchmarkTimerService(b *testing.B) {
	const hour = 3_600_000
	keys := make([]*keyState, 300)
	for i := range keys {
		keys[i] = &keyState{}
	}
	var s timerService
	pending := make([]int64, len(keys))
	ts := int64(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := (i * 7919) % 300
		k = k * k / 300
		ts += int64(i*7919%61) * 1000
		ks := keys[k]
		if p := pending[k]; p != 0 && ts < p {
			s.clear(ks, "", false, p)
		}
		pending[k] = ts + 2*hour
		s.register(ks, "", false, pending[k])
		for t := s.Next(ts - 60_000); t != nil; t = s.Next(ts - 60_000) {
			s.release(t)
		}
	}
}
