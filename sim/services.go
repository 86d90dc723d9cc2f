package sim

import (
	"math"
	"time"
)

// A service is a weekly loop of port calls operated by one carrier with
// ceil(loop days / 7) vessels. Rotation k of a service starts (arrives at its
// first port) k weeks after the world's epoch plus the service's weekday
// offset; it is sailed by vessel slot k mod n, so the vessel that sails
// rotation k sails k+n next.

// rotationCall is one port of a loop: days in port, then days at sea to the
// next port (the last one sails back to the first).
type rotationCall struct {
	port      string
	stay, sea float64
}

// template is a loop rotation shared by carriers, with realistic sea legs
// (2025: Asia–Europe and Asia–Med via the Cape of Good Hope, one
// Asia–Med loop via Suez).
type template struct {
	id              string
	dirOut, dirBack string // voyage directions before and after the turnaround
	turn            int    // index of the turnaround port
	calls           []rotationCall
}

var templates = []template{
	{"AEN-A", "W", "E", 6, []rotationCall{{"CNNGB", 1, 0.6}, {"CNSHA", 1, 2.2}, {"CNYTN", 1, 3.7}, {"MYTPP", 1, 25},
		{"NLRTM", 1.5, 1.2}, {"DEHAM", 1.5, 0.6}, {"DEBRV", 1, 1.3}, {"GBFXT", 1, 25}, {"SGSIN", 1, 5}}},
	{"AEN-B", "W", "E", 7, []rotationCall{{"CNTAO", 1, 1.3}, {"CNSHA", 1, 0.5}, {"CNNGB", 1, 5.2}, {"SGSIN", 1.2, 22},
		{"MAPTM", 1, 3.3}, {"NLRTM", 1.5, 0.6}, {"BEANR", 1.5, 1.5}, {"DEHAM", 1.5, 25}, {"LKCMB", 1, 4}, {"SGSIN", 1, 6.2}}},
	{"AEN-C", "W", "E", 6, []rotationCall{{"CNNGB", 1, 0.5}, {"CNSHA", 1, 2.2}, {"CNYTN", 1, 3.6}, {"SGSIN", 1.2, 23},
		{"GBFXT", 1.5, 0.8}, {"NLRTM", 1.5, 1.2}, {"DEHAM", 1.5, 1.6}, {"FRLEH", 1, 24.5}, {"SGSIN", 1, 5}}},
	{"AEN-D", "W", "E", 7, []rotationCall{{"KRPUS", 1, 1.3}, {"CNSHA", 1, 0.6}, {"CNNGB", 1, 2}, {"CNYTN", 1, 3.6},
		{"SGSIN", 1.2, 22.5}, {"NLRTM", 1.5, 1.2}, {"DEHAM", 1.5, 1.5}, {"GBLGP", 1, 25}, {"SGSIN", 1, 6.2}}},
	{"AMED-A", "W", "E", 7, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 2}, {"CNYTN", 1, 3.7}, {"SGSIN", 1.2, 23},
		{"ESVLC", 1.2, 1.5}, {"ITGOA", 1.5, 2.5}, {"GRPIR", 1.2, 1.3}, {"TRMER", 1.2, 3.8}, {"ESBCN", 1, 25}, {"SGSIN", 1, 5.2}}},
	{"AMED-S", "W", "E", 8, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 2}, {"CNSHK", 1, 3.7}, {"SGSIN", 1.2, 4},
		{"LKCMB", 1, 8.5}, {"EGPSD", 1, 1.8}, {"GRPIR", 1.2, 2.5}, {"ITGOA", 1.5, 0.6}, {"FRFOS", 1.2, 1.5},
		{"ITGIT", 1, 2.6}, {"EGPSD", 1, 12.5}, {"SGSIN", 1, 5.4}}},
	{"TPW-A", "E", "W", 4, []rotationCall{{"CNNGB", 1, 0.5}, {"CNSHA", 1, 1.5}, {"KRPUS", 1, 12.3}, {"USLAX", 3, 1},
		{"USOAK", 1.5, 10.5}, {"JPTYO", 1, 2.6}}},
	{"TPW-B", "E", "W", 4, []rotationCall{{"HKHKG", 1, 0.4}, {"CNYTN", 1, 1.8}, {"CNSHA", 1, 13.5}, {"USLGB", 3, 1},
		{"USOAK", 1.5, 12}, {"KRPUS", 1, 2.8}}},
	{"TPW-C", "E", "W", 5, []rotationCall{{"THLCH", 1, 1.5}, {"VNSGN", 1.2, 2.4}, {"HKHKG", 1, 0.4}, {"CNYTN", 1, 14.6},
		{"USLAX", 3, 1}, {"USOAK", 1.5, 14}, {"TWKHH", 1, 3.8}}},
	{"TPNW", "E", "W", 4, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 2}, {"KRPUS", 1, 10.8}, {"CAVAN", 2, 0.7},
		{"USSEA", 1.5, 10}, {"JPYOK", 1, 2.4}}},
	{"TPMX", "E", "W", 6, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 1.5}, {"KRPUS", 1, 14.5}, {"MXZLO", 1.5, 3.8},
		{"PABLB", 1, 3.2}, {"PECLL", 1.5, 3.2}, {"CLSAI", 1.5, 24}}},
	{"AUE", "E", "W", 7, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 1.8}, {"KRPUS", 1, 19.5}, {"PAMIT", 1, 4.2},
		{"USSAV", 1.5, 0.8}, {"USCHS", 1.2, 1.2}, {"USORF", 1.2, 1}, {"USNYC", 1.5, 5}, {"PAMIT", 1, 21}}},
	{"TA1", "W", "E", 7, []rotationCall{{"DEHAM", 1.5, 1}, {"NLRTM", 1.5, 0.7}, {"BEANR", 1.5, 0.6}, {"GBLGP", 1, 8.5},
		{"USNYC", 1.5, 1.2}, {"USORF", 1.2, 1.2}, {"USCHS", 1.2, 0.6}, {"USSAV", 1.5, 11}}},
	{"TA2", "W", "E", 5, []rotationCall{{"ITGOA", 1.5, 1.1}, {"ESBCN", 1.2, 0.6}, {"ESVLC", 1.2, 0.9}, {"ESALG", 1, 8.5},
		{"USNYC", 1.5, 5}, {"USHOU", 1.5, 13}}},
	{"IA-SIN", "N", "S", 3, []rotationCall{{"SGSIN", 1, 0.6}, {"MYPKG", 1, 2.4}, {"THLCH", 1.2, 1.5}, {"VNSGN", 1.2, 2.4},
		{"IDJKT", 1.2, 1.4}}},
	{"IA-TPP", "N", "S", 2, []rotationCall{{"MYTPP", 1, 2.4}, {"THLCH", 1.2, 1.5}, {"VNSGN", 1.2, 2.4}, {"IDJKT", 1.2, 1.4}}},
	{"IA-NS", "S", "N", 6, []rotationCall{{"JPTYO", 1, 0.3}, {"JPYOK", 1, 1.8}, {"KRPUS", 1, 1.4}, {"CNSHA", 1, 2.1},
		{"HKHKG", 1, 2.2}, {"VNSGN", 1.2, 1.8}, {"SGSIN", 1.2, 7}}},
	{"IA-CT", "S", "N", 3, []rotationCall{{"CNXMN", 1, 0.6}, {"TWKHH", 1, 1.5}, {"HKHKG", 1, 0.4}, {"CNSHK", 1, 2.1},
		{"CNSHA", 1, 1.4}}},
	{"MEI", "W", "E", 7, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 2}, {"CNSHK", 1, 3.7}, {"SGSIN", 1.2, 4},
		{"LKCMB", 1, 2.3}, {"INNSA", 1.5, 1}, {"INMUN", 1.2, 2}, {"AEJEA", 1.5, 2.3}, {"OMSLL", 1, 8}, {"SGSIN", 1, 5.3}}},
	{"MEF", "E", "W", 3, []rotationCall{{"AEJEA", 1.5, 2}, {"INMUN", 1.2, 1}, {"INNSA", 1.5, 2.3}, {"LKCMB", 1.2, 4},
		{"OMSLL", 1, 2.2}}},
	{"AECSA", "W", "E", 5, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 2}, {"CNSHK", 1, 3.7}, {"SGSIN", 1.2, 21},
		{"BRSSZ", 1.5, 2.5}, {"ARBUE", 1.5, 9.5}, {"ZADUR", 1.2, 11.5}, {"SGSIN", 1, 5.3}}},
	{"AFS", "W", "E", 4, []rotationCall{{"CNNGB", 1, 0.6}, {"CNSHA", 1, 2.2}, {"CNYTN", 1, 3.7}, {"SGSIN", 1.2, 11.5},
		{"ZADUR", 2, 4}, {"KEMBA", 1.5, 9.5}, {"SGSIN", 1, 5}}},
	{"EWAF", "S", "N", 4, []rotationCall{{"NLRTM", 1.5, 0.7}, {"BEANR", 1.5, 1}, {"FRLEH", 1.2, 3}, {"MAPTM", 1, 7.5},
		{"NGAPP", 2.5, 7.2}, {"ESALG", 1, 3.5}}},
	{"CARIB", "S", "N", 4, []rotationCall{{"PAMIT", 1, 0.8}, {"COCTG", 1.2, 1.8}, {"PABLB", 1, 3.2}, {"PECLL", 1.5, 3.2},
		{"CLSAI", 1.5, 7.5}}},
	{"OCE", "S", "N", 4, []rotationCall{{"CNSHA", 1, 0.5}, {"CNNGB", 1, 2}, {"HKHKG", 1, 9.8}, {"AUSYD", 1.5, 1.5},
		{"AUMEL", 1.5, 4}, {"NZAKL", 1.2, 11.5}}},
	{"SAO", "S", "N", 3, []rotationCall{{"SGSIN", 1.2, 1.3}, {"IDJKT", 1.2, 8}, {"AUMEL", 1.5, 1.5}, {"AUSYD", 1.5, 10}}},
	{"ISCEU", "W", "E", 5, []rotationCall{{"INMUN", 1.2, 1}, {"INNSA", 1.5, 2.5}, {"LKCMB", 1, 21}, {"MAPTM", 1, 3.3},
		{"NLRTM", 1.5, 0.7}, {"BEANR", 1.5, 1.3}, {"DEHAM", 1.5, 25}}},
	{"EUSA", "S", "N", 5, []rotationCall{{"DEHAM", 1.5, 1}, {"NLRTM", 1.5, 0.7}, {"BEANR", 1.5, 1}, {"FRLEH", 1.2, 12.5},
		{"BRSSZ", 2, 2.5}, {"ARBUE", 1.5, 15}}},
}

