package sqlop

import (
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/state"
)

// windowTable keeps the open windows of a window operator (aggregation,
// Top-N, deduplication) in the state store: each window of each key
// under the ordered key (end, seq), seq being the order it appeared in, so
// that a firing reads the windows due in Flink's order with one scan from
// the first key, and an index from the group key (window and keys) to its
// seq. minEnd bounds the earliest open end, so that a watermark before it
// costs no scan; after a restore it is unknown (MinWatermark) until the
// first scan.
type windowTable[G windowGroupish] struct {
	groups *opstate.Table[G]
	index  *opstate.Table[int64]
	meta   *opstate.Table[int64]
	seq    int64
	minEnd int64
	// floor is an end no open window is before: a firing at t deleted
	// every window ending at or before t+1, so the next one scans from
	// there, past what the firings deleted (MinWatermark: from the first
	// key).
	floor int64
	obuf  []byte // okey's
}

// windowGroupish is a window's group: it knows its slot (group key, end,
// seq).
type windowGroupish interface{ slot() *windowSlot }

// seqKey holds a window table's seq counter in its meta table.
var seqKey = []byte("seq")

func openWindowTable[G windowGroupish](ex *exec.Execution, ns string, codec opstate.Codec[G]) (*windowTable[G], error) {
	w := &windowTable[G]{minEnd: exec.MinWatermark, floor: exec.MinWatermark}
	var err error
	if w.groups, err = openTable(ex, ns, "windows", codec); err != nil {
		return nil, err
	}
	if w.index, err = openTable[int64](ex, ns, "index", int64Codec{}); err != nil {
		return nil, err
	}
	if w.meta, err = openTable[int64](ex, ns, "meta", int64Codec{}); err != nil {
		return nil, err
	}
	if w.seq, _, err = w.meta.Get(seqKey); err != nil {
		return nil, err
	}
	return w, nil
}

// okey is the key of a window in the groups table, its end and then its
// seq (keycodec.Encode([]any{end, seq})), in the table's buffer, valid
// until the next call: the tables copy the keys they keep.
func (w *windowTable[G]) okey(end, seq int64) []byte {
	w.obuf = keycodec.AppendInt64(keycodec.AppendInt64(w.obuf[:0], end), seq)
	return w.obuf
}

// get returns the group of key k, whose window ends at end, or false.
func (w *windowTable[G]) get(k []byte, end int64) (g G, ok bool, err error) {
	seq, found, err := w.index.Get(k)
	if err != nil || !found {
		return g, false, err
	}
	return w.groups.Get(w.okey(end, seq))
}

// add adds a new group g for key k, ending at end; newSlot fills its slot.
func (w *windowTable[G]) add(k []byte, end int64, g G) error {
	w.seq++
	*g.slot() = windowSlot{key: string(k), end: end, seq: w.seq}
	if err := w.index.Put(k, w.seq); err != nil {
		return err
	}
	if w.minEnd != exec.MinWatermark {
		w.minEnd = min(w.minEnd, end)
	}
	w.floor = min(w.floor, end)
	return w.groups.Put(w.okey(end, w.seq), g)
}

// put writes back a group changed in place.
func (w *windowTable[G]) put(g G) error {
	s := g.slot()
	return w.groups.Put(w.okey(s.end, s.seq), g)
}

// due reports whether a firing at time t may find a window.
func (w *windowTable[G]) due(t int64) bool { return w.minEnd == exec.MinWatermark || w.minEnd-1 <= t }

// fire calls emit with each window whose end - 1 is at or before t, by
// end and then by the order the windows appeared, and deletes it.
func (w *windowTable[G]) fire(t int64, emit func(g G) error) error {
	if !w.due(t) {
		return nil
	}
	w.minEnd = exec.MaxWatermark
	var from []byte
	if w.floor != exec.MinWatermark {
		from = keycodec.AppendInt64(nil, w.floor)
	}
	if t < exec.MaxWatermark-1 {
		w.floor = max(w.floor, t+2)
	}
	return w.groups.ScanFrom(nil, from, func(key []byte, g G) (bool, error) {
		s := g.slot()
		if s.end-1 > t {
			w.minEnd = s.end
			return false, nil
		}
		if err := w.index.Delete([]byte(s.key)); err != nil {
			return false, err
		}
		if err := w.groups.Delete(key); err != nil {
			return false, err
		}
		return true, emit(g)
	})
}

func (w *windowTable[G]) checkpoint(tx state.Tx, finished bool) error {
	if err := w.meta.Put(seqKey, w.seq); err != nil {
		return err
	}
	return tableSet{w.groups, w.index, w.meta}.checkpoint(tx, finished)
}

// procFire is what a window operator over a processing-time attribute
// does at each event: it fires the windows the processing-time clock
// passed, and asks the driver to pull again when the next one is due, so
// that a window ends on time while the input is quiet. With a clock fixed
// by SET 'ptfsh.processing-time' nothing is due until the clock moves.
func procFire[G windowGroupish](ex *exec.Execution, w *windowTable[G], emit func(g G) error) error {
	now := ex.Now()
	if err := w.fire(now, emit); err != nil {
		return err
	}
	if w.minEnd != exec.MaxWatermark && !ex.Opts.FixedClock {
		ex.Live().WakeAt(time.UnixMilli(w.minEnd - 1))
	}
	return nil
}
