package opstate

import (
	"encoding/binary"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

type u64Codec struct{}

func (u64Codec) Append(b []byte, v uint64) ([]byte, error) { return binary.AppendUvarint(b, v), nil }
func (u64Codec) Decode(b []byte) (uint64, error) {
	v, _ := binary.Uvarint(b)
	return v, nil
}

// TestTable_memoryBetweenCheckpoints: however many keys change between two
// checkpoints, the table keeps no more entries than its cache holds, and
// a few more in its list of changes: the evicted ones are gone from memory,
// as are the keys of a table used as a queue (added, then deleted).
func TestTable_memoryBetweenCheckpoints(t *testing.T) {
	const size = 100
	tb, err := Open[uint64](state.NewMem(), "t", u64Codec{}, Options{CacheEntries: size})
	if err != nil {
		t.Fatal(err)
	}
	key := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
	for i := range 50_000 {
		if err := tb.Put(key(i), uint64(i)); err != nil {
			t.Fatal(err)
		}
		if len(tb.cache) > size || len(tb.dirty) > 2*size {
			t.Fatalf("after %d keys: %d cached, %d listed as changed", i+1, len(tb.cache), len(tb.dirty))
		}
	}
	for i := 50_000; i < 100_000; i++ {
		if err := tb.Put(key(i), uint64(i)); err != nil {
			t.Fatal(err)
		}
		if err := tb.Delete(key(i)); err != nil {
			t.Fatal(err)
		}
		if len(tb.dirty) > 2*size+2048 {
			t.Fatalf("a queue of %d keys added and deleted: %d listed as changed", i-50_000+1, len(tb.dirty))
		}
	}
}
