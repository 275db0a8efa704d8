package state_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// TestOpenBolt_acceptsWhatItWrites runs random workloads over many commits
// and reopens the file after each: the checks OpenBolt makes of the whole
// file must pass on everything bbolt writes (trees that grow and shrink,
// values on overflow pages, namespaces small enough to be kept inline,
// emptied and dropped namespaces), and the content must be what was
// written.
func TestOpenBolt_acceptsWhatItWrites(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			path := filepath.Join(t.TempDir(), "state.db")
			want := content{}
			namespaces := []string{"state/a/x", "state/a/y", "timers/a", "list/b/items", "map/b/m", "tiny"}
			rounds := 15
			if testing.Short() {
				rounds = 8
			}
			for round := range rounds {
				st, err := state.OpenBolt(path, state.BoltOptions{NoSync: true})
				if err != nil {
					t.Fatalf("round %d: OpenBolt: %v", round, err)
				}
				got, err := readAll(st, want)
				if err == nil {
					if d := got.diff(want); d != "" {
						err = errors.New(d)
					}
				}
				if err != nil {
					st.Close()
					t.Fatalf("round %d: %v", round, err)
				}
				err = st.Update(func(tx state.Tx) error { return randomWrites(r, tx, namespaces, want) })
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// randomWrites makes random changes to namespaces in tx and in want.
func randomWrites(r *rand.Rand, tx state.Tx, namespaces []string, want content) error {
	for range 1 + r.IntN(3) {
		ns := namespaces[r.IntN(len(namespaces))]
		switch op := r.IntN(10); {
		case op == 0:
			// Drop the namespace.
			delete(want, ns)
			if err := tx.DeleteNamespace(ns); err != nil {
				return err
			}
		case op <= 3 && len(want[ns]) > 0:
			// Delete most keys, which shrinks the tree (down to an
			// empty namespace, kept inline).
			for k := range want[ns] {
				if r.IntN(10) < 9 {
					delete(want[ns], k)
					if err := tx.Delete(ns, []byte(k)); err != nil {
						return err
					}
				}
			}
		default:
			n := r.IntN(2000)
			if ns == "tiny" {
				n = r.IntN(4)
			}
			for range n {
				key := randomKey(r)
				var value []byte
				switch r.IntN(20) {
				case 0:
					value = bytes.Repeat([]byte{byte(r.Uint32())}, 4096+r.IntN(20_000)) // overflow pages
				case 1:
					value = []byte{} // empty
				default:
					value = binary.BigEndian.AppendUint64(nil, r.Uint64())[:1+r.IntN(8)]
				}
				want.put(ns, key, string(value))
				if err := tx.Put(ns, key, value); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func randomKey(r *rand.Rand) []byte {
	switch r.IntN(3) {
	case 0:
		return orderedcode.AppendInt64(nil, r.Int64N(5000))
	case 1:
		return orderedcode.AppendString(orderedcode.AppendString(nil, fmt.Sprint("user", r.IntN(3000))), strings.Repeat("x", r.IntN(300)))
	}
	k := make([]byte, 1+r.IntN(40))
	for i := range k {
		k[i] = byte(r.IntN(4)) // many shared prefixes
	}
	return k
}

// FuzzCheckFile checks that OpenBolt's checks of a whole file never panic,
// whatever the file holds. Its inputs are small changes to real state files
// (bytes written at an offset, then a truncation), which keeps them quick to
// minimize; it signs the meta pages again after a change, so that changes
// reach the checks of the other pages.
func FuzzCheckFile(f *testing.F) {
	var files [][]byte
	for i, n := range []int{0, 3, 300} {
		path := filepath.Join(f.TempDir(), fmt.Sprint(i, ".db"))
		st, err := state.OpenBolt(path, state.BoltOptions{NoSync: true})
		if err != nil {
			f.Fatal(err)
		}
		err = st.Update(func(tx state.Tx) error {
			for j := range n {
				if err := tx.Put(fmt.Sprint("state/u/s", j%3), orderedcode.AppendInt64(nil, int64(j)), []byte("value")); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
		st.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, b)
	}
	f.Add(uint8(0), uint32(0), []byte{}, uint32(0))
	f.Add(uint8(1), uint32(2*4096+10), []byte{0}, uint32(0))
	f.Add(uint8(2), uint32(3*4096), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, uint32(0))
	f.Add(uint8(2), uint32(0), []byte{}, uint32(5*4096))
	f.Fuzz(func(t *testing.T, file uint8, at uint32, patch []byte, cut uint32) {
		b := bytes.Clone(files[int(file)%len(files)])
		copy(b[int(at)%len(b):], patch)
		if cut > 0 {
			b = b[:int(cut)%len(b)]
		}
		if len(b) >= 16+64 {
			ps := int(binary.NativeEndian.Uint32(b[16+8:]))
			for _, off := range []int{16, ps + 16} {
				if ps > 0 && off+64 <= len(b) {
					h := fnv.New64a()
					h.Write(b[off : off+56])
					binary.NativeEndian.PutUint64(b[off+56:], h.Sum64())
				}
			}
		}
		state.CheckBoltFile(b)
	})
}