// serviceSpec assigns a template to a carrier under the carrier's own code.
type serviceSpec struct {
	scac, code, name, tpl string
}

var serviceTable = []serviceSpec{
	{"MAEU", "AE1", "Asia–North Europe AE1", "AEN-A"},
	{"MAEU", "AE12", "Asia–Mediterranean AE12", "AMED-A"},
	{"MAEU", "TP6", "Transpacific TP6", "TPW-A"},
	{"MAEU", "TP11", "Asia–US East Coast TP11", "AUE"},
	{"MAEU", "TA1", "Transatlantic TA1", "TA1"},
	{"MAEU", "FE3", "Intra-Asia FE3", "IA-TPP"},
	{"MAEU", "ME11", "Middle East–India ME11", "MEI"},
	{"MAEU", "AC3", "Asia–West Coast South America AC3", "TPMX"},
	{"MAEU", "WAF7", "Europe–West Africa WAF7", "EWAF"},

	{"HLCU", "FE2", "Far East Loop 2", "AEN-A"},
	{"HLCU", "MD1", "Mediterranean–Asia 1", "AMED-A"},
	{"HLCU", "PN1", "Pacific Northwest 1", "TPNW"},
	{"HLCU", "AL5", "Atlantic Loop 5", "TA1"},
	{"HLCU", "IOS", "India–Europe IOS", "ISCEU"},
	{"HLCU", "EWX", "Europe–West Africa Express", "EWAF"},
	{"HLCU", "SAX", "South America Express", "EUSA"},

	{"MSCU", "SWAN", "Swan", "AEN-B"},
	{"MSCU", "LION", "Lion", "AEN-C"},
	{"MSCU", "DRAGON", "Dragon", "AMED-A"},
	{"MSCU", "PEARL", "Pearl", "TPW-B"},
	{"MSCU", "AMBER", "Amberjack", "AUE"},
	{"MSCU", "NYX", "New York Express", "TA2"},
	{"MSCU", "INDUS", "Indus Express", "MEF"},
	{"MSCU", "IPAK", "India Pakistan Express", "MEI"},
	{"MSCU", "WAFEX", "West Africa Express", "EWAF"},
	{"MSCU", "ANDES", "Andes Express", "CARIB"},
	{"MSCU", "TIGER", "Tiger", "OCE"},
	{"MSCU", "SAFARI", "Africa Express", "AFS"},

	{"CMDU", "FAL1", "French Asia Line 1", "AEN-C"},
	{"CMDU", "FAL3", "French Asia Line 3", "AEN-B"},
	{"CMDU", "MEX1", "Mediterranean Express 1", "AMED-S"},
	{"CMDU", "PRX", "Pearl River Express", "TPW-C"},
	{"CMDU", "CBX", "Columbus Express", "AUE"},
	{"CMDU", "ASAF", "Asia–South Africa", "AFS"},
	{"CMDU", "AAX", "Australia Asia Express", "OCE"},
	{"CMDU", "ASPA", "Asia Straits Pacific", "IA-SIN"},

	{"COSU", "AEU3", "Asia–Europe 3", "AEN-C"},
	{"COSU", "AEM1", "Asia–Mediterranean 1", "AMED-A"},
	{"COSU", "CEN", "China–US West Coast", "TPW-A"},
	{"COSU", "AWE4", "Asia–US East Coast 4", "AUE"},
	{"COSU", "WSA", "West Coast South America", "TPMX"},
	{"COSU", "ESA", "East Coast South America", "AECSA"},
	{"COSU", "CSE", "China–Southeast Asia Express", "IA-SIN"},
	{"COSU", "PGX", "Persian Gulf Express", "MEI"},

	{"ONEY", "FP1", "Far East–North Europe FP1", "AEN-D"},
	{"ONEY", "MD1", "Asia–Mediterranean MD1", "AMED-A"},
	{"ONEY", "PS3", "Pacific South 3", "TPW-A"},
	{"ONEY", "EC1", "East Coast 1", "AUE"},
	{"ONEY", "JTX", "Japan–Thailand Express", "IA-NS"},
	{"ONEY", "SAL", "South America Loop", "AECSA"},

	{"EGLV", "CEM", "China–Europe–Mediterranean", "AEN-C"},
	{"EGLV", "NUE", "New US East Coast", "AUE"},
	{"EGLV", "TPS", "Trans-Pacific South", "TPW-C"},
	{"EGLV", "KTX", "Kaohsiung–Taiwan Express", "IA-CT"},

	{"YMLU", "AE3", "Asia–North Europe 3", "AEN-D"},
	{"YMLU", "PS5", "Pacific South 5", "TPW-A"},
	{"YMLU", "MD3", "Asia–Mediterranean 3", "AMED-A"},
	{"YMLU", "CT1", "China–Taiwan 1", "IA-CT"},

	{"HDMU", "FE4", "Far East–Europe 4", "AEN-D"},
	{"HDMU", "PS1", "Pacific South 1", "TPW-B"},
	{"HDMU", "PN2", "Pacific North 2", "TPNW"},
	{"HDMU", "CIX", "China–India Express", "MEI"},

	{"ZIMU", "ZEX", "ZIM eCommerce Express", "TPW-B"},
	{"ZIMU", "ZCP", "ZIM China–Pacific Northwest", "TPNW"},
	{"ZIMU", "ZMS", "ZIM Mediterranean–US", "TA2"},
	{"ZIMU", "ZCA", "ZIM Asia–US East Coast", "AUE"},
	{"ZIMU", "ZAX", "ZIM Australia Express", "OCE"},

	{"WHLC", "JTS", "Japan–Taiwan–Singapore", "IA-NS"},
	{"WHLC", "KCS", "Kaohsiung–China–Singapore", "IA-SIN"},
	{"WHLC", "CT2", "China–Taiwan 2", "IA-CT"},
	{"WHLC", "AA7", "Asia–America 7", "TPW-C"},

	{"OOLU", "LL1", "Asia–North Europe Loop 1", "AEN-C"},
	{"OOLU", "CPX", "Chinese Pacific Express", "TPW-A"},
	{"OOLU", "PCN", "Pacific China North", "TPNW"},
	{"OOLU", "AIM", "Asia–India–Middle East", "MEI"},
	{"OOLU", "IA1", "Intra-Asia 1", "IA-SIN"},

	{"PCIU", "SAS", "Straits–Australia Service", "SAO"},
	{"PCIU", "AEA", "Asia–East Africa", "AFS"},
	{"PCIU", "SAE", "South America East", "AECSA"},
	{"PCIU", "CSX", "China–Straits Express", "IA-SIN"},
	{"PCIU", "GIS", "Gulf–India Service", "MEF"},
}

