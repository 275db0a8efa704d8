package ptfop

import (
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// strKeyCache finds the live state of a key of one string column by the
// string's identity (exec.StrCache), before its encoding and the key map:
// a reader that takes its strings from a dictionary (Parquet's dictionary
// pages) hands out the same string for every row of a key. PARTITION BY
// origin over the flights (229 keys, interleaved by time) spent a tenth
// of the call's time encoding the key and hashing it.
//
// A hit is only taken while its key is live (in the ring of live keys);
// any other key goes the usual way. Over strings made anew for each row
// (a CSV reader's), the cache would only miss: after keyCacheProbe
// lookups with fewer hits than misses it turns itself off.
type strKeyCache struct {
	ents         exec.StrCache // of *keyState
	hits, misses int
	off          bool
}

const keyCacheProbe = 4096

// lookupOne is lookupRow of a key of one column: the cache first, when
// the column holds a non-empty string.
func (s *keyedState) lookupOne(r types.Row, col int, cols []int, cur *keyState) *keyState {
	c := &s.keyCache
	str, ok := r.Fields[col].(string)
	if !ok || str == "" || c.off {
		return s.lookupRowEnc(r, cols, cur)
	}
	if ks := (*keyState)(c.ents.Get(str)); ks != nil && ks.slot < len(s.live) && s.live[ks.slot] == ks {
		c.hits++
		ks.ref = true
		return ks
	}
	if c.misses++; c.hits+c.misses == keyCacheProbe && c.misses > c.hits {
		c.off = true
		c.ents.Reset()
		return s.lookupRowEnc(r, cols, cur)
	}
	ks := s.lookupRowEnc(r, cols, cur)
	c.ents.Put(str, unsafe.Pointer(ks))
	return ks
}
