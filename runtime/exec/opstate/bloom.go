package opstate

import "hash/maphash"

// bloom is a filter of byte keys that grows with them: a list of Bloom
// filters, each twice the capacity of the one before, about 1 % false
// positives each. The delta's keys are filtered, so that a read of a key
// that left the cache unchanged costs one look-up, not two.
type bloom struct {
	sets []bloomSet
}

type bloomSet struct {
	bits []uint64
	n    int // keys added
	cap  int // keys it was sized for
}

// bloomProbes and bloomBitsPerKey give about 1 % false positives.
const (
	bloomProbes     = 7
	bloomBitsPerKey = 10
	bloomFirstCap   = 4096
)

var bloomSeed = maphash.MakeSeed()

func (f *bloom) add(key []byte) {
	if len(f.sets) == 0 || f.sets[len(f.sets)-1].n >= f.sets[len(f.sets)-1].cap {
		c := bloomFirstCap
		if len(f.sets) > 0 {
			c = 2 * f.sets[len(f.sets)-1].cap
		}
		f.sets = append(f.sets, bloomSet{bits: make([]uint64, (c*bloomBitsPerKey+63)/64), cap: c})
	}
	s := &f.sets[len(f.sets)-1]
	h := maphash.Bytes(bloomSeed, key)
	m := uint64(len(s.bits) * 64)
	h1, h2 := h, h>>32|1
	for i := range uint64(bloomProbes) {
		b := (h1 + i*h2) % m
		s.bits[b/64] |= 1 << (b % 64)
	}
	s.n++
}

func (f *bloom) has(key []byte) bool {
	if len(f.sets) == 0 {
		return false
	}
	h := maphash.Bytes(bloomSeed, key)
	h1, h2 := h, h>>32|1
	for _, s := range f.sets {
		m := uint64(len(s.bits) * 64)
		found := true
		for i := range uint64(bloomProbes) {
			b := (h1 + i*h2) % m
			if s.bits[b/64]&(1<<(b%64)) == 0 {
				found = false
				break
			}
		}
		if found {
			return true
		}
	}
	return false
}
