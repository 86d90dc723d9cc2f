package sim

import (
	"fmt"

	"github.com/etalake/etalake/wire"
)

// VesselInfo is a ship of the world, as a worklist needs it.
type VesselInfo struct {
	IMO      int    `json:"imo"`
	Name     string `json:"name"`
	CallSign string `json:"call_sign"`
	MMSI     int    `json:"mmsi"`
	Flag     string `json:"flag"`
	Carrier  string `json:"carrier"` // SCAC of the operator
	Service  string `json:"service"` // code of the service it sails
}

// vessel is a ship with the slot it fills in its service.
type vessel struct {
	VesselInfo
	carrier, service, slot int
}

// flagMID are Maritime Identification Digits (the first three of an MMSI)
// and call-sign prefixes of the flags the carriers use.
var flagMID = map[string]struct {
	mid      int
	callSign string // prefix; the rest is letters then one digit
}{
	"DK": {219, "OY"}, "SG": {563, "9V"}, "HK": {477, "VR"}, "MT": {248, "9H"}, "FR": {228, "FM"},
	"LR": {636, "D5"}, "CN": {413, "BP"}, "PA": {352, "3E"}, "TW": {416, "BL"}, "GB": {232, "2G"},
	"KR": {440, "D7"}, "DE": {211, "DD"}, "PT": {255, "CQ"}, "JP": {431, "7J"}, "MH": {538, "V7"},
	"IL": {428, "4X"},
}

// vesselFactory hands out unique names and IMO numbers.
type vesselFactory struct {
	seed  int64
	imos  map[int]bool
	names map[string]bool
	next  map[int]int // per carrier: names handed out
}

func newVesselFactory(seed int64) *vesselFactory {
	return &vesselFactory{seed: seed, imos: map[int]bool{}, names: map[string]bool{}, next: map[int]int{}}
}

// make creates the vessel for a slot of a service.
func (f *vesselFactory) make(cs []carrier, ci int, svc *service, slot int) vessel {
	c := &cs[ci]
	h := hash(f.seed, tagVessel, svc.id, int64(slot))
	v := vessel{carrier: ci, slot: slot}
	v.Carrier, v.Service = c.scac, svc.code
	v.Name = f.name(c, ci)
	v.IMO = f.imo(h)
	flag := c.flags[pick(mix(h^0x11), weightsOf(c.flags))].code
	fm := flagMID[flag]
	v.Flag = flag
	v.MMSI = fm.mid*1000000 + 100000 + intn(mix(h^0x22), 900000)
	l1, l2 := byte('A'+intn(mix(h^0x33), 26)), byte('A'+intn(mix(h^0x44), 26))
	v.CallSign = fmt.Sprintf("%s%c%c%d", fm.callSign, l1, l2, intn(mix(h^0x55), 10))
	return v
}

func weightsOf(ws []weighted) []float64 {
	out := make([]float64, len(ws))
	for i, w := range ws {
		out[i] = w.w
	}
	return out
}

// name picks the carrier's next unused name in a seeded order of its word
// list; a fleet larger than its list gets "II", "III" variants.
func (f *vesselFactory) name(c *carrier, ci int) string {
	for {
		i := f.next[ci]
		f.next[ci]++
		var name string
		if c.naming.words == nil {
			name = fmt.Sprintf("%s%d", c.naming.prefix, 101+i*7%900)
		} else {
			words := c.naming.words
			n := len(words)
			// A seeded permutation: stride coprime with n from a fixed start.
			h := hash(f.seed, tagVessel, strID(c.scac))
			stride := 1 + intn(h, n-1)
			for gcd(stride, n) != 1 {
				stride++
			}
			w := words[(intn(mix(h), n)+(i%n)*stride)%n]
			name = c.naming.prefix + w + c.naming.suffix
			if round := i / n; round > 0 {
				name += []string{" II", " III", " IV", " V"}[(round-1)%4]
			}
		}
		if !f.names[name] {
			f.names[name] = true
			return name
		}
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// imo draws a unique 7-digit IMO number with a valid check digit, in the
// 92xxxxx–98xxxxx range of container ships built since the 2000s.
func (f *vesselFactory) imo(h uint64) int {
	for try := uint64(0); ; try++ {
		body := 920000 + intn(mix(h^try), 70000) // six digits
		n := body*10 + imoCheckDigit(body)
		if !f.imos[n] {
			f.imos[n] = true
			return n
		}
	}
}

// wire renders the vessel as a fresh wire Vessel.
func (v *vessel) wire() *wire.Vessel {
	imo, mmsi := v.IMO, v.MMSI
	cs, flag := v.CallSign, v.Flag
	return &wire.Vessel{Name: v.Name, IMO: &imo, CallSign: &cs, MMSI: &mmsi, Flag: &flag}
}
