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
// The values are pointers, as unsafe.Pointer, which the caller converts
// back to its type: StrCache is not generic because the compiler inlines
// Get only in a type of its own, and a call per row costs as much as the
// rest of a hit.
//
// The zero value is an empty cache; it allocates its table at the first
// Put. It is for one goroutine.
type StrCache struct {
	sets *[strCacheSets][2]strCacheEnt
}

type strCacheEnt struct {
	s string
	v unsafe.Pointer
}

const (
	strCacheBits = 8
	strCacheSets = 1 << strCacheBits
)

func (c *StrCache) set(s string) *[2]strCacheEnt {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return &c.sets[p*0x9E3779B97F4A7C15>>(64-strCacheBits)]
}

// is reports whether e holds s itself.
func (e *strCacheEnt) is(s string) bool {
	return unsafe.StringData(e.s) == unsafe.StringData(s) && len(e.s) == len(s)
}

// Get returns the value put last for s itself (the same bytes at the same
// address), or nil when there is none.
func (c *StrCache) Get(s string) unsafe.Pointer {
	if c.sets != nil {
		for i := range 2 {
			if e := &c.set(s)[i]; e.is(s) {
				return e.v
			}
		}
	}
	return nil
}

// Put keeps v for s, in place of the older of its set's two entries (or
// of s's own).
func (c *StrCache) Put(s string, v unsafe.Pointer) {
	if c.sets == nil {
		c.sets = new([strCacheSets][2]strCacheEnt)
	}
	set := c.set(s)
	if !set[0].is(s) {
		set[1] = set[0] // s's own entry, or the older one
	}
	set[0] = strCacheEnt{s: s, v: v}
}

// Reset empties the cache.
func (c *StrCache) Reset() {
	if c.sets != nil {
		clear(c.sets[:])
	}
}
