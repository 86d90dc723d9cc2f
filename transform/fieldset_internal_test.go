package transform

import "testing"

// newFieldSet checks the constants-to-names mapping when the package is
// initialised; a mapping with a hole or a clash must not get that far.
func TestNewFieldSetRefusesABrokenMapping(t *testing.T) {
	type member int
	const (
		a member = iota
		b
		count
	)
	for name, names := range map[string]map[member]string{
		"a member without a name":  {a: "a"},
		"a name without a member":  {a: "a", b: "b", count: "c"},
		"two members, one name":    {a: "a", b: "a"},
		"a member with empty name": {a: "a", b: ""},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("newFieldSet(%v) did not panic", names)
				}
			}()
			newFieldSet(count, names)
		})
	}
	fs := newFieldSet(count, map[member]string{b: "second", a: "first"})
	if fs.names[a] != "first" || fs.names[b] != "second" || fs.quoted[b] != `"second":` {
		t.Errorf("names %q, quoted %q: not in constant order", fs.names, fs.quoted)
	}
}
