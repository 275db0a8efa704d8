package ptfop

import (
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// strKeyCache finds the live state of a key of one string column by the
// string's identity, before its encoding and the key map: a reader that
// takes its strings from a dictionary (Parquet's dictionary pages) hands
// out the same string for every row of a key, so a key comes back as the
// same pointer and length. PARTITION BY origin over the flights (229
// keys, interleaved by time) spent a tenth of the call's time encoding
// the key and hashing it.
//
// An entry holds its string, so that its bytes cannot be freed and
// reused for another string while the entry names them: the same
// pointer and length are then the same text. A hit is only taken while
// its key is live (in the ring of live keys); any other key goes the
// usual way. Over strings made anew for each row (a CSV reader's), the
// cache would only miss: after keyCacheProbe lookups with fewer hits than
// misses it turns itself off.
type strKeyCache struct {
	ents         *[keyCacheSize]strKeyEnt
	hits, misses int
	off          bool
}

type strKeyEnt struct {
	s  string
	ks *keyState
}

const (
	keyCacheSize  = 256 // a power of two
	keyCacheProbe = 4096
)

// slot is where string s goes: by the address of its bytes.
func (c *strKeyCache) slot(s string) *strKeyEnt {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return &c.ents[(p*0x9E3779B97F4A7C15)>>(64-8)&(keyCacheSize-1)]
}

// lookupOne is lookupRow of a key of one column: the cache first, when
// the column holds a non-empty string.
func (s *keyedState) lookupOne(r types.Row, col int, cols []int, cur *keyState) *keyState {
	c := &s.keyCache
	str, ok := r.Fields[col].(string)
	if !ok || str == "" || c.off {
		return s.lookupRowEnc(r, cols, cur)
	}
	if c.ents == nil {
		c.ents = new([keyCacheSize]strKeyEnt)
	}
	e := c.slot(str)
	if ks := e.ks; ks != nil && len(e.s) == len(str) && unsafe.StringData(e.s) == unsafe.StringData(str) &&
		ks.slot < len(s.live) && s.live[ks.slot] == ks {
		c.hits++
		ks.ref = true
		return ks
	}
	if c.misses++; c.hits+c.misses == keyCacheProbe && c.misses > c.hits {
		c.off, c.ents = true, nil
		return s.lookupRowEnc(r, cols, cur)
	}
	ks := s.lookupRowEnc(r, cols, cur)
	*e = strKeyEnt{s: str, ks: ks}
	return ks
}
