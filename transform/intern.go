package transform

import "strings"

// interner keeps one owned copy of each distinct string a batch buffers.
// Values repeat a great deal (codes, places, names), and a body's strings
// may be views of its bytes, which the batch must not keep. A small
// direct-mapped cache in front of the map answers the most repeated
// values without hashing them.
type interner struct {
	m     map[string]string
	cache [internCache]string
	bytes int // the copies' bytes and their entries in m
}

// internCache is the number of entries of the interner's cache.
const internCache = 1024

func newInterner() *interner { return &interner{m: map[string]string{}} }

// of returns the owned copy of s.
func (in *interner) of(s string) string {
	if s == "" {
		return ""
	}
	h := (uint(len(s))*0x9E37 ^ uint(s[0])*0x85EB ^ uint(s[len(s)/2])*0xC2B3 ^ uint(s[len(s)-1])*0x27D5 ^ uint(s[len(s)/4])*0x1657) % internCache
	if c := in.cache[h]; c == s {
		return c
	}
	v, ok := in.m[s]
	if !ok {
		v = strings.Clone(s)
		in.m[v] = v
		in.bytes += len(v) + internEntry
	}
	in.cache[h] = v
	return v
}

// internEntry is what an entry of the interner's map holds besides the
// string's bytes: two string headers and the map's overhead.
const internEntry = 40

func (in *interner) reset() {
	clear(in.m)
	in.bytes = 0
	in.cache = [internCache]string{}
}

// keeper makes the strings a response's rows keep owned: interned, or
// as they are when the decoder already interned them (the shipment fast
// path).
type keeper struct {
	in    *interner
	owned bool
}

func (k keeper) of(s string) string {
	if k.owned {
		return s
	}
	return k.in.of(s)
}

// code keeps the code norm made of sent (upperCode, eventCodes): sent
// itself when they are the same string, which the decoder may have
// interned already, else norm interned.
func (k keeper) code(sent, norm string) string {
	if norm == sent {
		return k.of(sent)
	}
	return k.in.of(norm)
}
