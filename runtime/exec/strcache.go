package exec

import "unsafe"

// StrCache finds a value by a string's identity, the address and length
// of its bytes, without hashing or comparing its text: a reader that
// takes its strings from a dictionary (Parquet's dictionary pages) hands
// out the same string for every row of a key, so an operator that keys
// its rows by one string column finds the key's entry by the string's
// address before it looks the key up by its text.
//
// An entry holds its string, so that its bytes cannot be freed and reused
// for another string while the entry names them: the same address and
// length are then the same text. The cache is two-way set-associative:
// a set holds the two strings put last of those whose addresses fall in
// it. With one way, the flights' 229 airports in 256 slots missed one
// lookup in eight, two airports of a slot taking turns in it; with two
// ways, nearly only at the start of a row group, whose dictionary is new.
//
// The zero value is an empty cache; it allocates its table at the first
// Put. It is for one goroutine.
type StrCache[V comparable] struct {
	sets *[strCacheSets][2]strCacheEnt[V]
}

type strCacheEnt[V comparable] struct {
	s string
	v V
}

const (
	strCacheBits = 8
	strCacheSets = 1 << strCacheBits
)

func (c *StrCache[V]) set(s string) *[2]strCacheEnt[V] {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return &c.sets[p*0x9E3779B97F4A7C15>>(64-strCacheBits)]
}

// Get returns the value put last for s itself (the same bytes at the same
// address), or the zero V when there is none.
func (c *StrCache[V]) Get(s string) V {
	var zero V
	if c.sets == nil {
		return zero
	}
	set := c.set(s)
	p := unsafe.StringData(s)
	if e := &set[0]; unsafe.StringData(e.s) == p && len(e.s) == len(s) {
		return e.v
	}
	if e := &set[1]; unsafe.StringData(e.s) == p && len(e.s) == len(s) {
		return e.v
	}
	return zero
}

// Put keeps v for s, in place of the older of its set's two entries (or
// of s's own).
func (c *StrCache[V]) Put(s string, v V) {
	if c.sets == nil {
		c.sets = new([strCacheSets][2]strCacheEnt[V])
	}
	set := c.set(s)
	if unsafe.StringData(set[0].s) != unsafe.StringData(s) || len(set[0].s) != len(s) {
		set[1] = set[0] // s's own entry, or the older one
	}
	set[0] = strCacheEnt[V]{s: s, v: v}
}

// Reset empties the cache.
func (c *StrCache[V]) Reset() {
	if c.sets != nil {
		clear(c.sets[:])
	}
}
