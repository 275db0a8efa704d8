package sqlop

import (
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// The open sessions of a SESSION window table function, in the state
// store: a PARTITION BY key's sessions (and their rows) under the key, and
// each session's end under (end, key's seq, start) with the key as its
// value, so that a firing scans the ends from the first and meets the
// sessions due in the order they close.

var (
	sessionSeqKey  = []byte("seq")
	sessionRowsKey = []byte("rows")
)

func (s *windowTVFStream) openSessions(ns string) error {
	var err error
	if s.keys, err = openTable[*sessionKey](s.ex, ns, "keys", sessionKeyCodec{}); err != nil {
		return err
	}
	if s.ends, err = openTable[[]byte](s.ex, ns, "ends", bytesCodec{}); err != nil {
		return err
	}
	if s.meta, err = openTable[int64](s.ex, ns, "meta", int64Codec{}); err != nil {
		return err
	}
	if s.seq, _, err = s.meta.Get(sessionSeqKey); err != nil {
		return err
	}
	s.rows, _, err = s.meta.Get(sessionRowsKey)
	return err
}

func (s *windowTVFStream) Checkpoint(tx state.Tx, finished, _ bool) error {
	if err := s.meta.Put(sessionSeqKey, s.seq); err != nil {
		return err
	}
	if err := s.meta.Put(sessionRowsKey, s.rows); err != nil {
		return err
	}
	return tableSet{s.keys, s.ends, s.meta}.checkpoint(tx, finished)
}

func (s *windowTVFStream) Quiescent() bool { return s.out.Len() == 0 }

// endKey is where a session's end is kept.
func endKey(end, seq, start int64) []byte { return keycodec.Encode([]any{end, seq, start}) }

// addToSession puts a row into the sessions of its key: its own window
// [t, t + gap) merges with every open session it touches (Flink's
// TimeWindow.intersects: bounds that meet count). A row that merges with
// none and whose window the watermark has passed is late.
func (s *windowTVFStream) addToSession(r types.Row, t int64) error {
	k := keycodec.Encode(keycodec.Pick(r, s.n.Partition))
	sk, found, err := s.keys.Get(k)
	if err != nil {
		return err
	}
	if !found {
		sk = &sessionKey{seq: s.seq + 1}
	}
	merged := &session{start: t, end: t + s.n.Spec.Gap}
	var kept, parts []*session
	for _, ss := range sk.sessions {
		if ss.start <= merged.end && ss.end >= merged.start {
			merged.start, merged.end = min(merged.start, ss.start), max(merged.end, ss.end)
			parts = append(parts, ss)
			continue
		}
		kept = append(kept, ss)
	}
	if len(parts) == 0 && merged.end-1 <= s.wm {
		s.late++
		if s.obs != nil {
			s.obs.Dropped(drawKey(r.Fields, s.n.Draw.TVFKeys), t, true, rowText(r.Fields, s.n.In.Schema()))
		}
		return nil
	}
	if s.obs != nil {
		s.obs.RowIn(drawKey(r.Fields, s.n.Draw.TVFKeys), t, true, !s.n.ProcTime && t <= s.wm, rowText(r.Fields, s.n.In.Schema()))
	}
	if !found {
		s.seq++
	}
	// The rows keep their arrival order, as Flink's merged window state does.
	for _, p := range parts {
		merged.rows = append(merged.rows, p.rows...)
		if err := s.ends.Delete(endKey(p.end, sk.seq, p.start)); err != nil {
			return err
		}
	}
	sort.Slice(merged.rows, func(i, j int) bool { return merged.rows[i].n < merged.rows[j].n })
	s.rows++
	merged.rows = append(merged.rows, arrived{s.rows, r.Copy()})
	sk.sessions = append(kept, merged)
	if s.minEnd != exec.MinWatermark {
		s.minEnd = min(s.minEnd, merged.end)
	}
	if err := s.ends.Put(endKey(merged.end, sk.seq, merged.start), k); err != nil {
		return err
	}
	return s.keys.Put(k, sk)
}

// fire emits the sessions whose end - 1 the watermark (or the clock) wm
// has reached, ordered by end, then by when their key first appeared.
func (s *windowTVFStream) fire(wm int64) error {
	if s.n.Spec.Kind != Session || s.minEnd != exec.MinWatermark && s.minEnd-1 > wm {
		return nil
	}
	s.minEnd = exec.MaxWatermark
	return s.ends.Scan(nil, func(ek []byte, k []byte) (bool, error) {
		vals, err := keycodec.Decode(ek, endKeyTypes)
		if err != nil {
			return false, fmt.Errorf("the end of a session: %w", err)
		}
		end, start := vals[0].(int64), vals[2].(int64)
		if end-1 > wm {
			s.minEnd = end
			return false, nil
		}
		sk, found, err := s.keys.Get(k)
		if err != nil || !found {
			return false, fmt.Errorf("the session of an end is gone (%v)", err)
		}
		for i, ss := range sk.sessions {
			if ss.start == start && ss.end == end {
				for _, r := range ss.rows {
					s.emit(r.row, ss.start, ss.end)
				}
				sk.sessions = append(sk.sessions[:i], sk.sessions[i+1:]...)
				break
			}
		}
		if err := s.ends.Delete(ek); err != nil {
			return false, err
		}
		if len(sk.sessions) == 0 {
			return true, s.keys.Delete(k)
		}
		return true, s.keys.Put(k, sk)
	})
}

// procFire closes the sessions the processing-time clock passed and asks
// the driver to pull again when the next one is due.
func (s *windowTVFStream) procFire() error {
	if err := s.fire(s.ex.Now()); err != nil {
		return err
	}
	if s.minEnd != exec.MaxWatermark && s.minEnd != exec.MinWatermark && !s.ex.Opts.FixedClock {
		s.ex.Live().WakeAt(time.UnixMilli(s.minEnd - 1))
	}
	return nil
}

var endKeyTypes = []types.Type{{Kind: types.KindBigInt}, {Kind: types.KindBigInt}, {Kind: types.KindBigInt}}

// sessionKeyCodec encodes the open sessions of a key: its seq, then each
// session's bounds and rows with their arrival numbers.
type sessionKeyCodec struct{}

func (sessionKeyCodec) Append(b []byte, sk *sessionKey) ([]byte, error) {
	b = appendVarint(b, sk.seq)
	b = binary.AppendUvarint(b, uint64(len(sk.sessions)))
	for _, ss := range sk.sessions {
		b = appendVarint(appendVarint(b, ss.start), ss.end)
		b = binary.AppendUvarint(b, uint64(len(ss.rows)))
		for _, a := range ss.rows {
			b = appendVarint(b, a.n)
			var err error
			if b, err = exec.AppendValue(b, a.row); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func (sessionKeyCodec) Decode(b []byte) (*sessionKey, error) {
	sk := &sessionKey{}
	var err error
	if sk.seq, b, err = readVarint(b); err != nil {
		return nil, err
	}
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	for range n {
		ss := &session{}
		if ss.start, b, err = readVarint(b); err != nil {
			return nil, err
		}
		if ss.end, b, err = readVarint(b); err != nil {
			return nil, err
		}
		var m uint64
		if m, b, err = readCount(b); err != nil {
			return nil, err
		}
		for range m {
			var a arrived
			if a.n, b, err = readVarint(b); err != nil {
				return nil, err
			}
			if a.row, b, err = readRow(b, "a session's row"); err != nil {
				return nil, err
			}
			ss.rows = append(ss.rows, a)
		}
		sk.sessions = append(sk.sessions, ss)
	}
	if len(b) != 0 {
		return nil, errAccTruncated
	}
	return sk, nil
}

// bytesCodec keeps bytes as they are.
type bytesCodec struct{}

func (bytesCodec) Append(b []byte, v []byte) ([]byte, error) { return append(b, v...), nil }
func (bytesCodec) Decode(b []byte) ([]byte, error)           { return append([]byte(nil), b...), nil }