// service is a template instantiated for one carrier.
type service struct {
	id           int64 // stable identifier (hash of SCAC and code)
	carrier      int
	code, name   string
	tpl          *template
	ports        []int   // place index per position
	facility     []int   // terminal index per position
	arr, dep     []int64 // planned offsets from rotation start, seconds
	minSea       []int64 // physical minimum of the sea leg after each position, seconds
	n            int     // vessels
	offset       int64   // rotation 0 start, seconds after the epoch (a weekday and hour)
	vessels      []int   // vessel index per slot
	kMin, kMax   int     // rotations generated (inclusive)
	callBase     int     // index of call (kMin, 0) in World.calls
	voyBase      int     // base of per-vessel voyage counters
	prefix       string  // two letters for voyPrefix voyage numbers
	cmaCode      string  // three letters for voyCMA voyage numbers
	periodSecond int64   // n weeks
}

const (
	day  = int64(24 * 3600)
	week = 7 * day
)

// buildService lays out the planned timetable of one service. Stays and sea
// legs are rounded to the hour; the loop is padded (on its last sea leg) to
// whole weeks.
func buildService(seed int64, spec serviceSpec, tpl *template, carrierIdx int, placeIdx map[string]int) service {
	s := service{
		id: strID(spec.scac + "/" + spec.code), carrier: carrierIdx, code: spec.code, name: spec.name, tpl: tpl,
	}
	h := hash(seed, tagService, s.id)
	var t int64
	for _, c := range tpl.calls {
		pi, ok := placeIdx[c.port]
		if !ok {
			panic("sim: template " + tpl.id + " calls unknown port " + c.port)
		}
		s.ports = append(s.ports, pi)
		s.arr = append(s.arr, t)
		t += hours(c.stay * 24)
		s.dep = append(s.dep, t)
		t += hours(c.sea * 24)
		s.minSea = append(s.minSea, hours(c.sea*24*0.8))
	}
	s.n = int(math.Ceil(float64(t) / float64(week)))
	s.periodSecond = int64(s.n) * week
	s.offset = int64(intn(h, 7))*day + int64(intn(mix(h), 24))*3600
	s.voyBase = 20 + intn(mix(h^1), 60)
	s.prefix = voyagePrefix(spec.code, spec.name)
	s.cmaCode = (spec.code + "XXX")[:3]
	return s
}

