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
	bits []uint64 // blocks of bloomBlock bits
	n    int      // keys added
	cap  int      // keys it was sized for
}

// bloomProbes and bloomBitsPerKey give under 1 % false positives a set.
// A key's probes are in one block of 512 bits, a cache line: with the
// probes anywhere in the set, each key a checkpoint wrote cost seven
// cache misses and seven divisions, and so did each read of a
// generation. Blocks take a bit more per key than probes anywhere for
// the same rate (11 bits: 3.1 % over five sets, where 10 bits anywhere
// gave 3.4 %).
const (
	bloomProbes     = 7
	bloomBitsPerKey = 11
	bloomFirstCap   = 4096
	bloomBlock      = 512
)

var bloomSeed = maphash.MakeSeed()

// probes returns the first word of key's block in s and the two hashes
// of its probes in the block.
func (s *bloomSet) probes(h uint64) (word int, h1, h2 uint64) {
	blocks := uint64(len(s.bits) / (bloomBlock / 64))
	word = int((h>>32)*blocks>>32) * (bloomBlock / 64)
	g := h * 0x9e3779b97f4a7c15 // the block took h's top bits: mix the rest
	return word, g >> 32, g&0xffffffff | 1
}

func (f *bloom) add(key []byte) {
	if len(f.sets) == 0 || f.sets[len(f.sets)-1].n >= f.sets[len(f.sets)-1].cap {
		c := bloomFirstCap
		if len(f.sets) > 0 {
			c = 2 * f.sets[len(f.sets)-1].cap
		}
		blocks := (c*bloomBitsPerKey + bloomBlock - 1) / bloomBlock
		f.sets = append(f.sets, bloomSet{bits: make([]uint64, blocks*bloomBlock/64), cap: c})
	}
	s := &f.sets[len(f.sets)-1]
	w, h1, h2 := s.probes(maphash.Bytes(bloomSeed, key))
	blk := s.bits[w : w+bloomBlock/64 : w+bloomBlock/64]
	for i := range uint64(bloomProbes) {
		b := (h1 + i*h2) % bloomBlock
		blk[b/64] |= 1 << (b % 64)
	}
	s.n++
}

func (f *bloom) has(key []byte) bool {
	if len(f.sets) == 0 {
		return false
	}
	h := maphash.Bytes(bloomSeed, key)
	for i := range f.sets {
		s := &f.sets[i]
		w, h1, h2 := s.probes(h)
		blk := s.bits[w : w+bloomBlock/64 : w+bloomBlock/64]
		found := true
		for i := range uint64(bloomProbes) {
			b := (h1 + i*h2) % bloomBlock
			if blk[b/64]&(1<<(b%64)) == 0 {
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
