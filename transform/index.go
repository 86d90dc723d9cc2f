package transform

// hashIndex maps keys to row numbers by open addressing, for the tables
// whose keys carry their own hash (event keys are SHA-256 prefixes): it
// hashes nothing and keeps a slot per row in a table that stays small
// enough for the cache, where a map would hash two strings per row.
type hashIndex[K comparable] struct {
	hash  func(K) uint64
	slots []int32 // row + 1; 0 is empty
	keys  []K     // by row
	mask  int
}

// find returns the row of k, or the slot where it belongs.
func (x *hashIndex[K]) find(k K) (row int32, slot int, ok bool) {
	if len(x.slots) == 0 {
		x.grow()
	}
	for slot = int(x.hash(k)) & x.mask; ; slot = (slot + 1) & x.mask {
		r := x.slots[slot]
		if r == 0 {
			return 0, slot, false
		}
		if x.keys[r-1] == k {
			return r - 1, slot, true
		}
	}
}

// insert puts row under k at slot (from find).
func (x *hashIndex[K]) insert(k K, slot int, row int32) {
	x.slots[slot] = row + 1
	x.keys = append(x.keys, k)
	if 2*len(x.keys) > len(x.slots) {
		x.grow()
	}
}

// grow doubles the table and places every key again.
func (x *hashIndex[K]) grow() {
	n := max(2*len(x.slots), 1024)
	x.slots = make([]int32, n)
	x.mask = n - 1
	for i := range x.keys {
		slot := int(x.hash(x.keys[i])) & x.mask
		for x.slots[slot] != 0 {
			slot = (slot + 1) & x.mask
		}
		x.slots[slot] = int32(i) + 1
	}
}

func (x *hashIndex[K]) reset() {
	clear(x.slots)
	clear(x.keys)
	x.keys = x.keys[:0]
}