// hours rounds a number of hours to whole hours, in seconds.
func hours(h float64) int64 { return int64(math.Round(h)) * 3600 }

// voyagePrefix is two letters from the service code, e.g. "SW" for SWAN.
func voyagePrefix(code, name string) string {
	letters := make([]byte, 0, 2)
	for _, src := range []string{code, name} {
		for i := 0; i < len(src) && len(letters) < 2; i++ {
			if c := src[i]; c >= 'A' && c <= 'Z' {
				letters = append(letters, c)
			}
		}
	}
	for len(letters) < 2 {
		letters = append(letters, 'X')
	}
	return string(letters)
}

// rotationStart is the planned arrival of rotation k at position 0, in Unix
// seconds.
func (s *service) rotationStart(k int) int64 { return epoch + s.offset + int64(k)*week }

// transit is the planned time from departure at position i to arrival at
// position j of the same vessel (j after i in the loop, wrapping into the
// vessel's next rotation when j ≤ i), and whether the arrival is in the next
// rotation of the vessel.
func (s *service) transit(i, j int) (secs int64, wrap bool) {
	if j > i {
		return s.arr[j] - s.dep[i], false
	}
	return s.periodSecond + s.arr[j] - s.dep[i], true
}

// epoch is the reference of rotation and revision numbering (a Monday).
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
