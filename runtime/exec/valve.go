package exec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MinWatermark is the watermark before any: no event time has passed.
const MinWatermark = math.MinInt64

// A Valve combines the watermarks of several inputs — the inputs of a
// join, a union or a PTF call with several tables, or the splits of one
// source (the files of a folder, the partitions of a topic) — into one,
// by Flink's rules (StatusWatermarkValve):
//
//   - the combined watermark is the least watermark of the active inputs
//     that are aligned, and it only moves forward;
//   - an idle input (one that had no rows for table.exec.source.idle-timeout)
//     holds nothing back, and its watermarks are ignored while it is idle;
//   - an input that becomes active again holds the watermark back only
//     once its own has caught up with the combined one (it is aligned
//     again), so a late input never moves the watermark back;
//   - when every input is idle, the valve is idle, and its watermark
//     becomes the greatest of the inputs' watermarks, so that the final
//     watermark does not depend on the order in which they went idle;
//   - an input that ended (Finish) holds nothing back from then on, as a
//     finished Flink input's final watermark is the maximum.
//
// A valve made by NewSplitValve combines the splits of one source by the
// rules of Flink's per-split watermarks (WatermarkOutputMultiplexer)
// instead, which differ in two ways: a split back from idle holds the
// watermark back from its own watermark at once (there is no alignment),
// and when every split is idle the watermark stays where it is.
//
// A Valve belongs to one goroutine.
type Valve struct {
	ins   []valveInput
	out   int64 // the combined watermark last reported
	idle  bool  // every input idle
	split bool  // Flink's per-split rules (NewSplitValve)
}

type valveInput struct {
	wm      int64
	idle    bool
	aligned bool
	done    bool
}

// NewValve returns a valve of n inputs, all active, none with a watermark.
func NewValve(n int) *Valve {
	v := &Valve{out: MinWatermark}
	for range n {
		v.Add()
	}
	return v
}

// NewSplitValve returns a valve of n splits of one source (the partitions
// of a topic), all active, none with a watermark, that combines them as
// Flink's per-split watermarks do.
func NewSplitValve(n int) *Valve {
	v := NewValve(n)
	v.split = true
	return v
}

// Add adds an input (a split found later, such as a new file of a followed
// folder) and returns its index. It starts active, at the combined
// watermark: it holds the watermark where it is until it sends its own.
func (v *Valve) Add() int {
	v.ins = append(v.ins, valveInput{wm: v.out, aligned: true})
	v.idle = false
	return len(v.ins) - 1
}

// Len returns the number of inputs.
func (v *Valve) Len() int { return len(v.ins) }

// Current returns the combined watermark.
func (v *Valve) Current() int64 { return v.out }

// Idle reports whether every input is idle.
func (v *Valve) Idle() bool { return v.idle }

// InputWatermark returns input i's last watermark.
func (v *Valve) InputWatermark(i int) int64 { return v.ins[i].wm }

// InputIdle reports whether input i is idle.
func (v *Valve) InputIdle(i int) bool { return v.ins[i].idle }

// Watermark feeds input i's watermark wm. It returns the combined
// watermark and whether it moved forward.
func (v *Valve) Watermark(i int, wm int64) (int64, bool) {
	in := &v.ins[i]
	if v.split && !in.done && in.idle {
		// A split's watermark makes it active again, as in Flink.
		in.idle, v.idle = false, false
	}
	if in.done || in.idle || v.idle || wm <= in.wm {
		return v.out, false
	}
	in.wm = wm
	if !in.aligned && wm >= v.out {
		in.aligned = true
	}
	return v.advance()
}

// SetIdle marks input i idle or active again. It returns the combined
// watermark and whether it moved forward: when the last active input goes
// idle, the valve's watermark becomes the greatest of the inputs'.
func (v *Valve) SetIdle(i int, idle bool) (int64, bool) {
	in := &v.ins[i]
	if in.done || in.idle == idle {
		return v.out, false
	}
	in.idle = idle
	if idle {
		in.aligned = false
		if !v.anyActive() {
			v.idle = true
			if v.split {
				return v.out, false
			}
			return v.flushMax()
		}
		return v.advance()
	}
	in.aligned = in.wm >= v.out
	v.idle = false
	return v.out, false
}

// Finish marks input i ended: it holds nothing back from now on. When
// every input has ended the combined watermark is the greatest of theirs
// (the caller emits the maximum watermark at the end of input, as
// before); a split valve's stays where it is, as Flink's does when the
// last split is released.
func (v *Valve) Finish(i int) (int64, bool) {
	in := &v.ins[i]
	if in.done {
		return v.out, false
	}
	in.done, in.aligned = true, false
	if !v.anyActive() {
		v.idle = !v.allDone()
		if v.split {
			return v.out, false
		}
		return v.flushMax()
	}
	return v.advance()
}

func (v *Valve) anyActive() bool {
	for _, in := range v.ins {
		if !in.done && !in.idle {
			return true
		}
	}
	return false
}

func (v *Valve) allDone() bool {
	for _, in := range v.ins {
		if !in.done {
			return false
		}
	}
	return true
}

// advance moves the combined watermark to the least of the aligned active
// inputs, if that is later.
func (v *Valve) advance() (int64, bool) {
	least, found := int64(math.MaxInt64), false
	for _, in := range v.ins {
		if (in.aligned || v.split) && !in.idle && !in.done {
			least, found = min(least, in.wm), true
		}
	}
	if found && least > v.out {
		v.out = least
		return v.out, true
	}
	return v.out, false
}

// flushMax moves the combined watermark to the greatest of the inputs'.
func (v *Valve) flushMax() (int64, bool) {
	most := int64(MinWatermark)
	for _, in := range v.ins {
		most = max(most, in.wm)
	}
	if most > v.out {
		v.out = most
		return v.out, true
	}
	return v.out, false
}

// AppendState appends what a checkpoint keeps of the valve to b: its
// watermark, whether it is idle, and each input's watermark and status.
func (v *Valve) AppendState(b []byte) []byte {
	b = binary.AppendVarint(b, v.out)
	b = append(b, boolByte(v.idle))
	b = binary.AppendUvarint(b, uint64(len(v.ins)))
	for _, in := range v.ins {
		b = binary.AppendVarint(b, in.wm)
		b = append(b, boolByte(in.idle)|boolByte(in.aligned)<<1|boolByte(in.done)<<2)
	}
	return b
}

// ReadState takes the valve back to what AppendState wrote at the start
// of b, and returns the rest of b. The valve must have as many inputs as
// the one that wrote it.
func (v *Valve) ReadState(b []byte) ([]byte, error) {
	bad := errors.New("a damaged watermark valve in the state")
	out, n := binary.Varint(b)
	if n <= 0 || len(b) <= n {
		return nil, bad
	}
	idle := b[n] != 0
	b = b[n+1:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count != uint64(len(v.ins)) {
		return nil, fmt.Errorf("the state holds a watermark valve of %d inputs, not %d", count, len(v.ins))
	}
	b = b[n:]
	ins := make([]valveInput, len(v.ins))
	for i := range ins {
		wm, n := binary.Varint(b)
		if n <= 0 || len(b) <= n {
			return nil, bad
		}
		f := b[n]
		ins[i] = valveInput{wm: wm, idle: f&1 != 0, aligned: f&2 != 0, done: f&4 != 0}
		b = b[n+1:]
	}
	v.out, v.idle, v.ins = out, idle, ins
	return b, nil
}

func boolByte(x bool) byte {
	if x {
		return 1
	}
	return 0
}
