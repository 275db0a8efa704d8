package exec

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/state"
)

// The value-state cache. Live state objects stay in memory per partition
// key (no re-encoding per row), up to SET 'state.cache-size' keys. Past
// that, a batch of keys is encoded and spilled to the store, in a spill
// area apart from the checkpointed state: spilled values are newer than
// the last checkpoint, and a restart after a crash must not see them. The
// next checkpoint moves them into place.

// SetCacheSize is the number of partition keys whose value state stays
// live in memory per PTF call.
const SetCacheSize = "state.cache-size"

// defaultCacheSize keeps memory bounded (about 1 KB of JS objects per key
// for small state) while most workloads never spill.
const defaultCacheSize = 100_000

// maybeEvict spills a quarter of the cache when it holds more keys than
// allowed. The key being processed and the one just added stay.
func (o *PtfOp) maybeEvict(keep *keyState) error {
	limit := o.Ex.CacheSize
	if limit <= 0 || len(o.cache) <= limit || o.codec == nil || o.loading {
		return nil
	}
	batch := max(limit/4, 1)
	var victims []*keyState
	for _, ks := range o.cache {
		if ks == o.cur || ks == keep {
			continue
		}
		victims = append(victims, ks)
		if len(victims) == batch {
			break
		}
	}
	err := o.Ex.Store.Update(func(tx state.Tx) error {
		for _, ks := range victims {
			for i, sd := range o.Node.Def.State {
				if !ks.loaded[i] || !ks.dirty || sd.Kind != ptf.ValueState {
					continue
				}
				var b []byte
				if ks.vals[i] != nil {
					enc, err := o.codec.EncodeState(i, ks.vals[i])
					if err != nil {
						return fmt.Errorf("%s: state %q of key (%s): %w", o.Node.Fn, sd.Name, formatFields(ks.key), err)
					}
					b = append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(enc)), uint64(ks.touched[i])), enc...)
				} else {
					b = []byte{} // a tombstone: cleared since the checkpoint
				}
				if err := tx.Put(spillNamespace(o.Node.Uid, sd.Name), ks.enc, b); err != nil {
					return err
				}
				o.spilled[string(ks.enc)] = true
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("spilling state: %w", err)
	}
	for _, ks := range victims {
		for i := range ks.vals {
			ks.vals[i], ks.loaded[i] = nil, false
		}
		ks.dirty = false
		if len(ks.named) == 0 && len(ks.unnamed) == 0 {
			delete(o.cache, string(ks.enc)) // timers keep their key state
		}
	}
	o.stored = true
	o.spills += int64(len(victims))
	return nil
}

// readStored reads entry i of a key from the spill area, else from the
// checkpointed state. A tombstone reads as absent.
func (o *PtfOp) readStored(tx state.Tx, i int, enc []byte) ([]byte, error) {
	name := o.Node.Def.State[i].Name
	if o.spilled[string(enc)] {
		b, err := tx.Get(spillNamespace(o.Node.Uid, name), enc)
		if err != nil {
			return nil, err
		}
		if b != nil {
			if len(b) == 0 {
				return nil, nil
			}
			return b, nil
		}
	}
	return tx.Get(stateNamespace(o.Node.Uid, name), enc)
}

// flushSpill moves spilled values into the checkpointed state: a key that
// is live again was written from memory already, so its spill is dropped.
func (o *PtfOp) flushSpill(tx state.Tx) error {
	if len(o.spilled) == 0 {
		return nil
	}
	for enc := range o.spilled {
		live := o.cache[enc]
		for i, sd := range o.Node.Def.State {
			if sd.Kind != ptf.ValueState {
				continue
			}
			sns, ns := spillNamespace(o.Node.Uid, sd.Name), stateNamespace(o.Node.Uid, sd.Name)
			b, err := tx.Get(sns, []byte(enc))
			if err != nil {
				return err
			}
			if b == nil {
				continue
			}
			if err := tx.Delete(sns, []byte(enc)); err != nil {
				return err
			}
			if live != nil && live.loaded[i] {
				continue
			}
			if len(b) == 0 {
				err = tx.Delete(ns, []byte(enc))
			} else {
				err = tx.Put(ns, []byte(enc), b)
			}
			if err != nil {
				return err
			}
		}
	}
	o.spilled = map[string]bool{}
	return nil
}

// clearSpill drops what a crashed run spilled: it is newer than the last
// checkpoint this run restarts from.
func clearSpill(store state.Store, uid string) error {
	return store.Update(func(tx state.Tx) error {
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, ns := range names {
			if strings.HasPrefix(ns, "spill/"+uid+"/") {
				if err := tx.DeleteNamespace(ns); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
