package sim_test

import (
	"net/url"
	"testing"

	"github.com/etalake/etalake/sim"
	"github.com/etalake/etalake/wire"
)

func TestCheckPortCode(t *testing.T) {
	cases := []struct {
		rule string
		in   string
		want string // "" when refused
	}{
		{"§2.3 five capital letters", "NLRTM", "NLRTM"},
		{"§2.3 letters and digits", "US2AB", "US2AB"},
		{"§2.3 alphanumeric has no case: read upper-cased", "nlRtm", "NLRTM"},
		{"§2.3 four characters are refused", "NLRT", ""},
		{"§2.3 six characters are refused", "NLRTMX", ""},
		{"§2.3 a dash is not alphanumeric", "NL-RT", ""},
		{"§2.3 a space is not alphanumeric", "NL RT", ""},
		{"§2.3 the service does not trim", " NLRT", ""},
		{"§2.3 a non-ASCII letter is no UN/LOCODE character", "ÄLRT", ""},
		{"§2.3 an empty code is refused", "", ""},
	}
	for _, c := range cases {
		got, ok := sim.CheckPortCode(c.in)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("%s: CheckPortCode(%q) = %q, %v; want %q", c.rule, c.in, got, ok, c.want)
		}
	}
}

func TestCheckIMO(t *testing.T) {
	cases := []struct {
		rule string
		in   string
		want int // 0 when refused
	}{
		// 9×7 + 0×6 + 7×5 + 4×4 + 7×3 + 2×2 = 139: check digit 9.
		{"schedules.md: IMO's own example", "9074729", 9074729},
		{"schedules.md: a valid check digit", "9321483", 9321483},
		// 9×7 + 0×6 + 7×5 + 4×4 + 4×3 + 2×2 = 130: check digit 0.
		{"schedules.md: a check digit of 0", "9074420", 9074420},
		{"schedules.md: a wrong check digit is refused", "9074728", 0},
		{"schedules.md: six digits are refused", "907472", 0},
		{"schedules.md: eight digits are refused", "90747290", 0},
		{"service.md §2.4: imo is an integer, so no leading zero", "0000000", 0},
		{"schedules.md: a sign is not a digit", "+907472", 0},
		{"schedules.md: the IMO prefix is the client's notation, not the path's", "IMO9074729", 0},
		{"schedules.md: a letter O is not a zero", "9O74729", 0},
		{"schedules.md: an empty number is refused", "", 0},
	}
	for _, c := range cases {
		got, ok := sim.CheckIMO(c.in)
		if ok != (c.want != 0) || got != c.want {
			t.Errorf("%s: CheckIMO(%q) = %d, %v; want %d", c.rule, c.in, got, ok, c.want)
		}
	}
}

func TestCheckShipmentQuery(t *testing.T) {
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	ref := func(number string, typ wire.ShipmentType, sealine string) *wire.ShipmentRef {
		return &wire.ShipmentRef{Number: number, Type: typ, Sealine: sealine}
	}
	cases := []struct {
		rule  string
		query url.Values
		want  *wire.ShipmentRef // nil when refused
	}{
		{"schedules.md: the type is CT by default", q("shipmentNumber", "CSQU3054383"), ref("CSQU3054383", "CT", "")},
		{"schedules.md: an empty type is the default", q("shipmentNumber", "CSQU3054383", "shipmentType", ""), ref("CSQU3054383", "CT", "")},
		{"schedules.md: a bill of lading with its sealine", q("shipmentNumber", "MAEU123456789", "shipmentType", "BL", "sealine", "MAEU"), ref("MAEU123456789", "BL", "MAEU")},
		{"schedules.md: a booking number", q("shipmentNumber", "X1", "shipmentType", "BK"), ref("X1", "BK", "")},
		{"schedules.md: an unknown number is no data, not a bad request", q("shipmentNumber", "CSQU3054384"), ref("CSQU3054384", "CT", "")},
		{"schedules.md: the number is required", q("shipmentType", "CT"), nil},
		{"schedules.md: an empty number is missing", q("shipmentNumber", ""), nil},
		{"schedules.md: a type other than CT, BL, BK is refused", q("shipmentNumber", "X1", "shipmentType", "XX"), nil},
		{"schedules.md: the types are capitals", q("shipmentNumber", "X1", "shipmentType", "bl"), nil},
		{"schedules.md: a 2-letter SCAC", q("shipmentNumber", "X1", "sealine", "ZZ"), ref("X1", "CT", "ZZ")},
		{"schedules.md: a SCAC has at most 4 letters", q("shipmentNumber", "X1", "sealine", "MAERSK"), nil},
		{"schedules.md: a SCAC has at least 2 letters", q("shipmentNumber", "X1", "sealine", "M"), nil},
		{"schedules.md: a SCAC is capital letters", q("shipmentNumber", "X1", "sealine", "maeu"), nil},
		{"schedules.md: a SCAC has no digits", q("shipmentNumber", "X1", "sealine", "MAE1"), nil},
	}
	for _, c := range cases {
		got, ok := sim.CheckShipmentQuery(c.query)
		switch {
		case c.want == nil && ok:
			t.Errorf("%s: CheckShipmentQuery(%v) = %+v, want a 400", c.rule, c.query, got)
		case c.want != nil && (!ok || got != *c.want):
			t.Errorf("%s: CheckShipmentQuery(%v) = %+v, %v; want %+v", c.rule, c.query, got, ok, *c.want)
		}
	}
}

func TestContainerCheckDigit(t *testing.T) {
	cases := []struct {
		rule string
		body string
		want int
	}{
		// ISO 6346's own example: C13 S30×2 Q28×4 U32×8 3×16 0 5×64 4×128
		// 3×256 8×512 = 6185 = 562×11 + 3.
		{"ISO 6346 example", "CSQU305438", 3},
		// 4905 = 445×11 + 10: a remainder of 10 is written 0.
		{"ISO 6346: remainder 10 is 0", "CSQU305407", 0},
		// Letters skip the multiples of 11: K=21, L=23, U=32, V=34, Z=38.
		{"ISO 6346 letter values around 22 and 33", "KLUV000000", (21 + 23*2 + 32*4 + 34*8) % 11 % 10},
		{"ISO 6346 letter values at both ends", "AZZZ000000", (10 + 38*2 + 38*4 + 38*8) % 11 % 10},
		{"nine characters are no container number", "CSQU30543", -1},
		{"lower case is no owner code", "csqu305438", -1},
		{"a letter in the serial", "CSQU3O5438", -1},
	}
	for _, c := range cases {
		if got := sim.ContainerCheckDigit(c.body); got != c.want {
			t.Errorf("%s: ContainerCheckDigit(%q) = %d, want %d", c.rule, c.body, got, c.want)
		}
	}
}

// Every container number the world generates carries its ISO 6346 check
// digit, the only shape a real service would hand out.
func TestGeneratedContainerNumbersCheck(t *testing.T) {
	w, _ := defaultWorld(t)
	for _, ref := range w.Shipments() {
		if ref.Type != wire.ShipmentContainer {
			continue
		}
		n := ref.Number
		if len(n) != 11 || sim.ContainerCheckDigit(n[:10]) != int(n[10]-'0') {
			t.Errorf("generated container number %q fails ISO 6346", n)
		}
	}
}
