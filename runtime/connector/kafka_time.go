package connector

import (
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// kafkaTime is a Kafka source's event time, as Flink's Kafka source keeps
// it: a watermark generator per partition (the table's WATERMARK over
// that partition's records), combined by a split valve ([exec.NewSplitValve]:
// the least watermark of the partitions that are not idle), and each
// partition's idleness. A partition without records for
// table.exec.source.idle-timeout (processing time) is idle and holds
// nothing back until its next record; when every partition is idle the
// source says so downstream (EvStatus). A bounded read's partition that
// reached its end holds nothing back either. The combined watermark goes
// out at most once per pipeline.auto-watermark-interval of an unbounded
// read (wmPace); a bounded read emits it after the row that moved it.
type kafkaTime struct {
	ex    *exec.Execution
	index map[kafka.TP]int
	gens  []*exec.WmGen // nil without a WATERMARK
	valve *exec.Valve
	// pending is a combined watermark that moved and has not gone out.
	pending bool
	next    int64
	pace    wmPace
	// restored: the pending watermark is the one the source had emitted
	// before the checkpoint a restarted run resumes from; it goes out
	// before any row, as Restored.
	restored bool

	// timeout is table.exec.source.idle-timeout (0: never idle).
	timeout time.Duration
	// last is the processing time when each partition last had a record
	// (or the source opened), noted at the checks; got marks those that
	// had one since the last check.
	last []int64
	got  []bool
	// done marks the partitions of a bounded read that reached their end.
	done []bool
	// idle: the source said it is idle (every partition is).
	idle bool
	// sinceCheck counts the records since the last idleness check.
	sinceCheck int
}

// idleCheckEvery is how many records of an unbounded read go between two
// idleness checks while records come (one partition may have them and
// another none).
const idleCheckEvery = 256

func newKafkaTime(ex *exec.Execution, tps []kafka.TP, wm *exec.WatermarkSpec, every int64, env Env) *kafkaTime {
	k := &kafkaTime{ex: ex, index: make(map[kafka.TP]int, len(tps)), valve: exec.NewSplitValve(len(tps)),
		gens: make([]*exec.WmGen, len(tps)), pace: wmPace{every: env.WatermarkInterval}, timeout: env.IdleTimeout,
		last: make([]int64, len(tps)), got: make([]bool, len(tps)), done: make([]bool, len(tps))}
	now := ex.Now()
	for i, tp := range tps {
		k.index[tp] = i
		k.gens[i] = exec.NewWMGen(wm, every)
		k.last[i] = now
	}
	return k
}

// observe takes a row of partition p: its generator's watermark goes to
// the valve, and a combined watermark that moves is pending.
func (k *kafkaTime) observe(p int, r types.Row) {
	if w, ok := k.gens[p].Observe(r); ok {
		if wm, moved := k.valve.Watermark(p, w); moved {
			k.pending, k.next = true, wm
		}
	}
}

// record notes that partition p has a record; it returns the event that
// makes an idle source active again, which goes before the record's rows.
func (k *kafkaTime) record(p int) (exec.Event, bool) {
	k.got[p] = true
	k.sinceCheck++
	if !k.valve.InputIdle(p) {
		return exec.Event{}, false
	}
	k.valve.SetIdle(p, false)
	if k.idle && !k.valve.Idle() {
		k.idle = false
		return exec.Event{Kind: exec.EvStatus}, true
	}
	return exec.Event{}, false
}

// finish marks partition p of a bounded read at its end: it holds nothing
// back from now on.
func (k *kafkaTime) finish(p int) {
	k.done[p] = true
	if wm, moved := k.valve.Finish(p); moved {
		k.pending, k.next = true, wm
	}
}

// due reports whether the pending watermark may go out now.
func (k *kafkaTime) due(bounded bool) bool {
	return k.pending && (bounded || k.restored || k.pace.due())
}

// emit takes the pending watermark.
func (k *kafkaTime) emit() exec.Event {
	restored := k.restored
	k.pending, k.restored = false, false
	k.pace.emitted()
	return exec.WatermarkEvent(k.next, restored)
}

// checkIdle marks the partitions idle that had no record for the
// timeout; it returns the event that says the source is idle when every
// partition is. When a partition may become idle later, it asks the
// driver to pull again then (the caller is about to return EvIdle).
func (k *kafkaTime) checkIdle(wake bool) (exec.Event, bool) {
	k.sinceCheck = 0
	if k.timeout <= 0 {
		return exec.Event{}, false
	}
	now := k.ex.Now()
	timeout := k.timeout.Milliseconds()
	next := int64(-1)
	for p := range k.last {
		if k.got[p] {
			k.got[p], k.last[p] = false, now
		}
		if k.valve.InputIdle(p) {
			continue
		}
		if due := k.last[p] + timeout; now >= due {
			if wm, moved := k.valve.SetIdle(p, true); moved {
				k.pending, k.next = true, wm
			}
		} else if next < 0 || due < next {
			next = due
		}
	}
	if k.valve.Idle() && !k.idle {
		k.idle = true
		return exec.StatusEvent(true), true
	}
	if wake && next >= 0 {
		k.ex.Live().WakeAt(time.Now().Add(time.Duration(next-now) * time.Millisecond))
	}
	return exec.Event{}, false
}

// kafkaWM is what a checkpoint keeps of a Kafka source's event time: each
// partition's generator ("topic/partition": state), and the combined
// watermark that is due.
type kafkaWM struct {
	Partitions map[string]exec.WmState `json:"partitions"`
	Pending    bool                    `json:"pending"`
	Next       int64                   `json:"next"`
}

// state returns the event time for a checkpoint; nil without a WATERMARK.
func (k *kafkaTime) state(tps []kafka.TP) *kafkaWM {
	if len(k.gens) == 0 || k.gens[0] == nil {
		return nil
	}
	w := &kafkaWM{Partitions: make(map[string]exec.WmState, len(tps)), Pending: k.pending, Next: k.next}
	for _, tp := range tps {
		w.Partitions[tp.String()] = k.gens[k.index[tp]].State()
	}
	return w
}

// restore takes the event time of a checkpoint back: each partition's
// generator, and its last watermark into the valve, every partition
// active (as a restored Flink source's splits are). A partition the
// checkpoint lacks (added since) starts afresh.
func (k *kafkaTime) restore(tps []kafka.TP, w *kafkaWM) {
	if w == nil || len(k.gens) == 0 || k.gens[0] == nil {
		return
	}
	for _, tp := range tps {
		st, ok := w.Partitions[tp.String()]
		if !ok {
			continue
		}
		p := k.index[tp]
		k.gens[p].Restore(st)
		if st.Has {
			k.valve.Watermark(p, st.Emitted)
		}
	}
	k.pending, k.next = w.Pending, w.Next
	if !k.pending && k.valve.Current() != exec.MinWatermark {
		k.pending, k.next, k.restored = true, k.valve.Current(), true
	}
}
