package transform_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/etalake/etalake/internal/slowtest"
	"github.com/etalake/etalake/transform"
	"github.com/etalake/etalake/wire"
)

// variant rewrites a decoded JSON value the ways a server may spell the
// same (or nearly the same) body: other key orders, white space, escaped
// characters, and now and then a change the fast path must refuse or
// follow exactly: a key in other case, a repeated member, a null, a value
// of another type, an unknown member, invalid UTF-8.
type variant struct {
	rng *rand.Rand
	buf bytes.Buffer
	// hard is the change made at the target-th value (or key) written;
	// "" for none.
	hard   string
	target int
	n      int
}

// at reports whether the hard change h happens here.
func (v *variant) at(h string) bool {
	if v.hard != h {
		return false
	}
	v.n++
	return v.n == v.target
}

func (v *variant) chance(p float64) bool { return v.rng.Float64() < p }

func (v *variant) ws() {
	if v.chance(0.05) {
		v.buf.WriteString([]string{" ", "\n", "\t", "\r\n  "}[v.rng.Intn(4)])
	}
}

func (v *variant) str(s string) { v.quote(s, 0.001) }

// quote writes s as a JSON string, escaping each character with
// probability escape.
func (v *variant) quote(s string, escape float64) {
	v.buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			v.buf.WriteByte('\\')
			v.buf.WriteRune(r)
		case r < 0x20 || v.chance(escape):
			fmt.Fprintf(&v.buf, `\u%04x`, r)
		default:
			v.buf.WriteRune(r)
		}
	}
	if v.at("utf8") {
		v.buf.WriteByte(0xff) // invalid UTF-8: encoding/json replaces it
	}
	v.buf.WriteByte('"')
}

func (v *variant) key(k string) {
	if v.at("case") {
		k = strings.ToUpper(k[:1]) + k[1:]
	}
	if v.at("escape") {
		v.quote(k, 1)
		return
	}
	v.quote(k, 0)
}

func (v *variant) value(x any) {
	v.ws()
	switch {
	case v.at("null"):
		v.buf.WriteString("null")
		return
	case v.at("string"):
		v.buf.WriteString(`"x"`)
		return
	case v.at("number"):
		v.buf.WriteString("12")
		return
	}
	switch x := x.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if v.chance(0.05) {
			v.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		}
		v.buf.WriteByte('{')
		first := true
		member := func(k string, val any) {
			if !first {
				v.buf.WriteByte(',')
			}
			first = false
			v.ws()
			v.key(k)
			v.ws()
			v.buf.WriteByte(':')
			v.value(val)
			v.ws()
		}
		for _, k := range keys {
			member(k, x[k])
			if v.at("repeat") {
				member(k, x[k]) // a repeated member
			}
		}
		if v.chance(0.01) {
			member("unknownMember", map[string]any{"a": []any{json.Number("1.5e3"), true, nil, "é"}})
		}
		v.buf.WriteByte('}')
	case []any:
		v.buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				v.buf.WriteByte(',')
			}
			v.value(e)
		}
		v.buf.WriteByte(']')
	case string:
		v.str(x)
	case json.Number:
		v.buf.WriteString(x.String())
	case bool:
		fmt.Fprint(&v.buf, x)
	case nil:
		v.buf.WriteString("null")
	}
	v.ws()
}

// TestFastPathOnVariants rewrites every tracking body of testdata many
// times and holds the fast path to the wire decoder on each.
func TestFastPathOnVariants(t *testing.T) {
	slowtest.Long(t)
	rng := rand.New(rand.NewSource(7))
	mem := checked(t)
	tried, taken := 0, 0
	byKind := map[string]int{}
	for _, c := range loadCases(t) {
		if c.resp.Endpoint != wire.EndpointShipment || !json.Valid(c.resp.Body) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(c.resp.Body))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		hards := []string{"", "", "", "", "utf8", "case", "escape", "null", "string", "number", "repeat"}
		for i := 0; i < 60; i++ {
			v := &variant{rng: rng, hard: hards[i%len(hards)], target: 1 + rng.Intn(40)}
			v.value(doc)
			body := v.buf.Bytes()
			probe := transform.NewBatch(mem)
			fast, ok := transform.DecodeShipmentFast(probe, body)
			slow, err := wire.DecodeShipment(body)
			tried++
			if ok {
				byKind[v.hard]++
				taken++
				if err != nil {
					t.Fatalf("%s variant %d: fast path decodes what wire.DecodeShipment refuses (%v):\n%s", c.name, i, err, body)
				}
				if !reflect.DeepEqual(fast, slow) {
					t.Fatalf("%s variant %d: fast path and wire.DecodeShipment differ on\n%s", c.name, i, body)
				}
			}
			probe.Release()
			r := c.resp
			r.Body = body
			want := batchRows(t, transform.WithoutFastPath(transform.NewBatch(mem)), r)
			if got := batchRows(t, transform.NewBatch(mem), r); got != want {
				t.Fatalf("%s variant %d: rows differ:\n%s\nbody:\n%s", c.name, i, lineDiff(got, want), body)
			}
		}
	}
	t.Logf("the fast path took %d of %d variants (by change: %v)", taken, tried, byKind)
	if taken < tried/4 {
		t.Errorf("the fast path took only %d of %d variants", taken, tried)
	}
}
