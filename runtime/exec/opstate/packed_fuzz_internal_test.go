package opstate

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// FuzzPackedBlock feeds damaged blocks of a packed generation to its
// readers: the record decoder, a look-up and a cursor never panic, and a
// block they read whole gives back the records that appendRecord wrote
// of what it decoded.
func FuzzPackedBlock(f *testing.F) {
	var good []byte
	for _, k := range []string{"a", "b", "bb", "c"} {
		good = appendRecord(good, []byte(k), append([]byte{markValue}, k...))
	}
	f.Add(good, []byte("b"))
	f.Add(good[:len(good)-1], []byte("c"))
	f.Add(appendRecord(nil, []byte("k"), []byte{markDeleted}), []byte("k"))
	f.Add([]byte{0xff, 0xff, 0xff}, []byte("a"))
	f.Fuzz(func(t *testing.T, block, key []byte) {
		// The decoder: records within the block, re-encoded to its bytes.
		var again []byte
		whole := true
		for b := block; len(b) > 0; {
			k, v, rest, err := nextRecord(b)
			if err != nil {
				whole = false
				break
			}
			again = appendRecord(again, k, v)
			b = rest
		}
		if whole && !bytes.Equal(again, block) && !nonMinimalUvarints(block) {
			t.Fatalf("block %x decodes and encodes again as %x", block, again)
		}
		// The readers over a store holding the block under its key.
		store := state.NewMem()
		defer store.Close()
		const ns = "g"
		if err := store.Update(func(tx state.Tx) error { return tx.Put(ns, []byte("\xff"), block) }); err != nil {
			t.Fatal(err)
		}
		// A damaged block may give an error, never a panic.
		_ = store.View(func(tx state.Tx) error {
			_, err := lookupPacked(tx, ns, key)
			return err
		})
		c := &cursor{store: store, ns: ns, packed: true}
		_ = store.View(func(tx state.Tx) error {
			for range 4 {
				if err := c.readPacked(tx); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// nonMinimalUvarints reports whether a block's lengths may be written
// with more bytes than appendRecord writes (0x80 0x00 is a valid 0),
// so that it decodes but does not encode back to itself: any 0x80 byte,
// in a length or not, leaves the round trip unchecked.
func nonMinimalUvarints(b []byte) bool { return bytes.Contains(b, []byte{0x80}) }

// TestPackedBlock_damagedNamesBlock: a look-up and a cursor that meet a
// damaged block name its namespace and the last key it holds, where a
// reader of the state file finds it.
func TestPackedBlock_damagedNamesBlock(t *testing.T) {
	store := state.NewMem()
	defer store.Close()
	const ns = "g"
	block := appendRecord(nil, []byte("user-7"), []byte{markValue, 1})
	block = block[:len(block)-3] // the value's length runs past the end
	if err := store.Update(func(tx state.Tx) error { return tx.Put(ns, []byte("user-9"), block) }); err != nil {
		t.Fatal(err)
	}
	const want = `namespace "g": a block of a packed generation is damaged (the block of keys up to "user-9")`
	err := store.View(func(tx state.Tx) error {
		_, err := lookupPacked(tx, ns, []byte("user-8"))
		return err
	})
	if err == nil || err.Error() != want {
		t.Errorf("look-up: got %v, want %s", err, want)
	}
	c := &cursor{store: store, ns: ns, packed: true}
	err = store.View(c.readPacked)
	if err == nil || err.Error() != want {
		t.Errorf("cursor: got %v, want %s", err, want)
	}
	if !errors.Is(err, errBadBlock) {
		t.Errorf("cursor: %v is not errBadBlock", err)
	}
}
