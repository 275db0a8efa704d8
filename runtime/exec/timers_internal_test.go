package exec

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
